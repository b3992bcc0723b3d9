#pragma once
// A layout drawn as a QGraphicsScene: one item per box, edge and frame, plus the execution marks
// on op boxes. Keeps a NodeId -> item index so marks and selection update in O(1) per node.
#include <QElapsedTimer>
#include <QGraphicsScene>
#include <QGraphicsView>
#include <functional>
#include <memory>
#include <QColor>
#include <map>
#include <optional>
#include <vector>

#include "graph/GraphItems.h"
#include "layout/LayoutTypes.h"
#include "program/Program.h"
#include "session/ExecutionMarks.h"

namespace torchir::ui {

class GraphScene : public QGraphicsScene {
  Q_OBJECT

 public:
  explicit GraphScene(QObject* parent = nullptr);

  /// Replaces every item with the layout's; the marks and selection set before carry over. The
  /// items are built in slices of a few milliseconds of GUI time, so a 24k-box scene never freezes
  /// the window (a small layout is complete before this returns); `done` runs once every item is
  /// in. A later show, clear or deleteGradually abandons the build.
  void showLayoutGradually(std::shared_ptr<const layout::Layout> layout, std::function<void()> done);
  void clearLayout();
  /// An empty scene for the next layout, taking this one's marks, tints, module status and
  /// selection: the next layout is built there while this one's items go (deleteGradually).
  GraphScene* successor(QObject* parent);
  /// Deletes this scene's items in slices of GUI time, then the scene: deleting the 270k items of
  /// a 100k-node program at once froze the window for a third of a second. For a scene no view
  /// shows any more; abandons a build under way.
  void deleteGradually();
  int boxItemCount() const { return static_cast<int>(m_boxes.size()); }

  /// Recolours the op boxes whose status, breakpoint or both changed since the last marks.
  void setMarks(const ExecutionMarks& marks);
  /// Marks collapsed module boxes (by ViewGraph level) that hide the current or failed node.
  void setModuleStatus(std::map<int, NodeStatus> byLevel);
  /// A comparison's colours: of op boxes by NodeId (0: none; 4 bytes a node, not a QColor's 16,
  /// for 170k nodes at the end of each comparison), of collapsed module boxes by level. Kept for
  /// the boxes of later layouts. `inSlice`: by NodeId, the nodes of a first NaN's backward slice.
  void setTints(std::vector<QRgb> byNode, std::map<int, QColor> byModule, std::vector<bool> inSlice = {});
  /// A comparison's badges of op boxes by NodeId (a device's latency; empty: none), kept for the
  /// boxes of later layouts.
  void setBadges(std::vector<QString> byNode);
  /// The colour the box of `node` (or of collapsed module `level`) shows; invalid when none.
  QColor shownTint(NodeId node) const;
  QColor shownModuleTint(int level) const;
  void setSelectedNode(NodeId node);
  NodeId selectedNode() const { return m_selected; }

  /// The op box drawing `node`, or null when the node is not shown as a box (folded away, getitem).
  BoxItem* boxForNode(NodeId node) const;
  /// The collapsed module box or expanded frame of a ViewGraph level, or null.
  QGraphicsItem* itemForModule(int level) const;
  /// The topmost box under a scene point, or null.
  BoxItem* boxAt(const QPointF& scenePos) const;
  /// The innermost expanded frame whose title strip is under the point, or null.
  FrameItem* frameLabelAt(const QPointF& scenePos) const;

  /// What the items show (read by tests and the panel).
  NodeStatus shownStatus(NodeId node) const;
  bool shownBreakpoint(NodeId node) const;
  bool shownSelected(NodeId node) const;
  NodeStatus shownModuleStatus(int level) const;

 private:
  void applyMarks(BoxItem* item) const;
  void beginLayout(std::shared_ptr<const layout::Layout> layout);
  /// Adds items from where the last call stopped until `deadlineNs` of m_clock; true when all are in.
  bool addItems(qint64 deadlineNs);
  void buildSlice(uint64_t build, std::shared_ptr<std::function<void()>> done);
  void deleteSlice();
  /// Adds `item` to the scene under the open group of stacking level `z`, opening a new group when
  /// it is full.
  void addGrouped(QGraphicsItem* item, double z);
  /// Files the items added since the last call in the BSP index.
  void indexNewItems();

  std::shared_ptr<const layout::Layout> m_layout;
  std::size_t m_nextFrame = 0, m_nextEdge = 0, m_nextBox = 0;  // building progress
  uint64_t m_build = 0;                                         // bumped by every show and clear
  QElapsedTimer m_clock;
  std::vector<ItemGroup*> m_groups;       // every group, in the order added
  std::map<double, std::pair<ItemGroup*, int>> m_openGroups;  // by z: the group filling, its size
  std::size_t m_deleted = 0;              // m_groups deleted so far by deleteGradually
  std::unique_ptr<QGraphicsView> m_retiredView;  // see deleteGradually
  std::vector<BoxItem*> m_boxes;          // by Layout::boxes index
  std::vector<FrameItem*> m_frames;       // by Layout::frames index
  ExecutionMarks m_marks;
  QColor tintOf(std::size_t node) const;
  std::vector<QRgb> m_tints;           // by NodeId; 0 for none
  std::vector<QString> m_badges;       // by NodeId; empty for none
  std::vector<bool> m_inSlice;         // by NodeId
  std::map<int, QColor> m_moduleTints;  // by module level
  std::map<int, NodeStatus> m_moduleStatus;
  NodeId m_selected = kNone;
};

}  // namespace torchir::ui
