#include "GraphScene.h"

#include <algorithm>
#include <cmath>
#include <iterator>
#include <utility>

#include "session/BackgroundRelease.h"
#include "session/NextTurn.h"

namespace torchir::ui {

GraphScene::GraphScene(QObject* parent)
    : QGraphicsScene(parent), m_layout(std::make_shared<const layout::Layout>()) {
  // Items never move, so the BSP index stays valid and makes hit tests and exposure cheap.
  setItemIndexMethod(QGraphicsScene::BspTreeIndex);
  setBackgroundBrush(Qt::white);
}

namespace {

// GUI time per slice of a gradual build, and of a gradual deletion: both may run in one turn of
// the event loop, with the index's update of the new items and a paint, within a frame.
constexpr qint64 kSliceNs = 5'000'000;
constexpr qint64 kDeleteSliceNs = 4'000'000;

}  // namespace

void GraphScene::clearLayout() {
  ++m_build;
  // Without the BSP index, deleting 50k items skips 50k index removals (~10% of Collapse All's
  // 0.1 s on 20k nodes). Taking them out one by one to delete later was slower still.
  setItemIndexMethod(QGraphicsScene::NoIndex);
  clear();
  setItemIndexMethod(QGraphicsScene::BspTreeIndex);
  m_layout = std::make_shared<const layout::Layout>();
  m_groups.clear();
  m_openGroups.clear();
  m_boxes.clear();
  m_frames.clear();
  m_nextFrame = m_nextEdge = m_nextBox = 0;
}

GraphScene* GraphScene::successor(QObject* parent) {
  auto* next = new GraphScene(parent);
  next->m_marks = std::move(m_marks);
  next->m_tints = std::move(m_tints);
  next->m_badges = std::move(m_badges);
  next->m_inSlice = std::move(m_inSlice);
  next->m_moduleTints = std::move(m_moduleTints);
  next->m_moduleStatus = std::move(m_moduleStatus);
  next->m_selected = m_selected;
  return next;
}

void GraphScene::deleteGradually() {
  ++m_build;
  releaseInBackground(std::exchange(m_layout, nullptr));  // 270k boxes' worth of frees
  m_boxes.clear();
  m_frames.clear();
  // Qt redraws a scene that no view shows whole at every item removed, so each slice walked every
  // item left: a view that is never shown keeps each deletion's cost its own.
  if (!m_groups.empty()) m_retiredView = std::make_unique<QGraphicsView>(this);
  // From the next turn: this one shows the scene that replaces this one, and its paint.
  inNextTurn(this, [this] { deleteSlice(); });
}

void GraphScene::deleteSlice() {
  // Oldest first: the scene's list of top-level items then loses its first entry each time, which
  // costs nothing, where the newest would be searched for from the front.
  m_clock.start();
  for (; m_deleted < m_groups.size(); ++m_deleted) {
    ItemGroup* group = m_groups[m_deleted];
    // A group's items one at a time, the last first (its parent's list then loses its last entry):
    // a whole group of 256 boxes at once took 16 ms on a slow host, four slices' worth.
    for (QList<QGraphicsItem*> items = group->childItems(); !items.isEmpty(); items.removeLast()) {
      if (m_clock.nsecsElapsed() > kDeleteSliceNs) {
        inNextTurn(this, [this] { deleteSlice(); });
        return;
      }
      delete items.last();
    }
    delete group;
  }
  m_groups.clear();
  deleteLater();
}

void GraphScene::beginLayout(std::shared_ptr<const layout::Layout> l) {
  clearLayout();
  m_layout = std::move(l);
  m_boxes.reserve(m_layout->boxes.size());
  // The BSP tree's depth for the final count, set before the first item: left to Qt, it is
  // rebuilt whole each time the count passes a power of two (a 90 ms stall at 130k items), and
  // has a leaf per item: a long edge is then filed in thousands of leaves. Sixteen items a leaf.
  const std::size_t items = m_layout->boxes.size() + m_layout->edges.size() + m_layout->frames.size();
  setBspTreeDepth(std::max(5, static_cast<int>(std::ceil(std::log2(static_cast<double>(items) + 1))) - 4));
  const double margin = 20;
  const auto& b = m_layout->bounds;
  setSceneRect(b.x - margin, b.y - margin, b.w + 2 * margin, b.h + 2 * margin);
}

void GraphScene::showLayoutGradually(std::shared_ptr<const layout::Layout> l, std::function<void()> done) {
  beginLayout(std::move(l));
  buildSlice(m_build, std::make_shared<std::function<void()>>(std::move(done)));
}

void GraphScene::buildSlice(uint64_t build, std::shared_ptr<std::function<void()>> done) {
  if (build != m_build) return;  // replaced or cleared meanwhile
  m_clock.start();
  const bool complete = addItems(kSliceNs);
  indexNewItems();
  if (complete) {
    (*done)();
    return;
  }
  inNextTurn(this, [this, build, done] { buildSlice(build, done); });
}

bool GraphScene::addItems(qint64 deadlineNs) {
  const layout::Layout& l = *m_layout;
  // Every 64 items, the index takes them in and the clock is read: the slice's budget covers
  // both, and a module frame spanning the whole graph is filed in every leaf of the index.
  std::size_t added = 0;
  auto late = [&] {
    if (++added % 64) return false;
    indexNewItems();
    return m_clock.nsecsElapsed() > deadlineNs;
  };
  // Outer frames below inner ones: depth from the parent chain.
  for (; m_nextFrame < l.frames.size(); ++m_nextFrame) {
    if (late()) return false;
    const std::size_t i = m_nextFrame;
    int depth = 0;
    for (int p = l.frames[i].parent; p >= 0 && depth < 1000; p = l.frames[static_cast<std::size_t>(p)].parent) ++depth;
    auto* item = new FrameItem(l.frames[i]);
    addGrouped(item, -1000 + depth);
    m_frames.push_back(item);
  }
  for (; m_nextEdge < l.edges.size(); ++m_nextEdge) {
    if (late()) return false;
    auto* item = new EdgeItem(l.edges[m_nextEdge]);
    addGrouped(item, item->zValue());
  }
  for (; m_nextBox < l.boxes.size(); ++m_nextBox) {
    if (late()) return false;
    const std::size_t i = m_nextBox;
    auto* item = new BoxItem(l.boxes[i], static_cast<int>(i));
    addGrouped(item, item->zValue());
    m_boxes.push_back(item);
    if (l.boxes[i].kind == layout::BoxKind::Module) {
      const auto it = m_moduleStatus.find(l.boxes[i].module);
      if (it != m_moduleStatus.end()) item->setStatus(it->second);
      const auto tint = m_moduleTints.find(l.boxes[i].module);
      if (tint != m_moduleTints.end()) item->setTint(tint->second);
    }
    if (l.boxes[i].kind == layout::BoxKind::Op && l.boxes[i].node >= 0) applyMarks(item);
  }
  return true;
}

void GraphScene::indexNewItems() {
  // Any look-up brings the BSP index up to date. Left to Qt, that waits for a paint that touches
  // new items, and a paint after many slices off screen indexed 50k items at once (250 ms).
  items(QRectF(sceneRect().topLeft(), QSizeF(1, 1)));
}

void GraphScene::addGrouped(QGraphicsItem* item, double z) {
  constexpr int kGroupSize = 256;
  auto& [group, size] = m_openGroups[z];
  if (!group || size == kGroupSize) {
    group = new ItemGroup(z);
    addItem(group);
    m_groups.push_back(group);
    size = 0;
  }
  item->setParentItem(group);
  ++size;
}

void GraphScene::applyMarks(BoxItem* item) const {
  item->setStatus(m_marks.status(item->node()));
  const auto n = static_cast<std::size_t>(item->node());
  item->setTint(tintOf(n));
  item->setBadge(n < m_badges.size() ? m_badges[n] : QString());
  item->setInSlice(n < m_inSlice.size() && m_inSlice[n]);
  item->setBreakpoint(m_marks.hasBreakpoint(item->node()));
  item->setPatched(m_marks.isPatched(item->node()));
  item->setSelectedNode(item->node() == m_selected);
}

void GraphScene::setMarks(const ExecutionMarks& marks) {
  // Only the nodes whose mark can differ are touched: the old and new current/failed nodes, the
  // breakpoints added or removed, and the executed flags that flipped.
  std::vector<NodeId> touched{m_marks.current, m_marks.failed, marks.current, marks.failed};
  std::set_symmetric_difference(m_marks.breakpoints.begin(), m_marks.breakpoints.end(), marks.breakpoints.begin(),
                                marks.breakpoints.end(), std::back_inserter(touched));
  std::set_symmetric_difference(m_marks.patched.begin(), m_marks.patched.end(), marks.patched.begin(),
                                marks.patched.end(), std::back_inserter(touched));
  const std::size_t n = std::max(m_marks.executed.size(), marks.executed.size());
  for (std::size_t i = 0; i < n; ++i) {
    const bool before = i < m_marks.executed.size() && m_marks.executed[i];
    const bool after = i < marks.executed.size() && marks.executed[i];
    if (before != after) touched.push_back(static_cast<NodeId>(i));
  }
  m_marks = marks;
  for (NodeId node : touched)
    if (BoxItem* item = boxForNode(node)) applyMarks(item);
}

void GraphScene::setModuleStatus(std::map<int, NodeStatus> byLevel) {
  if (byLevel == m_moduleStatus) return;
  m_moduleStatus = std::move(byLevel);
  for (BoxItem* b : m_boxes) {
    if (b->kind() != layout::BoxKind::Module) continue;
    const auto it = m_moduleStatus.find(b->module());
    b->setStatus(it == m_moduleStatus.end() ? NodeStatus::NotRun : it->second);
  }
}

QColor GraphScene::tintOf(std::size_t node) const {
  return node < m_tints.size() && m_tints[node] != 0 ? QColor::fromRgba(m_tints[node]) : QColor();
}

void GraphScene::setTints(std::vector<QRgb> byNode, std::map<int, QColor> byModule, std::vector<bool> inSlice) {
  // Every box already shows the scene's tints (a box takes them when it is made): the same ones
  // again, as after each layout without a comparison, change no box. Walking 24k boxes to find
  // that out was a third of Expand All's longest stall.
  if (byNode == m_tints && byModule == m_moduleTints && inSlice == m_inSlice) return;
  m_tints = std::move(byNode);
  m_moduleTints = std::move(byModule);
  m_inSlice = std::move(inSlice);
  for (BoxItem* b : m_boxes) {
    if (b->kind() == layout::BoxKind::Module) {
      const auto it = m_moduleTints.find(b->module());
      b->setTint(it == m_moduleTints.end() ? QColor() : it->second);
    } else if (b->kind() == layout::BoxKind::Op && b->node() >= 0) {
      const auto n = static_cast<std::size_t>(b->node());
      b->setTint(tintOf(n));
      b->setInSlice(n < m_inSlice.size() && m_inSlice[n]);
    }
  }
}

void GraphScene::setBadges(std::vector<QString> byNode) {
  if (byNode == m_badges) return;  // as the tints: every box already shows these
  m_badges = std::move(byNode);
  for (BoxItem* b : m_boxes)
    if (b->kind() == layout::BoxKind::Op && b->node() >= 0) {
      const auto n = static_cast<std::size_t>(b->node());
      b->setBadge(n < m_badges.size() ? m_badges[n] : QString());
    }
}

QColor GraphScene::shownTint(NodeId node) const {
  const BoxItem* item = boxForNode(node);
  return item ? item->tint() : QColor();
}

QColor GraphScene::shownModuleTint(int level) const {
  for (BoxItem* b : m_boxes)
    if (b->kind() == layout::BoxKind::Module && b->module() == level) return b->tint();
  return {};
}

NodeStatus GraphScene::shownModuleStatus(int level) const {
  for (BoxItem* b : m_boxes)
    if (b->kind() == layout::BoxKind::Module && b->module() == level) return b->status();
  return NodeStatus::NotRun;
}

void GraphScene::setSelectedNode(NodeId node) {
  if (node == m_selected) return;
  BoxItem* old = boxForNode(m_selected);
  m_selected = node;
  if (old) old->setSelectedNode(false);
  if (BoxItem* item = boxForNode(node)) item->setSelectedNode(true);
}

BoxItem* GraphScene::boxForNode(NodeId node) const {
  const int32_t box = m_layout ? m_layout->boxOf(node) : -1;
  // boxes not made yet (a layout shown gradually) have none
  return box >= 0 && static_cast<std::size_t>(box) < m_boxes.size() ? m_boxes[static_cast<std::size_t>(box)] : nullptr;
}

QGraphicsItem* GraphScene::itemForModule(int level) const {
  if (level < 0) return nullptr;
  for (BoxItem* b : m_boxes)
    if (b->kind() == layout::BoxKind::Module && b->module() == level) return b;
  for (FrameItem* f : m_frames)
    if (f->module() == level) return f;
  return nullptr;
}

BoxItem* GraphScene::boxAt(const QPointF& scenePos) const {
  for (QGraphicsItem* item : items(scenePos, Qt::IntersectsItemBoundingRect, Qt::DescendingOrder)) {
    if (item->type() != BoxItem::Type) continue;
    auto* box = static_cast<BoxItem*>(item);
    if (box->rect().contains(scenePos)) return box;
  }
  return nullptr;
}

FrameItem* GraphScene::frameLabelAt(const QPointF& scenePos) const {
  // Descending z: inner frames first.
  for (QGraphicsItem* item : items(scenePos, Qt::IntersectsItemBoundingRect, Qt::DescendingOrder)) {
    if (item->type() != FrameItem::Type) continue;
    auto* frame = static_cast<FrameItem*>(item);
    if (frame->labelRect().contains(scenePos)) return frame;
  }
  return nullptr;
}

NodeStatus GraphScene::shownStatus(NodeId node) const {
  const BoxItem* item = boxForNode(node);
  return item ? item->status() : NodeStatus::NotRun;
}

bool GraphScene::shownBreakpoint(NodeId node) const {
  const BoxItem* item = boxForNode(node);
  return item && item->breakpoint();
}

bool GraphScene::shownSelected(NodeId node) const {
  const BoxItem* item = boxForNode(node);
  return item && item->isSelectedNode();
}

}  // namespace torchir::ui
