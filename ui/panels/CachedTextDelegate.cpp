#include "panels/CachedTextDelegate.h"

#include <QApplication>
#include <QFontMetrics>
#include <QPainter>
#include <QStyle>
#include <QtMath>
#include <algorithm>
#include <utility>

namespace torchir::ui {

namespace {

/// `text` cut to what can show in `width` and a little more (for eliding its end): eliding shapes
/// the whole text, and an op's args can run to thousands of characters. The cut keeps surrogate
/// pairs whole.
QString visiblePart(const QString& text, int width, const QFontMetrics& metrics) {
  const int narrowest =
      std::max(1, std::min({metrics.horizontalAdvance(QLatin1Char('.')), metrics.horizontalAdvance(QLatin1Char('i')),
                            metrics.horizontalAdvance(QLatin1Char(' '))}));
  qsizetype keep = width / narrowest + 2;  // past the width, so that eliding still marks the cut
  if (text.size() <= keep) return text;
  if (text.at(keep - 1).isHighSurrogate()) ++keep;
  return text.left(keep);
}

}  // namespace

const QStaticText& CachedTextDelegate::laidOut(const QString& text, int width, const QFont& font,
                                               Qt::TextElideMode mode) const {
  Key key{text, width};
  if (const QStaticText* cached = m_texts.object(key)) return *cached;
  const QFontMetrics metrics(font);
  auto* made = new QStaticText(
      metrics.elidedText(mode == Qt::ElideRight ? visiblePart(text, width, metrics) : text, mode, width));
  made->setTextFormat(Qt::PlainText);
  made->setPerformanceHint(QStaticText::AggressiveCaching);
  made->prepare(QTransform(), font);
  m_texts.insert(std::move(key), made);
  return *made;
}

QRect CachedTextDelegate::textArea(const QStyleOptionViewItem& opt, const QString& text, const QStyle* style) const {
  const int margin = style->pixelMetric(QStyle::PM_FocusFrameHMargin, nullptr, opt.widget) + 1;
  const auto placed = [&](const QString& placedText) {
    QStyleOptionViewItem placing = opt;
    placing.text = placedText;
    return style->subElementRect(QStyle::SE_ItemViewItemText, &placing, opt.widget).adjusted(margin, 0, -margin, 0);
  };
  // A table's cell (the selection drawn across it, its icon at a side, one line) gives its text
  // the cell's room whatever the text. Elsewhere the room is the text's own size: placed each time.
  const bool roomOfTheCell = opt.showDecorationSelected && opt.decorationPosition != QStyleOptionViewItem::Bottom &&
                             !(opt.features & QStyleOptionViewItem::WrapText);
  if (!roomOfTheCell) return placed(text);
  const Placement key{opt.rect.size(),
                      static_cast<int>(opt.features),
                      opt.decorationSize,
                      static_cast<int>(opt.decorationPosition),
                      static_cast<int>(opt.direction),
                      static_cast<int>(opt.displayAlignment),
                      static_cast<int>(opt.state)};  // a style sheet may pad a selected or hovered cell
  if (const auto it = m_areas.constFind(key); it != m_areas.constEnd()) return it->translated(opt.rect.topLeft());
  const QRect area = placed(QStringLiteral(" "));  // any text: the room does not depend on it
  if (m_areas.size() >= 1024) m_areas.clear();  // columns resized many times over: start again
  m_areas.insert(key, area.translated(-opt.rect.topLeft()));
  return area;
}

void CachedTextDelegate::forgetIfChanged(const QFont& font, const QStyle* style) const {
  // Another font (the view's changed) has other glyphs and widths; another style places text apart.
  if (font == m_font && style == m_style) return;
  m_texts.clear();
  m_areas.clear();
  m_font = font;
  m_style = style;
}

void CachedTextDelegate::paint(QPainter* painter, const QStyleOptionViewItem& option, const QModelIndex& index) const {
  QStyleOptionViewItem opt = option;
  initStyleOption(&opt, index);
  const QWidget* widget = opt.widget;
  QStyle* style = widget ? widget->style() : QApplication::style();
  forgetIfChanged(opt.font, style);
  const QString text = std::exchange(opt.text, QString());
  const QRect area = text.isEmpty() ? QRect() : textArea(opt, text, style);
  // Everything but the text, as the default delegate draws it. Without a display feature the style
  // does not lay out the (empty) text to place it: three times a cell, a third of a table's paint.
  // The focused cell keeps it, for the style to place the focus frame from the text's room as ever.
  if (!(opt.state & QStyle::State_HasFocus)) opt.features &= ~QStyleOptionViewItem::HasDisplay;
  style->drawControl(QStyle::CE_ItemViewItem, &opt, painter, widget);
  if (text.isEmpty() || area.width() <= 0) return;
  const QStaticText& laid = laidOut(text, area.width(), opt.font, opt.textElideMode);

  const QPalette::ColorGroup group = !(opt.state & QStyle::State_Enabled) ? QPalette::Disabled
                                     : (opt.state & QStyle::State_Active) ? QPalette::Active
                                                                          : QPalette::Inactive;
  // Placed as the style places a laid-out text: its size rounded up, aligned in the text's rectangle.
  const QSize size(qCeil(laid.size().width()), qCeil(laid.size().height()));
  const QPoint at = QStyle::alignedRect(opt.direction, opt.displayAlignment, size, area).topLeft();
  painter->save();
  painter->setFont(opt.font);
  painter->setPen(
      opt.palette.color(group, (opt.state & QStyle::State_Selected) ? QPalette::HighlightedText : QPalette::Text));
  painter->setClipRect(opt.rect);
  painter->drawStaticText(at, laid);
  painter->restore();
}

}  // namespace torchir::ui
