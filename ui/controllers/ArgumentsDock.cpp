#include "controllers/ArgumentsDock.h"

#include <QMainWindow>
#include <utility>

#include "panels/ArgumentsPanel.h"
#include "session/Selection.h"
#include "session/SessionController.h"
#include "session/StudioContext.h"

namespace torchir::ui {

ArgumentsDock::ArgumentsDock(const StudioContext& studio, ArgumentsPanel* panel)
    : QObject(&studio.window), m_session(&studio.session), m_panel(panel) {
  connect(&studio.selection, &Selection::changed, this, &ArgumentsDock::showNode);
  connect(&studio.selection, &Selection::shownAgain, this, &ArgumentsDock::showNode);
}

void ArgumentsDock::setProgram(LoadedProgramPtr program) {
  m_program = std::move(program);
  m_panel->clear();
}

void ArgumentsDock::showNode(torchir::NodeId node) {
  if (!m_program || node == torchir::kNone) return;
  // the session's records are of the program on screen once it started on it, none before
  const bool ours = m_session->program() == m_program;
  const torchir::Diagnosis& d = m_session->diagnosis();
  m_panel->showNode(m_program->program, node, ours ? m_session->record(node) : nullptr,
                    ours && d.node == node && !d.ok() ? &d : nullptr);
}

}  // namespace torchir::ui
