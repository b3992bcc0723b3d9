#pragma once
#include <QDialog>
#include <vector>

#include "exec/Patch.h"

class QLabel;
class QTableWidget;

namespace torchir::ui {

class SessionController;

/// Edit and continue at the next node: its call's arguments, each with what to change (a number;
/// a tensor cast to a dtype, filled with a value or replaced from a .safetensors file). Try runs
/// the changed call beside the call as it is; Apply and Continue makes the change the run's.
class EditCallDialog : public QDialog {
  Q_OBJECT

 public:
  EditCallDialog(SessionController* session, torchir::NodeId node, QWidget* parent = nullptr);

  /// The changes as the rows say them; throws std::invalid_argument naming a row that says
  /// something that is not one (a value that is no number, a file without the tensor).
  std::vector<torchir::ArgumentPatch> patches() const;

 Q_SIGNALS:
  /// A trial's outputs, for the tensor viewer: with the change, as it is, and what differs.
  void trialShown(torchir::NodeId node, const torchir::PatchTrial& trial);

 private:
  void showArguments(const std::vector<torchir::ArgumentRecord>& arguments);
  void showTrial(const torchir::PatchTrial& trial);
  void tryChanges();
  void applyChanges();

  SessionController* m_session;
  torchir::NodeId m_node;
  QTableWidget* m_table = nullptr;
  QLabel* m_result = nullptr;
  bool m_argumentsShown = false;
};

}  // namespace torchir::ui
