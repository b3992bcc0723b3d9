#include "controllers/ProblemsDock.h"

#include <QDockWidget>
#include <QMainWindow>
#include <QStatusBar>

#include "panels/ProblemsPanel.h"
#include "session/SessionController.h"
#include "session/StudioContext.h"

namespace torchir::ui {

ProblemsDock::ProblemsDock(const StudioContext& studio, ProblemsPanel* panel, QDockWidget* dock)
    : QObject(&studio.window), m_session(&studio.session), m_panel(panel), m_dock(dock) {
  connect(&studio.session, &SessionController::problemsChanged, this, &ProblemsDock::showProblems);
}

void ProblemsDock::showProblems() {
  const auto& problems = m_session->problems();
  m_panel->setProblems(problems);
  m_dock->setWindowTitle(m_panel->title());
  if (torchir::stopsARun(problems)) {
    m_dock->show();
    m_dock->raise();
  }
}

}  // namespace torchir::ui
