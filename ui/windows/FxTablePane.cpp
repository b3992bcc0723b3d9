#include "windows/FxTablePane.h"

#include <QApplication>
#include <QEvent>
#include <QFontDatabase>
#include <QFontMetrics>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QItemSelectionModel>
#include <QLabel>
#include <QLineEdit>
#include <QSortFilterProxyModel>
#include <QStyle>
#include <QTableView>
#include <QVBoxLayout>
#include <algorithm>
#include <limits>
#include <utility>
#include <vector>

#include "panels/CachedTextDelegate.h"
#include "panels/FxTableModel.h"

namespace torchir::ui {

namespace {

// Args of wide ops (convolutions, slices) run to hundreds of characters; past this width a
// column would push the others off screen, and the tooltip shows the rest.
constexpr int kMaxColumnWidth = 420;
// Fitted columns otherwise butt into each other (a long name runs into its target).
constexpr int kColumnPadding = 16;
// A column narrowed to fit print_tabular's five into the view keeps at least this much.
constexpr int kMinFittedWidth = 72;
// Texts measured per column to fit it: the longest ones; a proportional fallback font may make a
// shorter text wider, never by much.
constexpr std::size_t kMeasuredTexts = 8;

/// The widest width `cap` such that the columns, each min(width, cap) wide, fill `available`:
/// the widest columns give way first, and none that fits already is touched.
int fittingCap(std::vector<int> widths, int available) {
  std::sort(widths.begin(), widths.end());
  int used = 0;
  for (std::size_t i = 0; i < widths.size(); ++i) {
    const int left = static_cast<int>(widths.size() - i);
    const int cap = (available - used) / left;
    if (widths[i] > cap) return std::max(cap, kMinFittedWidth);
    used += widths[i];
  }
  return std::numeric_limits<int>::max();
}

}  // namespace

FxTablePane::FxTablePane(QWidget* parent) : QWidget(parent) {
  auto* layout = new QVBoxLayout(this);
  layout->setContentsMargins(0, 0, 0, 0);
  layout->setSpacing(4);

  auto* filterRow = new QHBoxLayout;
  m_filterEdit = new QLineEdit(this);
  m_filterEdit->setObjectName(QStringLiteral("filterEdit"));
  m_filterEdit->setPlaceholderText(tr("Filter nodes (any column)"));
  m_filterEdit->setClearButtonEnabled(true);
  m_filterCountLabel = new QLabel(this);
  m_filterCountLabel->setObjectName(QStringLiteral("filterCountLabel"));
  filterRow->addWidget(m_filterEdit, 1);
  filterRow->addWidget(m_filterCountLabel);
  layout->addLayout(filterRow);

  m_model = new FxTableModel(this);
  // Sorting and filtering go through a proxy model, which keeps a mapping of every row and
  // re-filters every changed row: 4 ms of the window's time when a 100k-node program's 170k rows
  // arrive, and more on each run update. It stands between the table and the model only while the
  // user sorts or filters.
  m_filterModel = new QSortFilterProxyModel(this);
  m_filterModel->setFilterKeyColumn(-1);  // match any column
  m_filterModel->setFilterCaseSensitivity(Qt::CaseInsensitive);
  m_filterModel->setSortRole(FxTableModel::kSortRole);
  m_filterModel->sort(-1);  // graph order until a column is asked for

  m_view = new QTableView(this);
  m_view->setObjectName(QStringLiteral("fxTable"));
  m_view->setModel(m_model);
  m_view->setSortingEnabled(true);
  m_view->horizontalHeader()->setSortIndicator(-1, Qt::AscendingOrder);  // graph order until asked
  for (int c = FxTableModel::kFirstMetricColumn; c < FxTableModel::ColumnCount; ++c) m_view->setColumnHidden(c, true);
  m_view->setSelectionBehavior(QAbstractItemView::SelectRows);
  m_view->setSelectionMode(QAbstractItemView::SingleSelection);
  m_view->setEditTriggers(QAbstractItemView::NoEditTriggers);
  m_view->setAlternatingRowColors(true);
  m_view->setShowGrid(false);
  m_view->setWordWrap(false);
  m_view->setItemDelegate(new CachedTextDelegate(m_view));
  m_view->setHorizontalScrollMode(QAbstractItemView::ScrollPerPixel);
  // Names, targets and args are code; a fixed-width font keeps them as print_tabular shows them.
  m_view->setFont(QFontDatabase::systemFont(QFontDatabase::FixedFont));
  m_view->horizontalHeader()->setFont(font());
  m_view->horizontalHeader()->setDefaultAlignment(Qt::AlignLeft | Qt::AlignVCenter);
  m_view->horizontalHeader()->setHighlightSections(false);
  m_view->horizontalHeader()->setStretchLastSection(true);
  // Fitting columns to every row of a 30k-node table takes the GUI thread ~40 ms; a few hundred
  // rows give the same widths, which are capped anyway.
  m_view->horizontalHeader()->setResizeContentsPrecision(200);
  m_view->verticalHeader()->setDefaultSectionSize(m_view->fontMetrics().height() + 6);
  m_view->verticalHeader()->setSectionResizeMode(QHeaderView::Fixed);
  m_view->verticalHeader()->setDefaultAlignment(Qt::AlignRight | Qt::AlignVCenter);
  layout->addWidget(m_view, 1);

  connect(m_filterEdit, &QLineEdit::textChanged, this, &FxTablePane::applyFilter);
  for (QAbstractItemModel* model :
       {static_cast<QAbstractItemModel*>(m_model), static_cast<QAbstractItemModel*>(m_filterModel)}) {
    connect(model, &QAbstractItemModel::modelReset, this, &FxTablePane::updateFilterCount);
    connect(model, &QAbstractItemModel::rowsInserted, this, &FxTablePane::updateFilterCount);
    connect(model, &QAbstractItemModel::rowsRemoved, this, &FxTablePane::updateFilterCount);
  }
  // Connected after the view's own handler, which asks the table's model to sort: the model does
  // not sort itself, so the proxy is put in place and sorts; back in graph order it is taken out.
  connect(m_view->horizontalHeader(), &QHeaderView::sortIndicatorChanged, this,
          [this](int column, Qt::SortOrder order) {
            if (column < 0) {  // graph order
              useProxy(!m_filterEdit->text().isEmpty());
              return;
            }
            useProxy(true);
            m_filterModel->sort(column, order);
          });
  connectSelection();
  updateFilterCount();
  // the columns follow the pane's width until the user sizes one
  m_view->viewport()->installEventFilter(this);
  connect(m_view->horizontalHeader(), &QHeaderView::sectionResized, this, [this](int column) {
    if (!m_fitting && column < FxTableModel::kFxColumnCount && !m_fittedWidths.empty() && m_view->isVisible() &&
        QApplication::mouseButtons() != Qt::NoButton)
      m_sizedByHand = true;
  });
}

void FxTablePane::setRows(std::shared_ptr<const FxCells> cells) {
  m_model->setRows(std::move(cells));
  sizeColumns();
}

bool FxTablePane::usesProxy() const { return m_view->model() == m_filterModel; }

void FxTablePane::useProxy(bool use) {
  if (use == usesProxy()) return;
  const QModelIndex current = toModel(m_view->currentIndex());
  // A new model resets the header's sections: their widths, order and hidden columns are the
  // user's and the comparison's, kept across.
  const QByteArray columns = m_view->horizontalHeader()->saveState();
  QItemSelectionModel* replaced = m_view->selectionModel();
  m_filterModel->setSourceModel(use ? m_model : nullptr);  // unhooked, it follows no changes
  m_view->setModel(use ? static_cast<QAbstractItemModel*>(m_filterModel) : m_model);
  delete replaced;  // setModel made a new one and left the old to its caller
  m_view->horizontalHeader()->restoreState(columns);
  connectSelection();
  if (current.isValid()) {
    m_selecting = true;
    m_view->selectionModel()->setCurrentIndex(toView(current),
                                              QItemSelectionModel::ClearAndSelect | QItemSelectionModel::Rows);
    m_selecting = false;
  }
  updateFilterCount();
}

void FxTablePane::connectSelection() {
  connect(m_view->selectionModel(), &QItemSelectionModel::currentRowChanged, this, &FxTablePane::onCurrentRowChanged,
          Qt::UniqueConnection);
}

QModelIndex FxTablePane::toView(const QModelIndex& modelIndex) const {
  return usesProxy() ? m_filterModel->mapFromSource(modelIndex) : modelIndex;
}

QModelIndex FxTablePane::toModel(const QModelIndex& viewIndex) const {
  return usesProxy() ? m_filterModel->mapToSource(viewIndex) : viewIndex;
}

void FxTablePane::selectNode(torchir::NodeId node) {
  const QModelIndex source = m_model->index(node, 0);
  if (!source.isValid()) return;
  QModelIndex shown = toView(source);
  if (!shown.isValid()) {  // filtered out: the user asked to see this node, so show it
    m_filterEdit->clear();
    shown = toView(source);
  }
  m_selecting = true;
  m_view->selectionModel()->setCurrentIndex(shown, QItemSelectionModel::ClearAndSelect | QItemSelectionModel::Rows);
  m_selecting = false;
  m_view->scrollTo(shown, QAbstractItemView::EnsureVisible);
}

void FxTablePane::showNode(torchir::NodeId node) {
  const QModelIndex shown = toView(m_model->index(node, 0));
  if (shown.isValid()) m_view->scrollTo(shown, QAbstractItemView::PositionAtCenter);
}

void FxTablePane::onCurrentRowChanged() {
  if (m_selecting) return;
  const QModelIndex source = toModel(m_view->currentIndex());
  if (source.isValid()) Q_EMIT nodeSelected(source.row());
}

void FxTablePane::applyFilter(const QString& text) {
  // Graph order and no filter: the table shows the model itself again.
  useProxy(!text.isEmpty() || m_view->horizontalHeader()->sortIndicatorSection() >= 0);
  m_filterModel->setFilterFixedString(text);
  updateFilterCount();
}

void FxTablePane::updateFilterCount() {
  const int shown = m_view->model()->rowCount();
  const int total = m_model->rowCount();
  if (shown == total) {
    m_filterCountLabel->setText(total == 1 ? tr("1 node") : tr("%1 nodes").arg(total));
  } else {
    m_filterCountLabel->setText(tr("%1 of %2 nodes").arg(shown).arg(total));
  }
}

void FxTablePane::sizeColumns() {
  // Once per load rather than ResizeToContents: that re-measures on every scroll and filter. The
  // cells' text is measured here: the view's resizeColumnsToContents asks the delegate for a
  // size hint per cell, 3.5 ms of the window's time as a program opens.
  QHeaderView* header = m_view->horizontalHeader();
  const QFontMetrics metrics = m_view->fontMetrics();
  const int margins = 2 * (m_view->style()->pixelMetric(QStyle::PM_FocusFrameHMargin, nullptr, m_view) + 1);
  const int rows = std::min(m_model->rowCount(), header->resizeContentsPrecision());
  std::vector<QString> texts;
  for (int column = 0; column < m_model->columnCount() - 1; ++column) {
    int width = header->sectionSizeHint(column);
    if (column < FxTableModel::kFxColumnCount) {
      // Measuring text shapes it (the most of this function's time): only the longest few texts
      // are, which in the table's fixed-width font are the widest.
      texts.clear();
      for (int row = 0; row < rows; ++row) texts.push_back(m_model->cellText(row, column));
      const auto longest = std::min<std::size_t>(texts.size(), kMeasuredTexts);
      std::partial_sort(texts.begin(), texts.begin() + static_cast<std::ptrdiff_t>(longest), texts.end(),
                        [](const QString& a, const QString& b) { return a.size() > b.size(); });
      for (std::size_t i = 0; i < longest; ++i) width = std::max(width, metrics.horizontalAdvance(texts[i]) + margins);
    }
    header->resizeSection(column, std::min(width + kColumnPadding, kMaxColumnWidth));
  }
  m_fittedWidths.clear();
  for (int column = 0; column < FxTableModel::kFxColumnCount; ++column)
    m_fittedWidths.push_back(header->sectionSize(column));
  m_sizedByHand = false;
  fitColumnsToView();
}

void FxTablePane::fitColumnsToView() {
  // print_tabular's columns (opcode, name, target, args, kwargs) share the view's width, the
  // widest giving way (their text is elided, whole in the tooltip); the run's columns follow.
  const int available = m_view->viewport()->width();
  if (available <= 0 || m_sizedByHand || m_fittedWidths.empty()) return;
  const int cap = fittingCap(m_fittedWidths, available);
  m_fitting = true;
  for (int column = 0; column < static_cast<int>(m_fittedWidths.size()); ++column)
    m_view->horizontalHeader()->resizeSection(column, std::min(m_fittedWidths[static_cast<std::size_t>(column)], cap));
  m_fitting = false;
}

bool FxTablePane::eventFilter(QObject* watched, QEvent* event) {
  if (watched == m_view->viewport() && event->type() == QEvent::Resize) fitColumnsToView();
  return QWidget::eventFilter(watched, event);
}

void FxTablePane::sortByWorst() {
  if (!m_model->comparison()) return;
  m_view->sortByColumn(FxTableModel::MaxRel, Qt::DescendingOrder);
  const QModelIndex top = m_view->model()->index(0, 0);
  if (!top.isValid()) return;
  const torchir::NodeId worst = toModel(top).row();
  selectNode(worst);
  Q_EMIT nodeSelected(worst);  // the window's other views follow, as for a click
}

void FxTablePane::setComparison(ComparisonPtr comparison) {
  // a quantized program's columns only where they say something: own SQNR (of its layers), the gain
  // of each kept in float (once measured)
  auto shows = [&comparison](int column) {
    if (!comparison) return false;
    if (column == FxTableModel::OwnSqnr) return comparison->quantized;
    if (column == FxTableModel::SensitivityGain) return comparison->sensitivity != nullptr;
    if (column == FxTableModel::DeviceMs) return comparison->device;
    return true;
  };
  std::vector<bool> shown;
  for (int c = FxTableModel::kFirstMetricColumn; c < FxTableModel::ColumnCount; ++c) shown.push_back(shows(c));
  m_model->setComparison(std::move(comparison));
  QHeaderView* header = m_view->horizontalHeader();
  // As wide as the widest text a metric has ("%.3g"), not measured over rows: sampling a few
  // hundred rows of each column took the window 3 ms at the end of a comparison.
  const int metricWidth = m_view->fontMetrics().horizontalAdvance(QStringLiteral("-8.88e-888")) + kColumnPadding;
  for (int c = FxTableModel::kFirstMetricColumn; c < FxTableModel::ColumnCount; ++c) {
    const bool show = shown[static_cast<std::size_t>(c - FxTableModel::kFirstMetricColumn)];
    m_view->setColumnHidden(c, !show);
    if (!show) continue;
    // Next to the names: a comparison is read by node and metric, the calls' text after them.
    header->moveSection(header->visualIndex(c), header->visualIndex(FxTableModel::Name) + 1 + (c - FxTableModel::kFirstMetricColumn));
    header->resizeSection(c, std::max(metricWidth, header->sectionSizeHint(c)));
  }
}

}  // namespace torchir::ui
