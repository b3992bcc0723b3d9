#pragma once
#include <QCache>
#include <QHash>
#include <QRect>
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

  /// What decides where a style puts a table cell's text within the cell (not the text itself).
  struct Placement {
    QSize cell;
    int features;
    QSize decoration;
    int decorationPosition;
    int direction;
    int alignment;
    int state;
    bool operator==(const Placement& o) const {
      return cell == o.cell && features == o.features && decoration == o.decoration &&
             decorationPosition == o.decorationPosition && direction == o.direction && alignment == o.alignment &&
             state == o.state;
    }
    friend size_t qHash(const Placement& p, size_t seed = 0) {
      return qHashMulti(seed, p.cell.width(), p.cell.height(), p.features, p.decoration.width(),
                        p.decoration.height(), p.decorationPosition, p.direction, p.alignment, p.state);
    }
  };
  /// Where the style puts `text` in `opt`'s cell. In a table's cell that does not depend on the
  /// text: laid out once per placement (a table has a few: its columns' widths by its row height)
  /// and kept relative to the cell.
  QRect textArea(const QStyleOptionViewItem& opt, const QString& text, const QStyle* style) const;

  /// Empties the caches when the view's font or style is not the one they were made with.
  void forgetIfChanged(const QFont& font, const QStyle* style) const;

  mutable QCache<Key, QStaticText> m_texts{kCachedTexts};
  mutable QHash<Placement, QRect> m_areas;
  mutable QFont m_font;  // of the cached texts and areas
  mutable const QStyle* m_style = nullptr;
};

}  // namespace torchir::ui
