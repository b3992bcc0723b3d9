#include "panels/ControlStrip.h"

#include <QEvent>
#include <QScrollBar>

namespace torchir::ui {

ControlStrip::ControlStrip(QWidget* row, QWidget* parent) : QScrollArea(parent) {
  setFrameShape(QFrame::NoFrame);
  setWidgetResizable(true);  // as wide as the strip while the controls fit
  setVerticalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
  setHorizontalScrollBarPolicy(Qt::ScrollBarAsNeeded);
  setSizePolicy(QSizePolicy::Preferred, QSizePolicy::Fixed);
  setWidget(row);
  row->installEventFilter(this);  // controls added or removed: another height, perhaps
}

int ControlStrip::heightAt(int width) const {
  const QWidget* row = widget();
  return row->sizeHint().height() + (row->minimumSizeHint().width() > width ? horizontalScrollBar()->sizeHint().height() : 0);
}

QSize ControlStrip::sizeHint() const { return {widget()->sizeHint().width(), heightAt(width())}; }

// No width of its own: the panel decides it, and the row scrolls within it.
QSize ControlStrip::minimumSizeHint() const { return {0, heightAt(width())}; }

void ControlStrip::resizeEvent(QResizeEvent* event) {
  QScrollArea::resizeEvent(event);
  if (height() != heightAt(width())) updateGeometry();
}

bool ControlStrip::eventFilter(QObject* watched, QEvent* event) {
  if (watched == widget() && event->type() == QEvent::LayoutRequest) updateGeometry();
  return QScrollArea::eventFilter(watched, event);
}

}  // namespace torchir::ui
