#include "controllers/RunStatus.h"

#include <QFileInfo>
#include <QLabel>
#include <QMainWindow>
#include <QProgressBar>
#include <QStatusBar>

#include "session/AsyncProgramLoader.h"
#include "session/SessionController.h"
#include "session/StudioContext.h"

namespace torchir::ui {

RunStatus::RunStatus(const StudioContext& studio, AsyncProgramLoader* loader)
    : QObject(&studio.status), m_session(&studio.session), m_status(&studio.status) {
  m_progress = new QProgressBar(&studio.status);
  m_progress->setObjectName(QStringLiteral("progressBar"));
  m_progress->setMaximumWidth(180);
  m_progress->setTextVisible(false);
  m_progress->hide();
  m_state = new QLabel(&studio.status);
  m_state->setObjectName(QStringLiteral("runStateLabel"));
  studio.status.addPermanentWidget(m_progress);
  studio.status.addPermanentWidget(m_state);

  connect(loader, &AsyncProgramLoader::started, this, [this](const QString& path) {
    m_status->showMessage(tr("Loading %1…").arg(QFileInfo(path).fileName()));
    showBusy();
  });
  connect(loader, &AsyncProgramLoader::loaded, m_progress, &QWidget::hide);
  connect(loader, &AsyncProgramLoader::failed, m_progress, &QWidget::hide);
  connect(&studio.session, &SessionController::stateChanged, this, &RunStatus::onStateChanged);
  connect(&studio.session, &SessionController::progress, this, &RunStatus::showProgress);
  connect(&studio.session, &SessionController::stopped, m_progress, &QWidget::hide);
  connect(&studio.session, &SessionController::sessionFailed, this,
          [this](const QString& problem) { m_status->showMessage(tr("Cannot run: %1").arg(problem)); });
}

void RunStatus::showBusy() {
  m_progress->setRange(0, 0);  // busy: until the first report, there is no fraction to show
  m_progress->show();
}

void RunStatus::showProgress(int done, int total) {
  if (m_progress->maximum() == total && m_progress->value() == done) return;
  // QProgressBar::setValue may paint the window at once, inside the report that brought the value,
  // and the graph's tints for the same report paint it again a moment later. With its updates off
  // the bar only takes the value; turning them on again asks for an ordinary paint, which the
  // window's next one takes in.
  m_progress->setUpdatesEnabled(false);
  m_progress->setRange(0, total);
  m_progress->setValue(done);
  m_progress->setUpdatesEnabled(true);
}

void RunStatus::onStateChanged() {
  const RunState state = m_session->state();
  m_state->setText(runStateName(state));
  if (state == RunState::Running) showBusy();
  else if (state != RunState::Starting) m_progress->hide();  // a job that ends without a stop (a reset, a change)
  if (state == RunState::Ready) m_status->showMessage(tr("Ready: %1").arg(m_session->inputsDescription()), 5000);
}

}  // namespace torchir::ui
