#pragma once
// The scene's items: plain painters over the layout's geometry, with level-of-detail painting so a
// scene of 20k boxes stays smooth when zoomed out. None of them handles mouse events: clicks are
// the view's, so a drag that starts on a box still pans.
#include <QGraphicsItem>
#include <QColor>
#include <QGraphicsPathItem>
#include <QPolygonF>
#include <QString>
#include <QStringList>

#include "layout/LayoutTypes.h"
#include "session/ExecutionMarks.h"

namespace torchir::ui {

/// One layout box: op, user input/output, collapsed module, or port.
class BoxItem : public QGraphicsItem {
 public:
  enum { Type = UserType + 1 };
  BoxItem(const layout::Box& box, int index);

  int type() const override { return Type; }
  QRectF boundingRect() const override;
  void paint(QPainter* painter, const QStyleOptionGraphicsItem* option, QWidget* widget) override;

  int index() const { return m_index; }  // in Layout::boxes
  layout::BoxKind kind() const { return m_kind; }
  int node() const { return m_node; }
  int module() const { return m_module; }
  const QRectF& rect() const { return m_rect; }
  const QStringList& lines() const { return m_lines; }
  QString toolTipText() const;

  NodeStatus status() const { return m_status; }
  bool breakpoint() const { return m_breakpoint; }
  bool isSelectedNode() const { return m_selected; }
  /// Each repaints only when the value changes.
  void setStatus(NodeStatus s);
  void setBreakpoint(bool on);
  void setSelectedNode(bool on);
  /// A comparison's colour for the box (an invalid colour: none), drawn over the run's status.
  void setTint(const QColor& tint);
  const QColor& tint() const { return m_tint; }
  /// In the backward slice of a comparison's first NaN or Inf: a dashed purple outline.
  void setInSlice(bool on);
  bool inSlice() const { return m_inSlice; }
  /// The user changed the node's call (edit and continue): an orange outline.
  void setPatched(bool on);
  bool patched() const { return m_patched; }
  /// A short text drawn at the box's top right and added to its tooltip (a device's latency:
  /// "0.42 ms"); empty: none.
  void setBadge(const QString& badge);
  const QString& badge() const { return m_badge; }

 private:
  QRectF m_rect;
  QStringList m_lines;
  layout::BoxKind m_kind;
  int m_node, m_module, m_index;
  NodeStatus m_status = NodeStatus::NotRun;
  bool m_breakpoint = false, m_selected = false, m_inSlice = false, m_patched = false;
  QColor m_tint;
  QString m_badge;
  double m_badgeWidth = 0;
  static constexpr double kBadgeGap = 6;
};

/// One dataflow edge: the layout's Bézier path and an arrowhead onto the consumer.
class EdgeItem : public QGraphicsPathItem {
 public:
  enum { Type = UserType + 2 };
  explicit EdgeItem(const layout::Edge& edge);
  int type() const override { return Type; }
  const QString& label() const { return m_label; }
  bool quantized() const { return m_quantized; }
  QRectF boundingRect() const override;
  void paint(QPainter* painter, const QStyleOptionGraphicsItem* option, QWidget* widget) override;

 private:
  QPolygonF m_arrow;
  QString m_label;
  bool m_quantized = false;
  QPointF m_labelPos;
  QRectF m_bounds;
};

/// An expanded module: a dashed rectangle around its children and its title at the top left.
class FrameItem : public QGraphicsItem {
 public:
  enum { Type = UserType + 3 };
  explicit FrameItem(const layout::Frame& frame);
  int type() const override { return Type; }
  QRectF boundingRect() const override;
  void paint(QPainter* painter, const QStyleOptionGraphicsItem* option, QWidget* widget) override;

  int module() const { return m_module; }
  /// The strip above the children that holds the title: where a double-click collapses the frame.
  QRectF labelRect() const;
  QString toolTipText() const { return m_label; }

 private:
  QRectF m_rect;
  QString m_label;
  int m_module;
};

/// The parent of up to a few hundred items of one stacking level, drawing nothing itself. Each
/// repaint of a scene walks every top-level item (dirty or not): 270k of them took 70 ms a pass,
/// grouped they are a thousand. Groups stack by their z; their children by the order added.
class ItemGroup : public QGraphicsItem {
 public:
  enum { Type = UserType + 4 };
  explicit ItemGroup(double z) {
    setFlag(ItemHasNoContents);
    setZValue(z);
  }
  int type() const override { return Type; }
  QRectF boundingRect() const override { return {}; }
  void paint(QPainter*, const QStyleOptionGraphicsItem*, QWidget*) override {}
};

/// The tooltip of the topmost item that has one, or an empty string. Items do not carry their
/// tooltips (QGraphicsItem::setToolTip allocates per item, and a 24k-box scene then takes half
/// as long again to build and to delete): the view asks here when the user hovers.
QString graphToolTip(const QList<QGraphicsItem*>& itemsUnderCursor);

}  // namespace torchir::ui
