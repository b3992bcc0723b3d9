// CachedTextDelegate paints a table as Qt's own delegate does: each cell's text (short, elided,
// right-aligned, coloured, selected, beside an icon) covers the same pixels, and again after the
// texts change. Glyphs may be rasterised a shade apart (a laid-out text is drawn whole, Qt's
// delegate draws line by line), so cells are compared by where their text's ink lies.
#include <QPainter>
#include <QPixmap>
#include <QStandardItemModel>
#include <QStyledItemDelegate>
#include <QTableView>
#include <QtTest>

#include "panels/CachedTextDelegate.h"

using torchir::ui::CachedTextDelegate;

namespace {

QIcon dot() {
  QPixmap pixmap(10, 10);
  pixmap.fill(Qt::transparent);
  QPainter p(&pixmap);
  p.setBrush(Qt::red);
  p.drawEllipse(1, 1, 8, 8);
  return QIcon(pixmap);
}

void fill(QStandardItemModel& model, const QString& suffix) {
  model.removeRows(0, model.rowCount());
  for (int row = 0; row < 12; ++row) {
    QList<QStandardItem*> items;
    items << new QStandardItem(QStringLiteral("call_function") + suffix);
    // an op's args: far wider than the column, elided
    items << new QStandardItem(QStringLiteral("(conv2d_%1, [1, 64, 56, 56], ").arg(row).repeated(40) + suffix);
    auto* time = new QStandardItem(QString::number(row * 12.5, 'f', 1));
    time->setTextAlignment(Qt::AlignRight | Qt::AlignVCenter);
    items << time;
    auto* status = new QStandardItem(row % 3 == 0 ? QStringLiteral("done, bookmark 1") : QStringLiteral("not run"));
    if (row % 4 == 1) status->setIcon(dot());
    if (row % 5 == 2) status->setForeground(QColor(0x7b, 0x1f, 0xa2));
    items << status;
    model.appendRow(items);
  }
}

/// Per cell: the box around its dark pixels (text, icon) and how many there are, in the viewport.
struct Ink {
  QRect box;
  int pixels = 0;
};

struct Table {
  QStandardItemModel model;
  QTableView view;
  explicit Table(QAbstractItemDelegate* delegate) {
    delegate->setParent(&view);  // the view does not own its delegate
    view.setItemDelegate(delegate);
    view.setModel(&model);
    model.setColumnCount(4);
    view.resize(640, 360);
    view.setWordWrap(false);
    view.setColumnWidth(0, 90);  // "call_function" elided too
    view.setColumnWidth(1, 260);
    view.setColumnWidth(2, 70);
    view.setColumnWidth(3, 150);
  }
  QImage shown() {
    view.selectRow(4);
    return view.viewport()->grab().toImage();
  }
  /// Every visible cell's ink, row by row.
  QList<Ink> ink() {
    const QImage image = shown().convertToFormat(QImage::Format_RGB32);
    QList<Ink> cells;
    for (int row = 0; row < model.rowCount(); ++row)
      for (int column = 0; column < model.columnCount(); ++column) {
        const QRect cell = view.visualRect(model.index(row, column)) & image.rect();
        Ink ink;
        for (int y = cell.top(); y <= cell.bottom(); ++y)
          for (int x = cell.left(); x <= cell.right(); ++x)
            if (qGray(image.pixel(x, y)) < 100) {
              ink.box |= QRect(x, y, 1, 1);
              ++ink.pixels;
            }
        cells << ink;
      }
    return cells;
  }
};

/// The same ink, cell by cell; `say` names the first cell apart in a warning.
bool sameInk(const QList<Ink>& a, const QList<Ink>& b, bool say = true) {
  if (a.size() != b.size()) return false;
  for (qsizetype i = 0; i < a.size(); ++i) {
    const int apart = std::abs(a[i].pixels - b[i].pixels);
    // a pixel's shade either side of the threshold moves an edge by one
    const QRect& x = a[i].box;
    const QRect& y = b[i].box;
    const bool near = std::abs(x.left() - y.left()) <= 1 && std::abs(x.right() - y.right()) <= 1 &&
                      std::abs(x.top() - y.top()) <= 1 && std::abs(x.bottom() - y.bottom()) <= 1;
    if (!near || apart > std::max(3, a[i].pixels / 6)) {
      if (say)
        qWarning("cell %lld: ink %d,%d %dx%d (%d pixels) against %d,%d %dx%d (%d)", static_cast<long long>(i),
                 a[i].box.x(), a[i].box.y(), a[i].box.width(), a[i].box.height(), a[i].pixels, b[i].box.x(),
                 b[i].box.y(), b[i].box.width(), b[i].box.height(), b[i].pixels);
      return false;
    }
  }
  return true;
}

/// A table view whose cell options a test can take, as the view makes them for its paint.
struct OptionsView : QTableView {
  QStyleOptionViewItem optionFor(const QModelIndex& index) const {
    QStyleOptionViewItem option;
    initViewItemOption(&option);
    option.rect = visualRect(index);
    return option;
  }
};

/// One cell painted by `delegate` with `option` on white: the whole picture, pixel for pixel.
QImage paintCell(const QAbstractItemDelegate& delegate, const QStyleOptionViewItem& option, const QModelIndex& index) {
  QImage image(option.rect.size() + QSize(2, 2), QImage::Format_ARGB32_Premultiplied);
  image.fill(Qt::white);
  QPainter painter(&image);
  delegate.paint(&painter, option, index);
  return image;
}

}  // namespace

