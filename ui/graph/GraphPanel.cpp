#include "GraphPanel.h"

#include <QFileInfo>
#include <QImage>
#include <QLabel>
#include <QPainter>
#include <QSvgGenerator>
#include <QVBoxLayout>
#include <QtConcurrent/QtConcurrentRun>
#include <algorithm>
#include <utility>

#include "compare/TensorMetrics.h"
#include "graph/GraphScene.h"
#include "session/BackgroundRelease.h"
#include "graph/GraphStyle.h"
#include "graph/GraphView.h"
#include "graph/ProgramGraph.h"
#include "layout/LayoutWorker.h"
#include "layout/ViewGraph.h"

namespace torchir::ui {

namespace {
constexpr double kPngMaxSide = 8000;
constexpr double kPngMaxScale = 2;  // small graphs: twice the on-screen resolution
}  // namespace

GraphPanel::GraphPanel(QWidget* parent) : QWidget(parent) {
  m_scene = new GraphScene(this);
  m_view = new GraphView(this);
  m_view->setScene(m_scene);
  auto* box = new QVBoxLayout(this);
  box->setContentsMargins(0, 0, 0, 0);
  box->addWidget(m_view);

  m_busyLabel = new QLabel(tr("Laying out\u2026"), this);
  m_busyLabel->setObjectName(QStringLiteral("layingOutLabel"));
  // A palette, not a style sheet: polishing a style sheet on first show costs milliseconds that
  // setProgram would spend on the GUI thread.
  m_busyLabel->setAutoFillBackground(true);
  QPalette pal = m_busyLabel->palette();
  pal.setColor(QPalette::Window, QColor(0xff, 0xf8, 0xc4));
  pal.setColor(QPalette::WindowText, QColor(0x55, 0x4a, 0x00));
  m_busyLabel->setPalette(pal);
  m_busyLabel->setFrameShape(QFrame::Box);
  m_busyLabel->setMargin(4);
  m_busyLabel->setAttribute(Qt::WA_TransparentForMouseEvents);
  m_busyLabel->hide();
  m_legend = new ComparisonLegend(this);
  m_legend->hide();
  connect(m_legend, &ComparisonLegend::metricChanged, this, [this] { tintNodes(); });

  connect(m_view, &GraphView::clicked, this, &GraphPanel::onClicked);
  connect(m_view, &GraphView::doubleClicked, this, &GraphPanel::onDoubleClicked);
  connect(m_view, &GraphView::contextMenuRequested, this, [this](const QPointF& scenePos, const QPoint& globalPos) {
    onClicked(scenePos);
    BoxItem* box = m_scene->boxAt(scenePos);
    if (box && box->kind() == layout::BoxKind::Op) Q_EMIT nodeContextMenuRequested(box->node(), globalPos);
  });

  // Results arrive on the layout thread; only the newest generation is shown (onLayout checks).
  m_worker = std::make_unique<layout::LayoutWorker>(graphstyle::textMeasure(), [this](uint64_t generation, layout::Layout l) {
    auto shared = std::make_shared<layout::Layout>(std::move(l));
    QMetaObject::invokeMethod(this, [this, generation, shared] { onLayout(generation, shared); }, Qt::QueuedConnection);
  });
}

// The worker is joined first (members die before QObject's destructor), so no callback can post to
// a destroyed panel; posted but undelivered calls die with the QObject.
GraphPanel::~GraphPanel() = default;

const layout::ViewGraph* GraphPanel::viewGraph() const { return m_graph ? m_graph->graph.get() : nullptr; }

void GraphPanel::setProgram(LoadedProgramPtr program) {
  clear();
  if (!program) return;
  const uint64_t generation = ++m_generation;
  setBusy(true);
  m_clock.start();
  Q_EMIT layoutStarted();
  QtConcurrent::run(backgroundPool(), [program, options = m_options] {
    torchir::lowerThisThreadPriority();
    return ProgramGraph::build(program, options);
  })
      .then(this, [this, generation](std::shared_ptr<const ProgramGraph> g) { onGraphBuilt(generation, std::move(g)); });
}

void GraphPanel::setShowQuantizationNodes(bool show) {
  if (m_options.foldQuantization == !show) return;
  m_options.foldQuantization = !show;
  if (!m_graph) return;
  // The same modules either way: the fold state and the selection carry over to the new graph.
  const uint64_t generation = ++m_generation;
  setBusy(true);
  QtConcurrent::run(backgroundPool(), [program = m_graph->program, options = m_options] {
    torchir::lowerThisThreadPriority();
    return ProgramGraph::build(program, options);
  })
      .then(this, [this, generation](std::shared_ptr<const ProgramGraph> g) {
        if (generation != m_generation) return releaseInBackground(std::move(g));
        releaseInBackground(std::exchange(m_graph, std::move(g)));
        requestLayout(m_after);
      });
}

void GraphPanel::onGraphBuilt(uint64_t generation, std::shared_ptr<const ProgramGraph> graph) {
  if (generation != m_generation) return releaseInBackground(std::move(graph));  // another program since
  releaseInBackground(std::exchange(m_graph, std::move(graph)));
  m_fold = m_graph->initialFold;
  // A node selected while the graph was being built still gets its ancestors expanded.
  const NodeId pending = m_selected;
  if (pending != kNone) {
    selectNode(pending);
    if (m_generation != generation) return;  // selectNode asked for the layout itself
  }
  requestLayout(m_after.kind == After::CenterNode ? m_after : After{After::Start, -1});
}

void GraphPanel::clear() {
  ++m_generation;
  releaseInBackground(std::exchange(m_graph, nullptr));
  m_fold = {};
  m_shownFold = {};
  m_after = {};
  m_selected = kNone;
  m_marks = {};  // node ids of the program that goes
  releaseInBackground(std::exchange(m_comparison, nullptr));
  m_legend->hide();
  replaceScene(new GraphScene(this));  // with no marks, tints or selection
  setBusy(false);
}

void GraphPanel::requestLayout(After after) {
  if (!m_graph) return;
  const uint64_t generation = ++m_generation;
  m_after = after;
  if (!m_layingOut) {
    m_clock.start();
    setBusy(true);
    Q_EMIT layoutStarted();
  }
  // The panel's own graph, which keeps the program alive: the layout thread builds none of its own.
  m_worker->request(std::shared_ptr<const layout::ViewGraph>(m_graph, m_graph->graph.get()), m_fold, generation);
}

void GraphPanel::onLayout(uint64_t generation, const std::shared_ptr<layout::Layout>& l) {
  if (generation != m_generation) return;
  // Gradually: 24k items take a few hundred ms to make, more than the window may freeze. A small
  // layout is in after the first slice, before this returns.
  // In a new scene: the old one's items are deleted in slices once it is off the view.
  const bool keep = m_after.kind == After::Keep;
  const QPointF center = m_view->mapToScene(m_view->viewport()->rect().center());
  replaceScene(m_scene->successor(this));
  m_scene->showLayoutGradually(l, [this, generation] {
    if (generation != m_generation) return;  // a newer layout is coming
    m_shownFold = m_fold;  // the latest request is the one shown: older ones were dropped above
    markHiddenNodes();
    tintNodes();
    setBusy(false);
    apply(m_after);
    m_after = {};
    Q_EMIT layoutFinished(m_scene->boxItemCount(), m_clock.elapsed() / 1000.0);
  });
  if (keep) m_view->centerOn(center);  // where the old scene was looked at
}

void GraphPanel::replaceScene(GraphScene* next) {
  GraphScene* old = std::exchange(m_scene, next);
  m_view->setScene(next);
  old->deleteGradually();
}

void GraphPanel::apply(After after) {
  switch (after.kind) {
    case After::Keep: break;
    case After::Fit: m_view->fitToWindow(); break;
    case After::Start: m_view->showStart(); break;
    case After::CenterNode:
      if (BoxItem* item = m_scene->boxForNode(boxNode(after.id))) m_view->centerOn(item);
      break;
    case After::CenterModule:
      if (QGraphicsItem* item = m_scene->itemForModule(after.id)) centerOnItemTop(item->sceneBoundingRect());
      break;
  }
}

void GraphPanel::centerOnItemTop(const QRectF& rect) {
  // A frame taller than the window is shown from its title down rather than from its middle.
  const QRectF visible = m_view->mapToScene(m_view->viewport()->rect()).boundingRect();
  QPointF c = rect.center();
  if (rect.height() > visible.height()) c.setY(rect.top() + visible.height() / 2 - 10);
  if (rect.width() > visible.width()) c.setX(rect.left() + visible.width() / 2 - 10);
  m_view->centerOn(c);
}

void GraphPanel::setBusy(bool busy) {
  m_layingOut = busy;
  m_busyLabel->setVisible(busy);
  if (busy) {
    m_busyLabel->adjustSize();
    m_busyLabel->move(width() - m_busyLabel->width() - 12, 8);
    m_busyLabel->raise();
  }
}

void GraphPanel::resizeEvent(QResizeEvent* event) {
  QWidget::resizeEvent(event);
  if (m_busyLabel->isVisible()) m_busyLabel->move(width() - m_busyLabel->width() - 12, 8);
  placeLegend();
}

void GraphPanel::placeLegend() {
  m_legend->adjustSize();
  m_legend->move(8, height() - m_legend->height() - 8);
}

void GraphPanel::setComparison(ComparisonPtr comparison) {
  releaseInBackground(std::exchange(m_comparison, std::move(comparison)));
  m_legend->setVisible(m_comparison != nullptr);
  if (m_comparison) {
    m_legend->setReference(QString::fromStdString(m_comparison->reference));
    placeLegend();
    m_legend->raise();
  }
  tintNodes();
}

void GraphPanel::tintNodes() {
  std::vector<QRgb> byNode;
  std::map<int, QColor> byModule;
  std::vector<bool> inSlice;
  if (m_comparison && m_graph) {
    const auto& program = m_graph->program->program;
    byNode.resize(program.nodes.size());
    inSlice.resize(program.nodes.size(), false);
    for (NodeId n : m_comparison->nonfiniteSlice)
      if (const NodeId box = boxNode(n); box >= 0 && static_cast<std::size_t>(box) < inSlice.size())
        inSlice[static_cast<std::size_t>(box)] = true;
    // By module level: the outermost collapsed level at or above it (-1: none; kUnknown until
    // asked), and the worst severity inside a collapsed one. Found once per level: walking every
    // compared node's chain of modules made the end of a 100k-node comparison a 20 ms stall.
    constexpr int kUnknown = -2;
    const layout::ViewGraph& g = *m_graph->graph;
    std::vector<int> outermost(g.moduleCount(), kUnknown), worst(g.moduleCount(), -1);
    std::vector<int> path;
    auto collapsedAbove = [&](int level) {
      path.clear();
      int found = -1;
      for (int l = level; l > 0; l = g.parent(l)) {
        if (outermost[static_cast<std::size_t>(l)] != kUnknown) {
          found = outermost[static_cast<std::size_t>(l)];
          break;
        }
        path.push_back(l);
      }
      for (auto l = path.rbegin(); l != path.rend(); ++l) {  // downwards: the first collapsed is the outermost
        if (found <= 0 && !m_shownFold.expanded(*l)) found = *l;
        outermost[static_cast<std::size_t>(*l)] = found;
      }
      return found;
    };
    QColor colors[5];
    for (int severity = 0; severity < 5; ++severity) colors[severity] = severityColor(severity);
    QRgb rgbs[5];
    for (int severity = 0; severity < 5; ++severity) rgbs[severity] = colors[severity].rgba();
    const ComparisonMetric metric = m_legend->metric();  // a combo box's data: 100k look-ups were 3 ms
    for (const auto& c : m_comparison->nodes) {
      const int severity = comparisonSeverity(c, metric, m_comparison.get());
      if (severity < 0 || severity > 4 || static_cast<std::size_t>(c.a) >= byNode.size()) continue;
      // a device's values are often a quantize's (an int8 op's output): shown on the op's box
      const NodeId box = m_comparison->device ? comparedBox(c.a) : boxNode(c.a);
      if (box < 0 || static_cast<std::size_t>(box) >= byNode.size()) continue;
      byNode[static_cast<std::size_t>(box)] = rgbs[severity];
      if (!g.isOpBox(box)) continue;
      if (const int level = collapsedAbove(g.drawnIn(box)); level > 0)
        worst[static_cast<std::size_t>(level)] = std::max(worst[static_cast<std::size_t>(level)], severity);
    }
    for (std::size_t level = 0; level < worst.size(); ++level)
      if (worst[level] >= 0) byModule.emplace(static_cast<int>(level), colors[worst[level]]);
  }
  m_scene->setTints(std::move(byNode), std::move(byModule), std::move(inSlice));
  // a device's run: each instruction's latency on the box of the node it ends
  std::vector<QString> badges;
  if (m_comparison && m_comparison->device && m_graph) {
    badges.resize(m_graph->program->program.nodes.size());
    for (const auto& c : m_comparison->nodes)
      if (c.deviceMs)
        if (const NodeId box = comparedBox(c.a); box >= 0 && static_cast<std::size_t>(box) < badges.size())
          badges[static_cast<std::size_t>(box)] = QString::fromStdString(metricText(*c.deviceMs)) + QStringLiteral(" ms");
  }
  m_scene->setBadges(std::move(badges));
}

void GraphPanel::setMarks(const ExecutionMarks& marks) {
  m_marks = marks;
  m_scene->setMarks(marks);
  markHiddenNodes();
}

int GraphPanel::collapsedContainer(NodeId node) const {
  if (!m_graph || node < 0 || static_cast<std::size_t>(node) >= m_graph->program->program.nodes.size()) return -1;
  const layout::ViewGraph& g = *m_graph->graph;
  if (!g.isOpBox(node)) return -1;
  // The outermost collapsed level on the way up is the box drawn; -1 when all are expanded.
  int box = -1;
  for (int level = g.drawnIn(node); level > 0; level = g.parent(level))
    if (!m_shownFold.expanded(level)) box = level;
  return box;
}

void GraphPanel::markHiddenNodes() {
  std::map<int, NodeStatus> byLevel;
  // Failed first: it wins when both hide in the same module.
  for (NodeId n : {m_marks.failed, m_marks.current})
    if (const int level = collapsedContainer(n); level > 0) byLevel.emplace(level, m_marks.status(n));
  m_scene->setModuleStatus(std::move(byLevel));
}

NodeId GraphPanel::comparedBox(NodeId node) const {
  if (!m_graph) return -1;
  const Program& p = m_graph->program->program;
  const layout::ViewGraph& g = *m_graph->graph;
  for (int up = 0; up < 4 && node >= 0 && static_cast<std::size_t>(node) < p.nodes.size(); ++up) {
    const NodeId box = boxNode(node);
    if (box >= 0 && static_cast<std::size_t>(box) < p.nodes.size() && g.isOpBox(box)) return box;
    const Node& n = p.node(node);
    if (n.inputs.empty() || n.inputs.front().values.empty()) return -1;
    node = p.value(n.inputs.front().values.front()).producer;
  }
  return -1;
}

NodeId GraphPanel::boxNode(NodeId node) const {
  if (!m_graph || node < 0 || static_cast<std::size_t>(node) >= m_graph->program->program.nodes.size()) return node;
  return m_graph->graph->drawnAs(node);
}

void GraphPanel::selectNode(NodeId node) {
  m_selected = node;
  const NodeId shown = boxNode(node);
  m_scene->setSelectedNode(shown);
  if (!m_graph) return;  // onGraphBuilt comes back here
  const layout::ViewGraph& g = *m_graph->graph;
  if (shown < 0 || static_cast<std::size_t>(shown) >= m_graph->program->program.nodes.size() || !g.isOpBox(shown)) return;
  bool changed = false;
  for (int level = g.drawnIn(shown); level > 0; level = g.parent(level))
    if (!m_fold.expanded(level)) {
      m_fold.setExpanded(level, true);
      changed = true;
    }
  if (changed) {
    requestLayout({After::CenterNode, node});
  } else if (m_layingOut) {
    m_after = {After::CenterNode, node};  // centre once the layout under way arrives
  } else if (BoxItem* item = m_scene->boxForNode(shown)) {
    // A node already in view stays where it is: stepping down a chain would otherwise scroll (and
    // repaint the whole view) at every step.
    const QRectF visible = m_view->mapToScene(m_view->viewport()->rect()).boundingRect();
    if (!visible.contains(item->sceneBoundingRect())) m_view->centerOn(item);
  }
}

void GraphPanel::setModuleExpanded(int level, bool expanded) {
  if (!m_graph || level <= 0 || static_cast<std::size_t>(level) >= m_graph->graph->moduleCount()) return;
  if (m_fold.expanded(level) == expanded) return;
  m_fold.setExpanded(level, expanded);
  requestLayout({After::CenterModule, level});
}

void GraphPanel::expandAll() {
  if (!m_graph) return;
  for (std::size_t m = 1; m < m_graph->graph->moduleCount(); ++m) m_fold.setExpanded(static_cast<int>(m), true);
  requestLayout({After::Keep, -1});
}

void GraphPanel::collapseAll() {
  if (!m_graph) return;
  for (std::size_t m = 1; m < m_graph->graph->moduleCount(); ++m) m_fold.setExpanded(static_cast<int>(m), false);
  requestLayout({After::Fit, -1});
}

void GraphPanel::fitToWindow() { m_view->fitToWindow(); }
void GraphPanel::zoomIn() { m_view->zoomIn(); }
void GraphPanel::zoomOut() { m_view->zoomOut(); }

void GraphPanel::onClicked(const QPointF& scenePos) {
  BoxItem* box = m_scene->boxAt(scenePos);
  if (!box || box->kind() != layout::BoxKind::Op) return;
  m_selected = box->node();
  m_scene->setSelectedNode(box->node());
  Q_EMIT nodeSelected(box->node());
}

void GraphPanel::onDoubleClicked(const QPointF& scenePos) {
  if (BoxItem* box = m_scene->boxAt(scenePos)) {
    if (box->kind() == layout::BoxKind::Module) setModuleExpanded(box->module(), true);
    return;
  }
  if (FrameItem* frame = m_scene->frameLabelAt(scenePos)) setModuleExpanded(frame->module(), false);
}

bool GraphPanel::exportSvg(const QString& path, QString* error) {
  if (m_scene->boxItemCount() == 0) {
    if (error) *error = tr("There is no graph to export.");
    return false;
  }
  const QRectF source = m_scene->sceneRect();
  QSvgGenerator svg;
  svg.setFileName(path);
  svg.setSize(source.size().toSize());
  svg.setViewBox(QRectF(QPointF(0, 0), source.size()));
  svg.setTitle(m_graph ? QFileInfo(QString(m_graph->program->request.path)).fileName() : QString());
  QPainter painter;
  if (!painter.begin(&svg)) {
    if (error) *error = tr("Cannot write %1.").arg(path);
    return false;
  }
  m_scene->render(&painter, QRectF(QPointF(0, 0), source.size()), source);
  painter.end();
  if (!QFileInfo(path).isFile() || QFileInfo(path).size() == 0) {
    if (error) *error = tr("Cannot write %1.").arg(path);
    return false;
  }
  return true;
}

bool GraphPanel::exportPng(const QString& path, QString* error) {
  if (m_scene->boxItemCount() == 0) {
    if (error) *error = tr("There is no graph to export.");
    return false;
  }
  const QRectF source = m_scene->sceneRect();
  const double scale = std::min(kPngMaxScale, kPngMaxSide / std::max({source.width(), source.height(), 1.0}));
  const QSize size(std::max(1, qRound(source.width() * scale)), std::max(1, qRound(source.height() * scale)));
  QImage image(size, QImage::Format_ARGB32_Premultiplied);
  if (image.isNull()) {
    if (error) *error = tr("The image (%1 x %2) is too large.").arg(size.width()).arg(size.height());
    return false;
  }
  image.fill(Qt::white);
  {
    QPainter painter(&image);
    painter.setRenderHints(QPainter::Antialiasing | QPainter::TextAntialiasing);
    m_scene->render(&painter, QRectF(QPointF(0, 0), QSizeF(size)), source);
  }
  if (!image.save(path, "PNG")) {
    if (error) *error = tr("Cannot write %1.").arg(path);
    return false;
  }
  return true;
}

}  // namespace torchir::ui
