#include "windows/BodyBar.h"

#include <QAction>
#include <QLabel>
#include <QSignalBlocker>
#include <QSpinBox>
#include <QTimer>

#include "session/SessionController.h"

namespace torchir::ui {

BodyBar::BodyBar(SessionController* session, QWidget* parent) : QToolBar(tr("Body"), parent), m_session(session) {
  setObjectName(QStringLiteral("bodyToolBar"));
  setToolButtonStyle(Qt::ToolButtonTextOnly);
  m_origin = new QLabel(this);
  m_origin->setObjectName(QStringLiteral("bodyOrigin"));
  addWidget(m_origin);
  addSeparator();
  addWidget(new QLabel(tr(" Iteration "), this));
  m_iteration = new QSpinBox(this);
  m_iteration->setObjectName(QStringLiteral("bodyIteration"));
  m_iteration->setToolTip(tr("Which call of the body the run is of, counted from 0"));
  addWidget(m_iteration);
  m_count = new QLabel(this);
  addWidget(m_count);
  m_previous = addAction(tr("◀ Previous"), this, [this] { showCall(m_session->call() - 1); });
  m_previous->setObjectName(QStringLiteral("actionPreviousIteration"));
  m_next = addAction(tr("Next ▶"), this, [this] { showCall(m_session->call() + 1); });
  m_next->setObjectName(QStringLiteral("actionNextIteration"));
  m_through = addAction(tr("Continue Through Iterations"), this, &BodyBar::continueThroughCalls);
  m_through->setObjectName(QStringLiteral("actionContinueThroughIterations"));
  m_through->setStatusTip(tr("Run on through this and the later iterations until a breakpoint or a failure"));
  connect(m_iteration, &QSpinBox::valueChanged, this, [this](int value) {
    if (value >= 0 && static_cast<std::size_t>(value) != m_session->call()) showCall(static_cast<std::size_t>(value));
  });
  connect(m_session, &SessionController::stopped, this, &BodyBar::onStopped);
  connect(m_session, &SessionController::stateChanged, this, &BodyBar::onStateChanged);
  hide();
}

std::size_t BodyBar::firstCall(const BodyOrigin& body) {
  const bool lastFailed = !body.failure.isEmpty() && !body.calls.empty() && body.calls.back().results.empty();
  return lastFailed ? body.calls.size() - 1 : 0;
}

void BodyBar::setProgram(const LoadedProgramPtr& program) {
  m_program = program && program->body ? program : nullptr;
  m_runningThrough = m_continueWhenReady = false;
  setVisible(m_program != nullptr);
  if (!m_program) return;
  const BodyOrigin& body = *m_program->body;
  QString origin = tr("Body <b>%1</b> of <b>%2</b>").arg(body.graph.toHtmlEscaped(), body.node.toHtmlEscaped());
  if (!body.failure.isEmpty())
    origin += body.calls.empty() || !body.calls.back().results.empty()
                  ? tr(" · <span style='color:#b00020'>the node failed</span>")
                  : tr(" · <span style='color:#b00020'>failed in iteration %1</span>").arg(body.calls.back().iteration);
  m_origin->setText(origin);
  m_origin->setToolTip(body.failure);
  const QSignalBlocker quiet(m_iteration);
  m_iteration->setRange(0, body.calls.empty() ? 0 : static_cast<int>(body.calls.size()) - 1);
  m_iteration->setValue(static_cast<int>(firstCall(body)));
  m_count->setText(body.notKept ? tr(" of %1 (%2 more ran, not kept: memory) ").arg(body.calls.size()).arg(body.notKept)
                                : tr(" of %1 ").arg(body.calls.size()));
  updateControls();
}

void BodyBar::showCall(std::size_t call) {
  if (!m_program || call >= m_program->body->calls.size()) return;
  const std::set<torchir::NodeId> breakpoints = m_session->marks().breakpoints;  // a copy: the new run's marks replace them
  m_session->setProgram(m_program, breakpoints, call);
  const QSignalBlocker quiet(m_iteration);
  m_iteration->setValue(static_cast<int>(call));
  updateControls();
}

void BodyBar::continueThroughCalls() {
  if (!m_program) return;
  m_runningThrough = true;
  if (m_session->canContinue()) return m_session->continueRun();
  // this call's run is over (or cannot go on): the next one's
  if (m_session->call() + 1 < m_program->body->calls.size()) {
    m_continueWhenReady = true;
    return showCall(m_session->call() + 1);
  }
  m_runningThrough = false;
}

void BodyBar::onStopped(torchir::StopReason reason) {
  if (!m_runningThrough) return;
  const bool more = m_program && m_session->call() + 1 < m_program->body->calls.size();
  if (reason == torchir::StopReason::Finished && more) {
    m_continueWhenReady = true;
    // after every view has taken this stop: the next call's run replaces it
    QTimer::singleShot(0, this, [this] { showCall(m_session->call() + 1); });
    return;
  }
  m_runningThrough = false;  // a breakpoint, a failure, a stop condition, Stop, or the last call's end
}

void BodyBar::onStateChanged(RunState state) {
  if (state == RunState::StartFailed) m_runningThrough = m_continueWhenReady = false;
  if (state == RunState::Ready && m_continueWhenReady) {
    m_continueWhenReady = false;
    // a run does not stop at the breakpoint it starts at: one on the body's first node is hit here
    if (m_session->marks().breakpoints.count(m_session->marks().current)) m_runningThrough = false;
    else QTimer::singleShot(0, this, [this] { if (m_session->canContinue()) m_session->continueRun(); });
  }
  updateControls();
}

void BodyBar::updateControls() {
  if (!m_program) return;
  const std::size_t call = m_session->call();
  const std::size_t calls = m_program->body->calls.size();
  const bool idle = m_session->resting() || m_session->state() == RunState::StartFailed;
  m_previous->setEnabled(idle && call > 0);
  m_next->setEnabled(idle && call + 1 < calls);
  m_iteration->setEnabled(idle);
  m_through->setEnabled(idle);
}

}  // namespace torchir::ui
