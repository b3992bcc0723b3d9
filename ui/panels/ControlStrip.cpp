#include "panels/ControlStrip.h"

#include <QScrollBar>

namespace torchir::ui {

ControlStrip::ControlStrip(QWidget* row, QWidget* parent) : QScrollArea(parent) {
  setFrameShape(QFrame::NoFrame);
  setWidgetResizable(true);  // as wide as the strip while the controls fit
  setVerticalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
  setHorizontalScrollBarPolicy(Qt::ScrollBarAsNeeded);
  setSizePolicy(QSizePolicy::Preferred, QSizePolicy::Fixed);
  setWidget(row);
}

int ControlStrip::stripHeight() const {
  return widget()->sizeHint().height() + horizontalScrollBar()->sizeHint().height();
}

QSize ControlStrip::sizeHint() const { return {widget()->sizeHint().width(), stripHeight()}; }

// No width of its own: the panel decides it, and the row scrolls within it.
QSize ControlStrip::minimumSizeHint() const { return {0, stripHeight()}; }

}  // namespace torchir::ui
