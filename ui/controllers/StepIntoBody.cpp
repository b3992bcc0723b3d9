#include "controllers/StepIntoBody.h"

#include <QAction>
#include <QMainWindow>
#include <QStatusBar>
#include <exception>
#include <stdexcept>

#include "session/BodyPrograms.h"
#include "session/OneLine.h"
#include "session/Selection.h"
#include "session/SessionController.h"
#include "session/StudioContext.h"

namespace torchir::ui {
namespace {

/// On the engine thread: the node's calls, as a body program the window opens, or why not.
void traceAndOpen(EngineJob& job, torchir::RunObserver* observer, torchir::NodeId node, StepIntoBody* into,
                  QStatusBar* status) {
  try {
    torchir::Debugger& debugger = job.debugger();
    torchir::BodyCalls calls = debugger.bodyCalls(node, observer);
    if (job.stopped()) throw std::runtime_error("stopped");
    LoadedProgramPtr body = bodyProgram(debugger.target(), node, std::move(calls));
    job.reply(into, [into, body] { Q_EMIT into->bodyReady(body); });
  } catch (const std::exception& e) {
    job.reply(into, [status, why = oneLine(QString::fromUtf8(e.what()))] {
      status->showMessage(QObject::tr("Cannot step into the body: %1").arg(why), 8000);
    });
  }
}

}  // namespace

StepIntoBody::StepIntoBody(const StudioContext& studio)
    : QObject(&studio.window), m_session(&studio.session), m_selection(&studio.selection), m_status(&studio.status) {
  m_action = new QAction(tr("Step &Into Body"), &studio.window);
  m_action->setObjectName(QStringLiteral("actionStepIntoBody"));
  m_action->setShortcut(QKeySequence(Qt::Key_F11));
  m_action->setStatusTip(tr("Open the selected higher-order node's body (map, scan, while_loop, cond…) in a window that "
                            "steps through each of its iterations"));
  connect(m_action, &QAction::triggered, this, &StepIntoBody::stepInto);
  connect(m_selection, &Selection::changed, this, &StepIntoBody::updateAction);
  connect(m_session, &SessionController::stateChanged, this, &StepIntoBody::updateAction);
  studio.window.addAction(m_action);
  updateAction();
}

void StepIntoBody::updateAction() {
  const auto program = m_session->program();
  const torchir::NodeId node = m_selection->node();
  const bool hasBody = program && node >= 0 && static_cast<std::size_t>(node) < program->program.nodes.size() &&
                       !torchir::subgraphsOf(program->program, program->program.node(node)).empty();
  m_action->setEnabled(hasBody && m_session->resting());
}

void StepIntoBody::stepInto() {
  const auto program = m_session->program();
  const torchir::NodeId node = m_selection->node();
  if (!program || node < 0 || static_cast<std::size_t>(node) >= program->program.nodes.size() ||
      torchir::subgraphsOf(program->program, program->program.node(node)).empty()) {
    m_status->showMessage(tr("Select a higher-order node (map, scan, while_loop, cond…) to step into its body"), 6000);
    return;
  }
  // It ran, or runs next (also where it failed): its calls are made again where the run stands,
  // which keeps its stop. Else the run goes up to it first. Either is a command: Stop cuts it short.
  const bool reached = m_session->record(node) || m_session->marks().current == node;
  if (!reached && !m_session->canRunTo(node)) {
    m_status->showMessage(tr("Reset the run to step into a node it has passed"), 6000);
    return;
  }
  QStatusBar* status = m_status;
  const torchir::StopConditions stops = m_session->stopConditions();
  m_session->runCommand(
      [this, node, status, stops, reached](EngineJob& job, torchir::RunObserver* observer) {
        std::optional<torchir::DebugOutcome> outcome;
        if (!reached) outcome = job.debugger().execute(torchir::DebugCommand::RunUpTo, node, stops, observer);
        if (job.debugger().session().record(node) || job.debugger().session().position() == node)
          traceAndOpen(job, observer, node, this, status);
        return outcome;
      },
      /*progress=*/!reached, /*clearsStop=*/!reached);
}

}  // namespace torchir::ui
