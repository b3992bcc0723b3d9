#pragma once
#include <QScrollArea>

namespace torchir::ui {

/// A row of controls that scrolls sideways when its panel is narrower than the row, instead of
/// widening the panel's dock (which resizes the whole window) or cutting controls off. It is as tall
/// as the row, and the scroll bar's height more while the scroll bar shows.
class ControlStrip : public QScrollArea {
 public:
  /// Shows `row` (a widget with a horizontal layout of controls), which it takes.
  ControlStrip(QWidget* row, QWidget* parent);

  QSize sizeHint() const override;
  QSize minimumSizeHint() const override;

 protected:
  void resizeEvent(QResizeEvent* event) override;
  bool eventFilter(QObject* watched, QEvent* event) override;

 private:
  /// The row's height at `width`, with the scroll bar's if the row's controls need more.
  int heightAt(int width) const;
};

}  // namespace torchir::ui