class TestCachedTextDelegate : public QObject {
  Q_OBJECT

 private Q_SLOTS:
  void paintsWhatQtsDelegatePaints() {
    Table qt(new QStyledItemDelegate);
    Table cached(new CachedTextDelegate);
    fill(qt.model, {});
    fill(cached.model, {});
    const QList<Ink> expected = qt.ink();
    QVERIFY(sameInk(cached.ink(), expected));
    QVERIFY(sameInk(cached.ink(), expected));  // painted again from the cache

    // New texts are laid out anew, not taken for the old ones.
    fill(qt.model, QStringLiteral("x"));
    fill(cached.model, QStringLiteral("x"));
    const QList<Ink> changed = qt.ink();
    QVERIFY(!sameInk(changed, expected, false));
    QVERIFY(sameInk(cached.ink(), changed));

    // A cell that gains an icon moves its text, though cells of its size were placed before.
    qt.model.item(0, 3)->setIcon(dot());
    cached.model.item(0, 3)->setIcon(dot());
    QVERIFY(sameInk(cached.ink(), qt.ink()));

    // A wider column shows more of each text.
    qt.view.setColumnWidth(1, 400);
    cached.view.setColumnWidth(1, 400);
    QVERIFY(sameInk(cached.ink(), qt.ink()));
  }

  // What is not text (background brushes, selection, the focus frame, icons) is Qt's own
  // delegate's to the pixel, in every state a cell is painted in. The texts are drawn in a
  // transparent pen, so the pictures differ only if a cell's background or frame does.
  void everythingButTheTextIsQtsToThePixel() {
    QStandardItemModel model(2, 2);
    OptionsView view;
    view.setModel(&model);
    view.setAlternatingRowColors(true);
    view.setColumnWidth(0, 160);
    view.setColumnWidth(1, 60);
    for (int row = 0; row < 2; ++row)
      for (int column = 0; column < 2; ++column) {
        auto* item = new QStandardItem(QStringLiteral("aten.convolution.default, (x, w)").repeated(row + 1));
        item->setForeground(Qt::transparent);
        if (column == 1) item->setBackground(QColor(0xff, 0xe0, 0xb2));
        if (row == 1 && column == 0) item->setIcon(dot());
        model.setItem(row, column, item);
      }
    const QStyledItemDelegate qt;
    const CachedTextDelegate cached;
    const QStyle::State states[] = {QStyle::State_None, QStyle::State_Selected, QStyle::State_HasFocus,
                                    QStyle::State_Selected | QStyle::State_HasFocus};
    int compared = 0;
    for (int row = 0; row < 2; ++row)
      for (int column = 0; column < 2; ++column)
        for (const QStyle::State state : states)
          for (const bool alternate : {false, true}) {
            const QModelIndex index = model.index(row, column);
            QStyleOptionViewItem option = view.optionFor(index);
            option.rect.moveTo(1, 1);
            option.state |= state;
            option.palette.setColor(QPalette::HighlightedText, Qt::transparent);  // a selected cell's text
            if (alternate) option.features |= QStyleOptionViewItem::Alternate;
            // twice: the second paint places the text from the cache
            for (int paint = 0; paint < 2; ++paint) {
              QCOMPARE(paintCell(cached, option, index), paintCell(qt, option, index));
              ++compared;
            }
          }
    QCOMPARE(compared, 64);
  }
};

QTEST_MAIN(TestCachedTextDelegate)
#include "tst_cachedtextdelegate.moc"
