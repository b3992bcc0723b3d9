#pragma once
#include <QCache>
#include <QFont>
#include <QStaticText>
#include <QString>
#include <QStyledItemDelegate>

namespace torchir::ui {

/// Paints an item view's cells as QStyledItemDelegate does (background, selection, focus, icon,
/// elided text) but keeps each cell's text laid out and elided (QStaticText) for the next paint.
/// The default delegate shapes a cell's text three times per paint (its size, its elision, its
/// drawing): for a table of code-like text that is most of a repaint, and a table repaints on
/// every step and run update.
class CachedTextDelegate : public QStyledItemDelegate {
 public:
  using QStyledItemDelegate::QStyledItemDelegate;

  void paint(QPainter* painter, const QStyleOptionViewItem& option, const QModelIndex& index) const override;

  /// Texts kept laid out: several screens of a table's visible cells.
  static constexpr int kCachedTexts = 8192;

 private:
  struct Key {
    QString text;
    int width;
    bool operator==(const Key& other) const { return width == other.width && text == other.text; }
    friend size_t qHash(const Key& key, size_t seed = 0) { return qHashMulti(seed, key.text, key.width); }
  };
  /// `text` elided to `width` in `font` and laid out, made once per text, width and font (a view elides one way).
  const QStaticText& laidOut(const QString& text, int width, const QFont& font, Qt::TextElideMode mode) const;

  mutable QCache<Key, QStaticText> m_texts{kCachedTexts};
  mutable QFont m_font;  // of the cached texts
};

}  // namespace torchir::ui
