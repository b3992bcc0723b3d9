#pragma once
// The graph view's public face: shows a program's layout, lays it out again on the layout thread
// whenever the fold changes (the old drawing stays up and usable meanwhile), and carries the
// execution marks and the selected node.
#include <QElapsedTimer>
#include <QWidget>
#include <memory>

#include "layout/FoldState.h"
#include "layout/LayoutTypes.h"
#include "layout/ViewGraph.h"
#include "graph/ComparisonLegend.h"
#include "session/ComparisonResult.h"
#include "session/ExecutionMarks.h"
#include "session/LoadedProgram.h"

class QLabel;

namespace torchir::layout {
class LayoutWorker;
class ViewGraph;
}  // namespace torchir::layout

namespace torchir::ui {

class GraphScene;
class GraphView;
struct ProgramGraph;

class GraphPanel : public QWidget {
  Q_OBJECT

 public:
  explicit GraphPanel(QWidget* parent = nullptr);
  ~GraphPanel() override;

  /// Shows `program` under FoldState::initial; its ViewGraph and layout are built off the GUI thread.
  void setProgram(torchir::ui::LoadedProgramPtr program);
  /// Drops the program, its layout, marks and selection (as setProgram does first).
  void clear();
  void setMarks(const ExecutionMarks& marks);
  /// Colours each compared node by the legend's metric (null: none, the legend hidden); a
  /// collapsed module takes its worst child's colour.
  void setComparison(ComparisonPtr comparison);
  ComparisonLegend* legend() const { return m_legend; }
  /// Marks the node selected; expands its collapsed ancestors (re-layout) and centres it.
  void selectNode(torchir::NodeId node);
  torchir::NodeId selectedNode() const { return m_selected; }
  /// level: a ViewGraph level index (a program module, or a sibling group).
  void setModuleExpanded(int level, bool expanded);
  void expandAll();
  /// View › Show Q/DQ Nodes: quantize/dequantize nodes as boxes, or (the default) folded into the
  /// edges and boxes they sit on.
  void setShowQuantizationNodes(bool show);
  void collapseAll();
  void fitToWindow();
  void zoomIn();
  void zoomOut();
  bool exportSvg(const QString& path, QString* error);
  bool exportPng(const QString& path, QString* error);
  bool isLayingOut() const { return m_layingOut; }
  GraphView* view() const { return m_view; }
  /// The scene shown now: each layout is built in a new one, so hold no pointer across layouts.
  GraphScene* scene() const { return m_scene; }
  /// The GUI's ViewGraph of the current program (null until built) and the fold shown or pending.
  const layout::ViewGraph* viewGraph() const;
  const layout::FoldState& foldState() const { return m_fold; }

 Q_SIGNALS:
  void nodeSelected(torchir::NodeId node);  // the user clicked an op box (not emitted by selectNode())
  /// A right-click on an op box, which is selected first (nodeSelected): the window offers its menu.
  void nodeContextMenuRequested(torchir::NodeId node, const QPoint& globalPos);
  void layoutStarted();
  void layoutFinished(int boxes, double seconds);  // the scene now shows the new layout

 protected:
  void resizeEvent(QResizeEvent* event) override;

 private:
  /// What to do with the view once a requested layout is shown.
  struct After {
    enum Kind { Keep, Fit, Start, CenterNode, CenterModule } kind = Keep;
    int id = -1;
  };

  void onGraphBuilt(uint64_t generation, std::shared_ptr<const ProgramGraph> graph);
  void requestLayout(After after);
  void onLayout(uint64_t generation, const std::shared_ptr<layout::Layout>& layout);
  /// Shows `next` instead of the current scene, which deletes itself gradually.
  void replaceScene(GraphScene* next);
  void apply(After after);
  void centerOnItemTop(const QRectF& rect);
  void setBusy(bool busy);
  void onClicked(const QPointF& scenePos);
  void onDoubleClicked(const QPointF& scenePos);
  /// Collapsed module boxes that hide the current or failed node take its colour.
  void markHiddenNodes();
  /// The comparison's colours, hidden nodes' on their collapsed modules (the worst one's).
  void tintNodes();
  void placeLegend();
  /// The collapsed module box that draws `node` under the shown fold, or -1 when it is visible.
  int collapsedContainer(NodeId node) const;
  /// The node whose box stands for `node`: getitems are drawn as their producer.
  NodeId boxNode(NodeId node) const;
  /// The box a comparison of `node` is shown on: its own, else (a quantize or dequantize folded
  /// into an edge) that of the op whose output it takes, a few producers up; -1 for none.
  NodeId comparedBox(NodeId node) const;

  GraphView* m_view = nullptr;
  GraphScene* m_scene = nullptr;
  QLabel* m_busyLabel = nullptr;
  std::unique_ptr<layout::LayoutWorker> m_worker;
  std::shared_ptr<const ProgramGraph> m_graph;
  layout::FoldState m_fold;       // the latest requested
  layout::ViewOptions m_options;  // for the next graph built
  layout::FoldState m_shownFold;  // the one the scene shows
  ExecutionMarks m_marks;
  uint64_t m_generation = 0;  // the latest request; older results are dropped
  After m_after;
  bool m_layingOut = false;
  QElapsedTimer m_clock;
  NodeId m_selected = kNone;
  ComparisonPtr m_comparison;
  ComparisonLegend* m_legend = nullptr;
};

}  // namespace torchir::ui
