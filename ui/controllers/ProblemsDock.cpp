#include "controllers/ProblemsDock.h"

#include <QDockWidget>

#include "panels/ProblemsPanel.h"
#include "session/SessionController.h"

namespace torchir::ui {

ProblemsDock::ProblemsDock(SessionController* session, ProblemsPanel* panel, QDockWidget* dock, QObject* parent)
    : QObject(parent), m_session(session), m_panel(panel), m_dock(dock) {
  connect(session, &SessionController::problemsChanged, this, &ProblemsDock::showProblems);
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
