#pragma once
// The view over a GraphScene: wheel zooms around the cursor, dragging pans, clicks and
// double-clicks are reported with their scene position (items take no mouse events, so a drag
// that starts on a box pans too).
#include <QGraphicsView>
#include <QPoint>

namespace torchir::ui {

class GraphView : public QGraphicsView {
  Q_OBJECT

 public:
  static constexpr double kMinZoom = 0.02;  // far enough to see the shape of a 20k-box program
  static constexpr double kMaxZoom = 4.0;

  explicit GraphView(QWidget* parent = nullptr);

  double zoom() const;  // current scale, 1 = one scene point per pixel
  void setZoom(double scale);  // clamped, around the view's centre
  void zoomIn();
  void zoomOut();
  /// The whole scene in the window (never magnified beyond 1:1, never below kMinZoom).
  void fitToWindow();
  /// A program's first view: the whole scene when it fits at kReadableScale or more, else its top
  /// at kReadableScale, across at its first box.
  void showStart();
  static constexpr double kReadableScale = 1.0;  // box titles as large as the table's text

 Q_SIGNALS:
  void clicked(const QPointF& scenePos);
  void doubleClicked(const QPointF& scenePos);
  void contextMenuRequested(const QPointF& scenePos, const QPoint& globalPos);

 protected:
  void wheelEvent(QWheelEvent* event) override;
  void mousePressEvent(QMouseEvent* event) override;
  void mouseReleaseEvent(QMouseEvent* event) override;
  void mouseDoubleClickEvent(QMouseEvent* event) override;
  void contextMenuEvent(QContextMenuEvent* event) override;
  bool viewportEvent(QEvent* event) override;  // tooltips, from the item under the cursor

 private:
  void scaleBy(double factor);

  QPoint m_pressPos;
  bool m_pressed = false;
};

}  // namespace torchir::ui
