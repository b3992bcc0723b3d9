#include "controllers/QuantizationTools.h"

#include <QAction>
#include <QDockWidget>
#include <QMainWindow>
#include <QScrollArea>
#include <QStatusBar>
#include <QTimer>

#include "quant/KeepInFloat.h"
#include "compare/TensorMetrics.h"
#include "graph/GraphPanel.h"
#include "panels/SensitivityChart.h"
#include "session/OneLine.h"
#include "session/Selection.h"
#include "session/SessionController.h"
#include "session/StudioContext.h"

namespace torchir::ui {

QuantizationTools::QuantizationTools(const StudioContext& studio, GraphPanel* graph)
    : QObject(&studio.window), m_session(&studio.session), m_selection(&studio.selection), m_graph(graph), m_status(&studio.status) {
  m_keepNode = new QAction(tr("Keep in &Float"), this);
  m_keepNode->setObjectName(QStringLiteral("actionKeepInFloat"));
  m_keepNode->setStatusTip(tr("Run the selected quantized layer on its float inputs and weights, as if the quantizer had skipped it; "
                              "the comparison (or the run) is made again"));
  m_keepModule = new QAction(tr("Keep &Module in Float"), this);
  m_keepModule->setObjectName(QStringLiteral("actionKeepModuleInFloat"));
  m_keepModule->setStatusTip(tr("Keep every quantized layer of the selected node's module in float"));
  m_sensitivity = new QAction(tr("Layer &Sensitivity"), this);
  m_sensitivity->setObjectName(QStringLiteral("actionLayerSensitivity"));
  m_sensitivity->setStatusTip(tr("Keep each quantized layer in float alone and rank the layers by the output's SQNR gained"));
  connect(m_keepNode, &QAction::triggered, this, [this] { keep(false); });
  connect(m_keepModule, &QAction::triggered, this, [this] { keep(true); });
  connect(m_sensitivity, &QAction::triggered, this, &QuantizationTools::measureSensitivity);

  m_chart = new SensitivityChart;
  auto* scroll = new QScrollArea;
  scroll->setWidget(m_chart);
  scroll->setWidgetResizable(true);
  m_dock = new QDockWidget(tr("Layer Sensitivity"), &studio.window);
  m_dock->setObjectName(QStringLiteral("sensitivityDock"));  // saveState() restores docks by object name
  m_dock->setWidget(scroll);
  studio.window.addDockWidget(Qt::BottomDockWidgetArea, m_dock);
  m_dock->hide();
  connect(m_chart, &SensitivityChart::nodeActivated, this, [this](torchir::NodeId n) { m_selection->select(n); });

  connect(m_session, &SessionController::stateChanged, this, &QuantizationTools::updateEnabled);
  connect(m_session, &SessionController::comparisonChanged, this, &QuantizationTools::showComparison);
  connect(m_selection, &Selection::changed, this, &QuantizationTools::updateEnabled);
  connect(m_session, &SessionController::stopped, this, &QuantizationTools::sayPending);
  updateEnabled();
}

std::vector<torchir::NodeId> QuantizationTools::layersToKeep(bool wholeModule) const {
  const LoadedProgramPtr loaded = m_session->program();
  const torchir::NodeId selected = m_selection->node();
  if (!loaded || selected == torchir::kNone) return {};
  const torchir::Program& p = loaded->program;
  if (!wholeModule) return isQuantizedLayer(p, p.node(selected)) ? std::vector<torchir::NodeId>{selected} : std::vector<torchir::NodeId>{};
  const auto& frames = p.node(selected).moduleFrames();
  if (frames.empty()) return {};
  const std::string& module = frames.back().path;
  std::vector<torchir::NodeId> layers;
  for (torchir::NodeId n : loaded->quantizedLayers)
    for (const auto& f : p.node(n).moduleFrames())
      if (f.path == module) {
        layers.push_back(n);
        break;
      }
  return layers;
}

bool QuantizationTools::canMeasureSensitivity() const {
  const ComparisonPtr c = m_session->comparison();
  return c && c->quantized && m_session->program() && c->referenceProgram.get() != &m_session->program()->program &&
         m_session->resting();
}

void QuantizationTools::updateEnabled() {
  const bool idle = m_session->resting();
  m_keepNode->setEnabled(idle && !layersToKeep(false).empty());
  m_keepModule->setEnabled(idle && !layersToKeep(true).empty());
  m_sensitivity->setEnabled(canMeasureSensitivity());
}

void QuantizationTools::measureSensitivity() {
  if (!canMeasureSensitivity()) return;
  // no records while it runs: each layer's run is a what-if beside the run (Stop cancels between layers)
  m_session->runCommand(
      [this](EngineJob& job, torchir::RunObserver* observer) {
        torchir::DebugOutcome outcome = job.debugger().layerSensitivity(
            [&](std::size_t done, std::size_t total) {
              job.reply(this, [this, done, total] {
                m_status->showMessage(tr("Layer sensitivity: layer %1 of %2… (Stop cancels)").arg(done + 1).arg(total));
              });
              return !job.stopped();
            },
            observer);
        outcome.diagnosis.message = oneLine(QString::fromStdString(outcome.diagnosis.message)).toStdString();
        return std::optional(std::move(outcome));
      },
      /*progress=*/false);
}

void QuantizationTools::keep(bool wholeModule) {
  const auto layers = layersToKeep(wholeModule);
  if (layers.empty()) return;
  const ComparisonPtr c = m_session->comparison();
  m_sqnrBefore = c ? c->outputSqnrDb : std::nullopt;
  const torchir::Program& p = m_session->program()->program;
  const auto& frames = p.node(layers.front()).moduleFrames();
  m_kept = wholeModule && !frames.empty() ? tr("module '%1'").arg(QString::fromStdString(frames.back().path))
                                          : QStringLiteral("'%1'").arg(QString::fromStdString(p.node(layers.front()).name));
  if (!m_session->resting()) return;
  SessionController* session = m_session;
  m_session->runCommand([session, layers, stops = m_session->stopConditions()](EngineJob& job, torchir::RunObserver* observer) {
    auto told = [&](const torchir::CallChange& c) {  // a refused one leaves the others taken
      job.reply([session, c] { session->takeCallChange(c, c.problem.empty()); });
    };
    return std::optional(job.debugger().keepInFloat(layers, stops, observer, told));
  });
}

void QuantizationTools::showComparison() {
  updateEnabled();
  const ComparisonPtr c = m_session->comparison();
  const LoadedProgramPtr loaded = m_session->program();
  if (c && c->sensitivity && loaded) {
    m_chart->setResult(std::shared_ptr<const torchir::Program>(loaded, &loaded->program), c->sensitivity);
    if (!m_dock->isVisible()) {
      m_dock->show();
      // tall enough for a dozen layers; the chart scrolls past that
      if (auto* window = qobject_cast<QMainWindow*>(parent())) window->resizeDocks({m_dock}, {240}, Qt::Vertical);
    }
    m_dock->raise();
    m_graph->legend()->setMetric(ComparisonMetric::SensitivityGain);
    const auto& best = c->sensitivity->layers;
    if (!best.empty() && best.front().problem.empty())
      m_pending = (tr("Layer sensitivity: '%1' gives back the most, %2 dB of output SQNR")
                                .arg(QString::fromStdString(loaded->program.node(best.front().node).name),
                                     QString::fromStdString(torchir::metricText(best.front().gainDb))));
  } else if (!c || !c->sensitivity) {
    m_chart->setResult(nullptr, nullptr);
  }
  if (c && c->outputSqnrDb && !m_kept.isEmpty()) {
    const QString now = QString::fromStdString(torchir::metricText(*c->outputSqnrDb));
    m_pending = m_sqnrBefore ? tr("Output SQNR %1 dB with %2 kept in float (was %3 dB)")
                                   .arg(now, m_kept, QString::fromStdString(torchir::metricText(*m_sqnrBefore)))
                             : tr("Output SQNR %1 dB with %2 kept in float").arg(now, m_kept);
    m_kept.clear();
  }
  sayPending();
}

void QuantizationTools::sayPending() {
  // after the window's own word on how the comparison ended (said as the same report arrives)
  QTimer::singleShot(0, this, [this] {
    if (m_pending.isEmpty() || !m_session->resting()) return;
    m_status->showMessage(m_pending);
    m_pending.clear();
  });
}

}  // namespace torchir::ui
