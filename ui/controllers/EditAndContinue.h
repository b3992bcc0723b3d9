#pragma once
// Edit and continue: Edit Call and the diagnosis's fix, both changes to the next node's call.
#include <QObject>
#include <cstdint>
#include <vector>

#include "exec/Patch.h"

class QAction;
class QStatusBar;
class QWidget;

namespace torchir {
enum class StopReason : uint8_t;
}  // namespace torchir

namespace torchir::ui {

struct StudioContext;
class DiagnosisPanel;
class SessionController;
class TensorDock;

/// Edit Call (Ctrl+E) opens the next node's call in a dialog, whose Try shows the changed call's
/// output in the tensor dock; Apply the Diagnosis's Fix (Ctrl+. or the diagnosis's button) applies
/// the cast a dtype mismatch suggests and continues. A change is to some arguments: the node's
/// changes to the others stay.
class EditAndContinue : public QObject {
  Q_OBJECT

 public:
  EditAndContinue(const StudioContext& studio, DiagnosisPanel* diagnosis, TensorDock* tensors);

  QAction* editCallAction() const { return m_editCall; }
  QAction* applyFixAction() const { return m_applyFix; }  // enabled while there is a fix

  void editCall();
  void applySuggestedFix();
  /// `changes` made to `node`'s changes (the argument each names takes it; the others keep theirs)
  /// and applied; the run goes on when `andContinue`. Merged into the changes the engine has taken
  /// (SessionController::patches()): apply the next once marksChanged() says this one is taken.
  void applyChanges(torchir::NodeId node, const std::vector<torchir::ArgumentPatch>& changes, bool andContinue);
  /// The casts the last failure's diagnosis suggests; empty when it suggests none, or the run has
  /// moved on from it.
  const std::vector<torchir::ArgumentPatch>& suggestedFix() const { return m_suggestedFix; }

 private:
  void onStopped(torchir::StopReason reason);
  void showTrial(torchir::NodeId node, const torchir::PatchTrial& trial);
  void forgetFix();

  SessionController* m_session;
  DiagnosisPanel* m_diagnosis;
  TensorDock* m_tensors;
  QStatusBar* m_status;
  QWidget* m_window;
  QAction* m_editCall = nullptr;
  QAction* m_applyFix = nullptr;
  std::vector<torchir::ArgumentPatch> m_suggestedFix;
  torchir::NodeId m_fixNode = torchir::kNone;  // the next node when it was made: a run moved on drops it
};

}  // namespace torchir::ui
