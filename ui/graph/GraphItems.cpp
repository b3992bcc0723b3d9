#include "GraphItems.h"

#include <QFontMetricsF>
#include <QPainter>
#include <QPainterPath>
#include <QStyleOptionGraphicsItem>
#include <cmath>

#include "graph/GraphDetail.h"
#include "graph/GraphStyle.h"

namespace torchir::ui {

namespace {

constexpr double kBreakpointRadius = 5;
constexpr double kMarkMargin = 3;  // room for the thick borders of marks and selection

QRectF toQt(const layout::Rect& r) { return {r.x, r.y, r.w, r.h}; }

double scaleOf(const QStyleOptionGraphicsItem* option, QPainter* painter) {
  return option->levelOfDetailFromTransform(painter->worldTransform());
}

struct BoxLook {
  QColor fill, stroke;
  double width;
};

BoxLook lookOf(layout::BoxKind kind, NodeStatus s) {
  BoxLook look{graphstyle::fill(kind), graphstyle::stroke(kind), kind == layout::BoxKind::Module ? 2.0 : 1.0};
  switch (s) {
    case NodeStatus::NotRun: break;
    case NodeStatus::Current: look = {QColor(0xff, 0xeb, 0x3b), QColor(0xb2, 0x8b, 0x00), 3.0}; break;
    case NodeStatus::Executed: look = {QColor(0xcf, 0xee, 0xd5), QColor(0x2e, 0x7d, 0x32), 1.0}; break;
    case NodeStatus::Failed: look = {QColor(0xf8, 0xc4, 0xc4), QColor(0xc6, 0x28, 0x28), 2.5}; break;
  }
  return look;
}

}  // namespace

// ---- BoxItem

BoxItem::BoxItem(const layout::Box& box, int index)
    : m_rect(toQt(box.rect)), m_kind(box.kind), m_node(box.node), m_module(box.module), m_index(index) {
  m_lines.reserve(static_cast<int>(box.lines.size()));
  for (const auto& l : box.lines) m_lines << QString::fromStdString(l);
  setZValue(2);
}

QString BoxItem::toolTipText() const {
  if (m_kind == layout::BoxKind::Op)
    return m_lines.join(QLatin1Char('\n')) + (m_badge.isEmpty() ? QString() : QStringLiteral("\ndevice: ") + m_badge);
  if (m_kind == layout::BoxKind::Module) return QObject::tr("Double-click to expand");
  return {};
}

QRectF BoxItem::boundingRect() const {
  // Marks draw outside the box: thick borders and the breakpoint dot centred on the left border.
  const double m = kMarkMargin + 1;
  return m_rect.adjusted(-std::max(m, kBreakpointRadius + 1), -m, m + (m_badge.isEmpty() ? 0 : kBadgeGap + m_badgeWidth), m);
}

void BoxItem::setTint(const QColor& tint) {
  if (tint == m_tint) return;
  m_tint = tint;
  update();
}

void BoxItem::setBadge(const QString& badge) {
  if (badge == m_badge) return;
  prepareGeometryChange();  // drawn beside the box: the item's bounds grow with it
  m_badge = badge;
  m_badgeWidth = badge.isEmpty() ? 0 : QFontMetricsF(graphstyle::labelFont()).horizontalAdvance(badge);
  update();
}

void BoxItem::setInSlice(bool on) {
  if (on == m_inSlice) return;
  m_inSlice = on;
  update();
}

void BoxItem::setStatus(NodeStatus s) {
  if (s == m_status) return;
  m_status = s;
  update();
}

void BoxItem::setBreakpoint(bool on) {
  if (on == m_breakpoint) return;
  m_breakpoint = on;
  update();
}

void BoxItem::setPatched(bool on) {
  if (on == m_patched) return;
  m_patched = on;
  update();
}

void BoxItem::setSelectedNode(bool on) {
  if (on == m_selected) return;
  m_selected = on;
  update();
}

void BoxItem::paint(QPainter* painter, const QStyleOptionGraphicsItem* option, QWidget*) {
  const Detail detail = detailFor(scaleOf(option, painter));
  BoxLook look = lookOf(m_kind, m_status);
  if (m_tint.isValid()) look.fill = m_tint;

  if (m_kind == layout::BoxKind::Port) {
    if (detail == Detail::Far) return;  // a few points wide: invisible when far anyway
    painter->setPen(QPen(look.stroke, 1));
    painter->setBrush(look.fill);
    painter->drawEllipse(m_rect);
    return;
  }

  if (detail == Detail::Far) {
    // Not-run boxes take their border colour so the structure stays visible from afar.
    painter->fillRect(m_rect, m_tint.isValid()                ? m_tint.darker(110)
                              : m_status == NodeStatus::NotRun ? look.stroke.lighter(150)
                                                               : look.fill.darker(115));
    if (m_selected) painter->fillRect(m_rect, QColor(0x1a, 0x73, 0xe8));
    if (m_breakpoint) painter->fillRect(QRectF(m_rect.x(), m_rect.y(), m_rect.width() / 4, m_rect.height()), Qt::red);
    return;
  }

  const double radius = m_kind == layout::BoxKind::Op ? 3 : 8;
  painter->setRenderHint(QPainter::Antialiasing, true);
  painter->setPen(QPen(look.stroke, look.width));
  painter->setBrush(look.fill);
  painter->drawRoundedRect(m_rect, radius, radius);

  if (m_patched) {
    painter->setPen(QPen(QColor(0xef, 0x6c, 0x00), 2.5));
    painter->setBrush(Qt::NoBrush);
    painter->drawRoundedRect(m_rect.adjusted(-1, -1, 1, 1), radius, radius);
  }
  if (m_inSlice) {
    painter->setPen(QPen(QColor(0x7b, 0x1f, 0xa2), 2, Qt::DashLine));
    painter->setBrush(Qt::NoBrush);
    painter->drawRoundedRect(m_rect.adjusted(-2, -2, 2, 2), radius + 1, radius + 1);
  }
  if (m_selected) {
    painter->setPen(QPen(QColor(0x1a, 0x73, 0xe8), 2.5));
    painter->setBrush(Qt::NoBrush);
    painter->drawRoundedRect(m_rect.adjusted(-kMarkMargin, -kMarkMargin, kMarkMargin, kMarkMargin), radius + 2,
                             radius + 2);
  }

  const double lh = graphstyle::lineHeight();
  double baseline = m_rect.y() + graphstyle::kBoxPadY + graphstyle::ascent();
  const int lines = detail == Detail::Middle ? std::min<int>(1, static_cast<int>(m_lines.size())) : static_cast<int>(m_lines.size());
  for (int i = 0; i < lines; ++i, baseline += lh) {
    painter->setFont(i == 0 ? graphstyle::titleFont() : graphstyle::labelFont());
    painter->setPen(i == 0 ? QColor(Qt::black) : QColor(0x33, 0x33, 0x33));
    painter->drawText(QPointF(m_rect.x() + graphstyle::kBoxPadX, baseline), m_lines[i]);
  }

  if (!m_badge.isEmpty()) {  // beside the box, on its title's line
    painter->setFont(graphstyle::labelFont());
    painter->setPen(QColor(0x37, 0x47, 0x4f));
    painter->drawText(QPointF(m_rect.right() + kBadgeGap, m_rect.y() + graphstyle::kBoxPadY + graphstyle::ascent()), m_badge);
  }

  if (m_breakpoint) {
    painter->setPen(QPen(Qt::white, 1));
    painter->setBrush(QColor(0xd3, 0x2f, 0x2f));
    painter->drawEllipse(QPointF(m_rect.x(), m_rect.center().y()), kBreakpointRadius, kBreakpointRadius);
  }
}

// ---- EdgeItem

EdgeItem::EdgeItem(const layout::Edge& edge) : m_label(QString::fromStdString(edge.label)), m_quantized(edge.quantized) {
  QPainterPath path;
  if (!edge.points.empty()) {
    path.moveTo(edge.points[0].x, edge.points[0].y);
    for (std::size_t i = 1; i + 2 < edge.points.size(); i += 3)
      path.cubicTo(edge.points[i].x, edge.points[i].y, edge.points[i + 1].x, edge.points[i + 1].y,
                   edge.points[i + 2].x, edge.points[i + 2].y);
    m_labelPos = QPointF(edge.points[0].x + 4, edge.points[0].y + 12);
  }
  setPath(path);
  // a quantized value (a folded quantize/dequantize pair): a marked edge in the quantization colour
  setPen(m_quantized ? QPen(graphstyle::quantizedColor(), 1.6, Qt::DashLine) : QPen(QColor(0x55, 0x55, 0x55), 1.1));
  // The arrowhead as the command line draws it: a triangle from the path's end to the tip.
  const double dx = edge.arrowTip.x - edge.arrowBase.x, dy = edge.arrowTip.y - edge.arrowBase.y;
  const double len = std::hypot(dx, dy);
  if (len > 0.1) {
    const double nx = -dy / len * 3.5, ny = dx / len * 3.5;
    m_arrow << QPointF(edge.arrowTip.x, edge.arrowTip.y) << QPointF(edge.arrowBase.x + nx, edge.arrowBase.y + ny)
            << QPointF(edge.arrowBase.x - nx, edge.arrowBase.y - ny);
  }
  m_bounds = QGraphicsPathItem::boundingRect().united(m_arrow.boundingRect()).adjusted(-1, -1, 1, 1);
  if (!m_label.isEmpty()) {
    const double width = QFontMetricsF(graphstyle::edgeLabelFont()).horizontalAdvance(m_label);
    m_bounds = m_bounds.united(QRectF(m_labelPos - QPointF(0, 12), QSizeF(width + 4, 16)));
  }
  setZValue(1);
}

QRectF EdgeItem::boundingRect() const { return m_bounds; }

void EdgeItem::paint(QPainter* painter, const QStyleOptionGraphicsItem* option, QWidget*) {
  const Detail detail = detailFor(scaleOf(option, painter));
  painter->setRenderHint(QPainter::Antialiasing, detail != Detail::Far);
  painter->setPen(pen());
  painter->setBrush(Qt::NoBrush);
  painter->drawPath(path());
  if (detail == Detail::Far) return;
  painter->setPen(Qt::NoPen);
  painter->setBrush(m_quantized ? graphstyle::quantizedColor() : QColor(0x55, 0x55, 0x55));
  painter->drawPolygon(m_arrow);
  if (detail == Detail::Near && !m_label.isEmpty()) {
    painter->setFont(graphstyle::edgeLabelFont());
    painter->setPen(m_quantized ? graphstyle::quantizedColor() : QColor(0xaa, 0x33, 0x33));
    painter->drawText(m_labelPos, m_label);
  }
}

// ---- FrameItem

FrameItem::FrameItem(const layout::Frame& frame)
    : m_rect(toQt(frame.rect)), m_label(QString::fromStdString(frame.label)), m_module(frame.module) {}

QRectF FrameItem::boundingRect() const { return m_rect.adjusted(-1, -1, 1, 1); }

QRectF FrameItem::labelRect() const {
  // LayoutEngine leaves its padding plus one line (and 4 points) above the children.
  return {m_rect.x(), m_rect.y(), m_rect.width(), 10 + graphstyle::lineHeight() + 4};
}

void FrameItem::paint(QPainter* painter, const QStyleOptionGraphicsItem* option, QWidget*) {
  const Detail detail = detailFor(scaleOf(option, painter));
  painter->setRenderHint(QPainter::Antialiasing, detail != Detail::Far);
  QPen pen(QColor(0x8a, 0x8a, 0x8a), 1);
  if (detail != Detail::Far) pen.setDashPattern({5, 3});
  painter->setPen(pen);
  painter->setBrush(QColor(0x7f, 0x7f, 0x7f, 15));
  painter->drawRoundedRect(m_rect, 6, 6);
  if (detail == Detail::Far) return;
  painter->setFont(graphstyle::titleFont());
  painter->setPen(QColor(0x44, 0x44, 0x44));
  painter->drawText(QPointF(m_rect.x() + 8, m_rect.y() + 4 + graphstyle::ascent()), m_label);
}

QString graphToolTip(const QList<QGraphicsItem*>& itemsUnderCursor) {
  for (const QGraphicsItem* item : itemsUnderCursor) {
    QString text;
    if (item->type() == BoxItem::Type) text = static_cast<const BoxItem*>(item)->toolTipText();
    else if (item->type() == FrameItem::Type) text = static_cast<const FrameItem*>(item)->toolTipText();
    if (!text.isEmpty()) return text;
  }
  return {};
}

}  // namespace torchir::ui
