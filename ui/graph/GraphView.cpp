#include "GraphView.h"

#include <QContextMenuEvent>
#include <QHelpEvent>
#include <QToolTip>
#include <QMouseEvent>
#include <QScrollBar>
#include <QWheelEvent>
#include <algorithm>
#include <cmath>

#include "graph/GraphDetail.h"
#include "graph/GraphItems.h"

namespace torchir::ui {

GraphView::GraphView(QWidget* parent) : QGraphicsView(parent) {
  setRenderHints(QPainter::Antialiasing | QPainter::TextAntialiasing);
  setDragMode(QGraphicsView::ScrollHandDrag);
  // Panning a big scene repaints most of the viewport anyway; collecting minimal regions per item
  // costs more than it saves.
  setViewportUpdateMode(QGraphicsView::SmartViewportUpdate);
  setOptimizationFlag(QGraphicsView::DontSavePainterState, true);
  setOptimizationFlag(QGraphicsView::DontAdjustForAntialiasing, true);
  setTransformationAnchor(QGraphicsView::AnchorViewCenter);
  setResizeAnchor(QGraphicsView::AnchorViewCenter);
  setBackgroundBrush(Qt::white);
}

double GraphView::zoom() const { return transform().m11(); }

void GraphView::scaleBy(double factor) {
  const double target = std::clamp(zoom() * factor, kMinZoom, kMaxZoom);
  if (zoom() <= 0) return;
  const double f = target / zoom();
  if (std::abs(f - 1.0) < 1e-9) return;
  scale(f, f);
}

void GraphView::setZoom(double s) {
  const auto anchor = transformationAnchor();
  setTransformationAnchor(QGraphicsView::AnchorViewCenter);
  scaleBy(s / zoom());
  setTransformationAnchor(anchor);
}

void GraphView::zoomIn() { setZoom(zoom() * 1.25); }
void GraphView::zoomOut() { setZoom(zoom() / 1.25); }

void GraphView::fitToWindow() {
  if (!scene()) return;
  fitInView(sceneRect(), Qt::KeepAspectRatio);
  const double fitted = zoom();
  if (fitted > 1.0 || fitted < kMinZoom) {
    resetTransform();
    const double s = std::clamp(fitted, kMinZoom, 1.0);
    scale(s, s);
    centerOn(sceneRect().center());
  }
}

void GraphView::showStart() {
  if (!scene()) return;
  fitToWindow();
  if (zoom() >= kReadableScale - 1e-9) return;  // the whole graph, and its titles read
  // Its top at 1:1, where the titles read as the table's text does; the first box (the inputs)
  // in the middle across, when the graph is wider than the window.
  const QRectF r = sceneRect();
  double x = r.center().x(), top = r.top();
  const QGraphicsItem* first = nullptr;
  for (const QGraphicsItem* item : scene()->items())
    if (item->type() == BoxItem::Type && (!first || item->sceneBoundingRect().top() < first->sceneBoundingRect().top()))
      first = item;
  if (first) x = first->sceneBoundingRect().center().x();
  resetTransform();
  scale(kReadableScale, kReadableScale);
  centerOn(x, top + viewport()->height() / kReadableScale / 2);
}

void GraphView::wheelEvent(QWheelEvent* event) {
  if (event->modifiers() & (Qt::ShiftModifier | Qt::AltModifier)) {
    QGraphicsView::wheelEvent(event);  // scroll, as elsewhere
    return;
  }
  const int delta = event->angleDelta().y();
  if (delta == 0) {
    QGraphicsView::wheelEvent(event);
    return;
  }
  // The scene point under the cursor stays there. Done by hand rather than with AnchorUnderMouse,
  // which goes by the last mouse move and QCursor::pos() instead of this event's position.
  const QPoint at = event->position().toPoint();
  const QPointF anchor = mapToScene(at);
  const auto previous = transformationAnchor();
  setTransformationAnchor(QGraphicsView::NoAnchor);
  scaleBy(std::pow(1.0015, delta));
  setTransformationAnchor(previous);
  const QPoint drift = mapFromScene(anchor) - at;
  horizontalScrollBar()->setValue(horizontalScrollBar()->value() + drift.x());
  verticalScrollBar()->setValue(verticalScrollBar()->value() + drift.y());
  event->accept();
}

void GraphView::mousePressEvent(QMouseEvent* event) {
  if (event->button() == Qt::LeftButton) {
    m_pressPos = event->position().toPoint();
    m_pressed = true;
  }
  QGraphicsView::mousePressEvent(event);
}

void GraphView::mouseReleaseEvent(QMouseEvent* event) {
  QGraphicsView::mouseReleaseEvent(event);
  if (event->button() != Qt::LeftButton || !m_pressed) return;
  m_pressed = false;
  // A press and release within a few pixels is a click; anything more was a pan.
  if ((event->position().toPoint() - m_pressPos).manhattanLength() <= 4)
    Q_EMIT clicked(mapToScene(event->position().toPoint()));
}

void GraphView::mouseDoubleClickEvent(QMouseEvent* event) {
  if (event->button() == Qt::LeftButton) {
    Q_EMIT doubleClicked(mapToScene(event->position().toPoint()));
    event->accept();
    return;
  }
  QGraphicsView::mouseDoubleClickEvent(event);
}

void GraphView::contextMenuEvent(QContextMenuEvent* event) {
  Q_EMIT contextMenuRequested(mapToScene(event->pos()), event->globalPos());
  event->accept();
}

bool GraphView::viewportEvent(QEvent* event) {
  if (event->type() != QEvent::ToolTip) return QGraphicsView::viewportEvent(event);
  const auto* help = static_cast<QHelpEvent*>(event);
  const QString text = graphToolTip(items(help->pos()));
  if (text.isEmpty()) {
    QToolTip::hideText();
    event->ignore();
  } else {
    QToolTip::showText(help->globalPos(), text, viewport());
  }
  return true;
}

}  // namespace torchir::ui
