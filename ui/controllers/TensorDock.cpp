#include "controllers/TensorDock.h"

#include <QDockWidget>
#include <QMainWindow>
#include <QStatusBar>

#include "panels/ArgumentsPanel.h"
#include "panels/TensorViewer.h"
#include "program/QuantOps.h"
#include "session/OneLine.h"
#include "session/Selection.h"
#include "session/SessionController.h"
#include "session/StudioContext.h"

namespace torchir::ui {

TensorDock::TensorDock(const StudioContext& studio, ArgumentsPanel* arguments, TensorViewer* viewer, QDockWidget* dock)
    : QObject(&studio.window), m_session(&studio.session), m_selection(&studio.selection), m_viewer(viewer), m_dock(dock) {
  connect(arguments, &ArgumentsPanel::tensorRequested, this, &TensorDock::requestValue);
  connect(&studio.selection, &Selection::changed, this, &TensorDock::followSelection);
  connect(&studio.selection, &Selection::shownAgain, this, &TensorDock::followSelection);
  // a stop's report brings what the dock will show, while the dock is on screen to show it
  connect(dock, &QDockWidget::visibilityChanged, &studio.session, &SessionController::carryShownTensor);
  connect(&studio.session, &SessionController::tensorReady, this, &TensorDock::onTensorReady);
  connect(&studio.session, &SessionController::tensorUnavailable, this, [this](torchir::ValueId value, const QString& why) {
    if (value == m_requestedTensor) m_viewer->setUnavailable(why);
  });
}

void TensorDock::requestValue(torchir::ValueId value, const QString& title) {
  m_requestedCompared = torchir::kNone;
  m_requestedTensor = value;
  m_requestedTensorTitle = title;
  m_viewer->setUnavailable(tr("Reading %1…").arg(title));
  m_dock->raise();
  m_session->requestTensor(value);
}

void TensorDock::followSelection() {
  const torchir::NodeId selected = m_selection->node();
  // The session's program: the selection's ids are of the program shown, which the session has
  // once it started on it, and before that it has no records to show.
  const auto program = m_session->program();
  if (!program || selected == torchir::kNone || !m_dock->isVisible()) return;
  if (static_cast<std::size_t>(selected) >= program->program.nodes.size()) return;
  const torchir::Node& node = program->program.node(selected);
  const ComparisonPtr comparison = m_session->comparison();
  if (const auto* c = comparison ? comparison->of(selected) : nullptr; c && c->problem.empty()) {
    m_requestedTensor = torchir::kNone;
    m_requestedCompared = selected;
    m_viewer->setUnavailable(tr("Reading %1 and the reference's…").arg(QString::fromStdString(node.name)));
    // the node's output in the run and in the reference, and their difference, copied on the engine thread
    m_session->ask([this, selected](EngineJob& job) {
      const torchir::ComparedAnswer a =
          job.hasDebugger() ? job.debugger().compared(selected) : torchir::ComparedAnswer{{}, {}, {}, "the node was not compared"};
      job.reply(this, [this, selected, a] {
        if (a.run) onComparedReady(selected, *a.run, *a.reference, *a.difference);
        else if (selected == m_requestedCompared) m_viewer->setUnavailable(oneLine(QString::fromStdString(a.why)));
      });
    }, /*needsDebugger=*/false);
  } else if (m_session->record(selected) && !node.outputs.empty()) {
    m_requestedCompared = torchir::kNone;
    const torchir::Value& out = program->program.value(node.outputs.front());
    if (out.kind == torchir::ValueKind::Tensor) {
      m_requestedTensor = out.id;
      m_requestedTensorTitle = QString::fromStdString(out.name);
      m_session->requestTensor(out.id);
    }
  } else if (!m_session->record(selected) && torchir::isOpNode(node)) {
    // what the viewer shows is of another run (the last one, another iteration of a body)
    forgetRequests();
    const QString name = QString::fromStdString(node.name);
    m_viewer->setUnavailable(m_session->marks().failed == selected ? tr("%1 failed: its outputs were not made").arg(name)
                                                                   : tr("%1 has not run yet").arg(name));
  }
}

void TensorDock::show(const QString& title, const torchir::TensorData& tensor) {
  forgetRequests();
  m_viewer->setTensor(title, tensor);
  m_dock->raise();
}

void TensorDock::showCompared(const QString& title, const torchir::TensorData& run,
                              const torchir::TensorData& reference, const torchir::TensorData& difference) {
  forgetRequests();
  m_viewer->setCompared(title, run, reference, difference);
  m_dock->raise();
}

void TensorDock::clear() {
  forgetRequests();
  m_viewer->clear();
}

void TensorDock::forgetRequests() {
  m_requestedTensor = torchir::kNone;
  m_requestedCompared = torchir::kNone;
}

void TensorDock::onTensorReady(torchir::ValueId value, const torchir::TensorData& tensor) {
  if (value != m_requestedTensor) return;
  const auto program = m_session->program();
  // a quantized value's codes are shown with the real numbers they stand for
  m_viewer->setTensor(m_requestedTensorTitle, tensor,
                      program ? torchir::dequantizationOf(program->program, value) : std::nullopt);
}

void TensorDock::onComparedReady(torchir::NodeId node, const torchir::TensorData& run,
                                 const torchir::TensorData& reference, const torchir::TensorData& difference) {
  const auto program = m_session->program();
  if (node != m_requestedCompared || !program) return;
  // a quantized output's codes, on either side, with the real numbers they stand for
  const ComparisonPtr comparison = m_session->comparison();
  const torchir::NodeComparison* c = comparison ? comparison->of(node) : nullptr;
  const auto& outputs = program->program.node(node).outputs;
  const auto output = c ? static_cast<std::size_t>(c->output) : 0;
  m_viewer->setCompared(QString::fromStdString(program->program.node(node).name), run, reference, difference,
                        output < outputs.size() ? torchir::dequantizationOf(program->program, outputs[output]) : std::nullopt);
}

}  // namespace torchir::ui
