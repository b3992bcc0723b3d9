#include "controllers/EditAndContinue.h"

#include <QAction>
#include <QKeySequence>
#include <QMainWindow>
#include <QStatusBar>
#include <QWidget>
#include <utility>

#include "compare/TensorMetrics.h"
#include "controllers/EditCallDialog.h"
#include "session/CallChanges.h"
#include "controllers/TensorDock.h"
#include "panels/DiagnosisPanel.h"
#include "session/SessionController.h"
#include "session/StudioContext.h"

namespace torchir::ui {

EditAndContinue::EditAndContinue(const StudioContext& studio, DiagnosisPanel* diagnosis, TensorDock* tensors)
    : QObject(&studio.window),
      m_session(&studio.session),
      m_diagnosis(diagnosis),
      m_tensors(tensors),
      m_status(&studio.status),
      m_window(&studio.window) {
  m_editCall = new QAction(tr("&Edit Call…"), &studio.window);
  m_editCall->setObjectName(QStringLiteral("actionEditCall"));
  m_editCall->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_E));
  m_editCall->setStatusTip(tr("Change the next node's arguments, try the call, and continue with the change"));
  connect(m_editCall, &QAction::triggered, this, &EditAndContinue::editCall);
  m_applyFix = new QAction(tr("Apply the Diagnosis's &Fix"), &studio.window);
  m_applyFix->setObjectName(QStringLiteral("actionApplyFix"));
  m_applyFix->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_Period));
  m_applyFix->setEnabled(false);
  connect(m_applyFix, &QAction::triggered, this, &EditAndContinue::applySuggestedFix);
  studio.window.addAction(m_applyFix);  // its shortcut works wherever the focus is
  connect(diagnosis, &DiagnosisPanel::fixRequested, this, &EditAndContinue::applySuggestedFix);

  connect(&studio.session, &SessionController::stopped, this, &EditAndContinue::onStopped);
  // A reset or another program: the failure the fix was for is no longer the run's.
  connect(&studio.session, &SessionController::stateChanged, this, [this](RunState state) {
    if (state == RunState::Ready || state == RunState::Starting || state == RunState::Empty) forgetFix();
  });
  // The dialog shows a refusal while it is open; for a fix, or once Apply has closed it, this does.
  connect(&studio.session, &SessionController::patchRefused, this, [this](torchir::NodeId, const QString& why) {
    m_status->showMessage(tr("Change not applied: %1").arg(why), 8000);
  });
}

void EditAndContinue::onStopped(torchir::StopReason reason) {
  if (reason != torchir::StopReason::Failed && reason != torchir::StopReason::StopCondition) return forgetFix();
  const auto program = m_session->program();
  const torchir::Diagnosis& diagnosis = m_session->diagnosis();
  m_suggestedFix =
      program ? torchir::suggestedCasts(program->program, diagnosis) : std::vector<torchir::ArgumentPatch>{};
  m_fixNode = m_session->marks().current;
  QStringList casts;
  for (const auto& p : m_suggestedFix)
    casts << QStringLiteral("%1 %2").arg(QString::fromStdString(p.argument),
                                         QString::fromStdString(torchir::describePatch(p)));
  m_diagnosis->setFix(casts.isEmpty() ? QString()
                                      : tr("Fix: %1, and continue (Ctrl+.)").arg(casts.join(QStringLiteral(", "))));
  m_applyFix->setEnabled(!m_suggestedFix.empty());
}

void EditAndContinue::forgetFix() {
  if (m_suggestedFix.empty()) return;
  m_suggestedFix.clear();
  m_fixNode = torchir::kNone;
  m_applyFix->setEnabled(false);
  m_diagnosis->setFix({});
}

void EditAndContinue::editCall() {
  if (!m_session->canEditCall()) {
    m_status->showMessage(tr("Edit Call: pause at a node, or fail at one, first"), 4000);
    return;
  }
  auto* dialog = new EditCallDialog(m_session, m_session->marks().current, m_window);
  dialog->setAttribute(Qt::WA_DeleteOnClose);
  connect(dialog, &QDialog::accepted, this, [this] {
    forgetFix();
    m_diagnosis->clear();  // the failure it explained is about to be run past
  });
  connect(dialog, &EditCallDialog::trialShown, this, &EditAndContinue::showTrial);
  dialog->open();
}

void EditAndContinue::applySuggestedFix() {
  const torchir::NodeId node = m_session->marks().current;
  if (m_suggestedFix.empty() || !m_session->canEditCall() || node != m_fixNode) return;
  const auto fix = m_suggestedFix;
  forgetFix();
  m_diagnosis->clear();  // the failure it explained is about to be run past
  applyChanges(node, fix, true);
}

void EditAndContinue::applyChanges(torchir::NodeId node, const std::vector<torchir::ArgumentPatch>& changes,
                                   bool andContinue) {
  const auto& all = m_session->patches();
  const auto had = all.find(node);
  changeCall(
      *m_session, node, torchir::withChanges(had == all.end() ? std::vector<torchir::ArgumentPatch>{} : had->second, changes), andContinue);
}

void EditAndContinue::showTrial(torchir::NodeId node, const torchir::PatchTrial& trial) {
  // the changed call's output beside the call's own, as a comparison shows two runs
  const auto program = m_session->program();
  if (trial.after.empty() || !trial.after.front() || !program) return;
  const QString title = tr("%1 (changed call)").arg(QString::fromStdString(program->program.node(node).name));
  const torchir::TensorData& after = *trial.after.front();
  if (trial.before.empty() || !trial.before.front()) return m_tensors->show(title, after);
  try {
    m_tensors->showCompared(title, after, *trial.before.front(), torchir::differenceOf(after, *trial.before.front()));
  } catch (const std::exception&) {  // shapes or dtypes that cannot be subtracted
    m_tensors->show(title, after);
  }
}

}  // namespace torchir::ui
