#pragma once
// The arguments dock: the selected node's call, as the run made it or as the program writes it.
#include <QObject>

#include "program/Ids.h"
#include "session/LoadedProgram.h"

namespace torchir::ui {

class ArgumentsPanel;
class SessionController;
struct StudioContext;

/// Follows the selection, as the tensor dock does: a node that ran shows its record (each
/// argument as the schema saw it, where it came from), with the failure's diagnosis where it
/// failed; a node not run yet shows the program's own arguments. In a body's window, under any
/// node: the call the run is of (its iteration) and where each of the body's inputs came from
/// (the value carried from the call before, or the higher-order node's operand).
class ArgumentsDock : public QObject {
  Q_OBJECT

 public:
  ArgumentsDock(const StudioContext& studio, ArgumentsPanel* panel);

  /// Another program is on screen (before its session starts, its nodes are shown as written).
  void setProgram(LoadedProgramPtr program);

 private:
  void showNode(torchir::NodeId node);

  SessionController* m_session;
  ArgumentsPanel* m_panel;
  LoadedProgramPtr m_program;
};

}  // namespace torchir::ui
