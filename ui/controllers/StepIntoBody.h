#pragma once
// Step Into Body: a higher-order node's body (the rows of a map, the steps of a scan, the
// iterations of a while_loop, the branch a cond took) opened as a program of its own, in a window
// that runs it on each of the calls the node made.
#include <QObject>

#include "session/LoadedProgram.h"

class QAction;
class QStatusBar;

namespace torchir::ui {

struct StudioContext;
class Selection;
class SessionController;

class StepIntoBody : public QObject {
  Q_OBJECT

 public:
  explicit StepIntoBody(const StudioContext& studio);

  /// F11, on the selected node; enabled where it has a body.
  QAction* action() const { return m_action; }
  /// The selected node's calls of its body: its node run once more on the run's values (the run is
  /// left where it is), after running to it when it has not run yet. bodyReady() follows.
  void stepInto();

 Q_SIGNALS:
  /// The body to show in a window of its own, run on its first call.
  void bodyReady(torchir::ui::LoadedProgramPtr body);

 private:
  void updateAction();

  SessionController* m_session;
  Selection* m_selection;
  QStatusBar* m_status;
  QAction* m_action = nullptr;
};

}  // namespace torchir::ui
