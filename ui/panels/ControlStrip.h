#pragma once
#include <QScrollArea>

namespace torchir::ui {

/// A row of controls that scrolls sideways when its panel is narrower than the row, instead of
/// widening the panel's dock (which resizes the whole window) or cutting controls off. Its height
/// is the row's and the scroll bar's whether or not the scroll bar shows: a strip that grew and
/// shrank with it would lay out and repaint the whole panel as tensors of other ranks came and went.
class ControlStrip : public QScrollArea {
 public:
  /// Shows `row` (a widget with a horizontal layout of controls), which it takes.
  ControlStrip(QWidget* row, QWidget* parent);

  QSize sizeHint() const override;
  QSize minimumSizeHint() const override;

 private:
  int stripHeight() const;
};

}  // namespace torchir::ui
