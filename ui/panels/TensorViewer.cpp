#include "panels/TensorViewer.h"

#include <QAction>
#include <QClipboard>
#include <QComboBox>
#include <QFileDialog>
#include <QFutureWatcher>
#include <QGuiApplication>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QMessageBox>
#include <QPushButton>
#include <QRegularExpression>
#include <QSignalBlocker>
#include <QSpinBox>
#include <QTabWidget>
#include <QTableView>
#include <QVBoxLayout>
#include <QtConcurrent/QtConcurrentRun>
#include <cmath>
#include <exception>

#include "panels/ControlStrip.h"
#include "panels/ShapeText.h"
#include "panels/TensorPlots.h"
#include "panels/TensorSliceModel.h"
#include "formats/Safetensors.h"
#include "session/BackgroundPool.h"

namespace torchir::ui {

namespace {


QString statsText(const TensorStats& s) {
  QString text = QStringLiteral("min %1   max %2   mean %3   std %4   numel %5")
                     .arg(numberText(s.min), numberText(s.max), numberText(s.mean), numberText(s.std))
                     .arg(s.numel);
  text += QStringLiteral("   zeros %1").arg(s.zeroCount);
  if (s.nanCount) text += QStringLiteral("   NaN %1").arg(s.nanCount);
  if (s.infCount) text += QStringLiteral("   Inf %1").arg(s.infCount);
  return text;
}

}  // namespace

TensorViewer::TensorViewer(QWidget* parent) : QWidget(parent), m_slice(new TensorSliceModel(this)) {
  m_title = new QLabel(this);
  m_title->setObjectName(QStringLiteral("tensorTitle"));
  m_title->setTextInteractionFlags(Qt::TextSelectableByMouse);
  m_title->setWordWrap(true);  // a long node name takes a second line, not the dock's width
  m_statsLabel = new QLabel(this);
  m_statsLabel->setObjectName(QStringLiteral("tensorStats"));
  m_statsLabel->setTextInteractionFlags(Qt::TextSelectableByMouse);
  m_statsLabel->setWordWrap(true);
  m_quantLabel = new QLabel(this);
  m_quantLabel->setObjectName(QStringLiteral("tensorQuantization"));
  m_quantLabel->setTextInteractionFlags(Qt::TextSelectableByMouse);
  m_quantLabel->hide();

  m_rowAxis = new QComboBox(this);
  m_rowAxis->setObjectName(QStringLiteral("rowAxis"));
  m_colAxis = new QComboBox(this);
  m_colAxis->setObjectName(QStringLiteral("colAxis"));
  m_indexBar = new QWidget(this);
  auto* indexLayout = new QHBoxLayout(m_indexBar);
  indexLayout->setContentsMargins(0, 0, 0, 0);
  connect(m_rowAxis, &QComboBox::currentIndexChanged, this, &TensorViewer::axesChosen);
  connect(m_colAxis, &QComboBox::currentIndexChanged, this, &TensorViewer::axesChosen);

  m_copy = new QPushButton(tr("Copy"), this);
  m_copy->setObjectName(QStringLiteral("copyButton"));
  m_copy->setToolTip(tr("Copy the slice as tab-separated values (Ctrl+C)"));
  connect(m_copy, &QPushButton::clicked, this, &TensorViewer::copySlice);
  m_save = new QPushButton(tr("Save…"), this);
  m_save->setObjectName(QStringLiteral("saveButton"));
  m_save->setToolTip(tr("Save the whole tensor as .safetensors"));
  connect(m_save, &QPushButton::clicked, this, &TensorViewer::saveWithDialog);

  m_side = new QComboBox(this);
  m_side->setObjectName(QStringLiteral("tensorSide"));
  m_side->addItems({tr("this run"), tr("reference"), tr("this run − reference")});
  m_side->hide();
  connect(m_side, &QComboBox::activated, this, &TensorViewer::sideChosen);

  auto* axesRow = new QWidget;
  auto* axes = new QHBoxLayout(axesRow);
  axes->setContentsMargins(0, 0, 0, 0);
  axes->addWidget(m_side);
  axes->addWidget(new QLabel(tr("Rows"), this));
  axes->addWidget(m_rowAxis);
  axes->addWidget(new QLabel(tr("Columns"), this));
  axes->addWidget(m_colAxis);
  axes->addWidget(m_indexBar);
  axes->addStretch(1);
  axes->addWidget(m_copy);
  axes->addWidget(m_save);

  m_grid = new QTableView(this);
  m_grid->setObjectName(QStringLiteral("tensorGrid"));
  m_grid->setModel(m_slice);
  m_grid->horizontalHeader()->setDefaultSectionSize(80);
  m_grid->verticalHeader()->setDefaultSectionSize(m_grid->fontMetrics().height() + 4);
  m_heatmap = new HeatmapWidget(this);
  m_heatmap->setObjectName(QStringLiteral("tensorHeatmap"));
  m_histogram = new HistogramWidget(this);
  m_histogram->setObjectName(QStringLiteral("tensorHistogram"));
  m_tabs = new QTabWidget(this);
  m_tabs->setObjectName(QStringLiteral("tensorTabs"));
  m_tabs->addTab(m_grid, tr("Grid"));
  m_tabs->addTab(m_heatmap, tr("Heatmap"));
  m_tabs->addTab(m_histogram, tr("Histogram"));
  // The heatmap is drawn only when someone looks at it: slices can be large.
  connect(m_tabs, &QTabWidget::currentChanged, this, &TensorViewer::refreshHeatmap);

  auto* copy = new QAction(tr("Copy slice"), this);
  copy->setShortcut(QKeySequence::Copy);
  copy->setShortcutContext(Qt::WidgetWithChildrenShortcut);
  connect(copy, &QAction::triggered, this, &TensorViewer::copySlice);
  addAction(copy);

  auto* layout = new QVBoxLayout(this);
  layout->setContentsMargins(4, 4, 4, 4);
  layout->addWidget(m_title);
  layout->addWidget(m_statsLabel);
  layout->addWidget(m_quantLabel);
  // A 4-D tensor compared with its reference has more controls than a dock is wide: they scroll.
  layout->addWidget(new ControlStrip(axesRow, this));
  layout->addWidget(m_tabs, 1);
  clear();
  // As wide as its controls with no tensor shown, which is where its dock starts; a tensor with
  // more controls (a compared side, index boxes) scrolls them instead of widening the dock.
  const QMargins margins = layout->contentsMargins();
  setMinimumWidth(margins.left() + axesRow->minimumSizeHint().width() + margins.right());
}

void TensorViewer::setTensor(const QString& title, const torchir::TensorData& tensor,
                             std::optional<torchir::Dequantization> dequantization) {
  m_compared.clear();
  m_side->hide();
  display(title, tensor, std::move(dequantization));
}

void TensorViewer::setCompared(const QString& title, const torchir::TensorData& run, const torchir::TensorData& reference,
                               const torchir::TensorData& difference, std::optional<torchir::Dequantization> dequantization) {
  m_compared = {run, reference, difference};
  m_comparedDequantization = std::move(dequantization);
  m_comparedTitle = title;
  m_side->setCurrentIndex(Difference);
  m_side->show();
  sideChosen();
}

int TensorViewer::comparedSide() const { return m_compared.empty() ? -1 : m_side->currentIndex(); }

void TensorViewer::sideChosen() {
  const int side = m_side->currentIndex();
  if (m_compared.empty() || side < 0) return;
  static const char* const kSuffix[] = {"", " (reference)", " (this run − reference)"};
  display(m_comparedTitle + QString::fromUtf8(kSuffix[side]), m_compared[static_cast<std::size_t>(side)],
          side == Difference ? std::nullopt : m_comparedDequantization);
}

void TensorViewer::display(const QString& title, const torchir::TensorData& tensor,
                           std::optional<torchir::Dequantization> dequantization) {
  // The same shape keeps the slice and its selector widgets: rebuilding them was most of what a
  // step cost this panel.
  const bool sameShape = m_hasTensor && m_slice->tensor().sizes == tensor.sizes;
  ++m_generation;
  m_titleText = title;
  m_hasTensor = true;
  m_statsReady = false;
  m_stats = {};
  m_title->setText(QStringLiteral("<b>%1</b> &nbsp;%2%3")
                       .arg(title.toHtmlEscaped(), QLatin1String(torchir::dtypeName(tensor.dtype).data()),
                            sizesText(tensor.sizes)));
  m_dequantization = torchir::isIntegral(tensor.dtype) ? std::move(dequantization) : std::nullopt;
  m_quantLabel->hide();
  m_slice->setTensor(tensor, m_dequantization);
  // a code beside its real number needs the room: `137 (1.4531)`
  m_grid->horizontalHeader()->setDefaultSectionSize(m_dequantization ? 130 : 80);
  m_histogram->clear();
  m_copy->setEnabled(true);
  m_save->setEnabled(true);
  m_tabs->setEnabled(true);
  if (!sameShape) rebuildAxes();
  sliceChanged();

  if (!tensor.hasData()) {
    m_statsLabel->setText(tr("No data: the tensor's bytes are not loaded (meta export or missing file)."));
    return;
  }
  m_statsLabel->setText(tr("Computing statistics…"));
  const quint64 generation = m_generation;
  auto* watcher = new QFutureWatcher<StatsResult>(this);
  connect(watcher, &QFutureWatcher<StatsResult>::finished, this, [this, watcher, generation] {
    applyStats(generation, watcher->result());
    watcher->deleteLater();
  });
  // The copy shares the storage, which is immutable: the worker reads it without locks.
  watcher->setFuture(QtConcurrent::run(backgroundPool(), &TensorViewer::computeStats, tensor, m_dequantization));
}

TensorViewer::StatsResult TensorViewer::computeStats(const torchir::TensorData& tensor,
                                                     std::optional<torchir::Dequantization> dequantization) {
  StatsResult result;
  try {
    result.stats = computeTensorStats(tensor);
    result.histogramLo = result.stats.min;
    result.histogramHi = result.stats.max;
    int bins = kHistogramBins;
    if (dequantization && dequantization->quantMax > dequantization->quantMin) {
      // codes over the whole quant range, one bin per code up to 256: where they pile up at the ends
      const int64_t range = dequantization->quantMax - dequantization->quantMin;
      result.histogramLo = static_cast<double>(dequantization->quantMin);
      result.histogramHi = static_cast<double>(dequantization->quantMax);
      bins = static_cast<int>(std::min<int64_t>(range + 1, 256));
      result.atQuantMin = tensorCount(tensor, result.histogramLo);
      result.atQuantMax = tensorCount(tensor, result.histogramHi);
    }
    if (result.stats.finiteCount > 0)
      result.histogram = tensorHistogram(tensor, bins, result.histogramLo, result.histogramHi);
  } catch (const std::exception& e) {
    result.error = QString::fromStdString(e.what());
  }
  return result;
}

void TensorViewer::applyStats(quint64 generation, const StatsResult& result) {
  if (generation != m_generation) return;  // a newer tensor is on screen
  if (!result.error.isEmpty()) {
    m_statsLabel->setText(tr("No statistics: %1").arg(result.error));
    return;
  }
  m_stats = result.stats;
  m_statsReady = true;
  m_statsLabel->setText(statsText(m_stats));
  if (const auto& d = m_dequantization) {
    const auto percent = [&](int64_t n) { return m_stats.numel ? 100.0 * double(n) / double(m_stats.numel) : 0.0; };
    QString text = tr("codes in [%1, %2]: at quant_min %3 (%4%)   at quant_max %5 (%6%)   ")
                .arg(d->quantMin)
                .arg(d->quantMax)
                .arg(result.atQuantMin)
                .arg(percent(result.atQuantMin), 0, 'f', 2)
                .arg(result.atQuantMax)
                .arg(percent(result.atQuantMax), 0, 'f', 2);
    text += d->axis < 0 ? tr("scale %1   zero point %2").arg(numberText(d->scales.at(0))).arg(d->zeroPoints.at(0))
                        : tr("per channel along dim %1 (%2 scales)").arg(d->axis).arg(d->scales.size());
    m_quantLabel->setText(text);
    m_quantLabel->show();
  }
  m_histogram->setData(result.histogram, result.histogramLo, result.histogramHi, m_stats.nanCount, m_stats.infCount);
  Q_EMIT statsComputed(m_titleText);
}

void TensorViewer::setUnavailable(const QString& why) {
  clear();
  m_statsLabel->setText(why);
}

void TensorViewer::clear() {
  ++m_generation;
  m_compared.clear();
  m_side->hide();
  m_titleText.clear();
  m_hasTensor = false;
  m_statsReady = false;
  m_stats = {};
  m_dequantization.reset();
  m_quantLabel->hide();
  m_title->setText(tr("No tensor"));
  m_statsLabel->clear();
  m_slice->clear();
  m_heatmap->clear();
  m_histogram->clear();
  m_copy->setEnabled(false);
  m_save->setEnabled(false);
  m_tabs->setEnabled(false);
  rebuildAxes();
}

void TensorViewer::rebuildAxes() {
  const auto& sizes = m_slice->tensor().sizes;
  const int rank = m_hasTensor ? static_cast<int>(sizes.size()) : 0;
  {
    const QSignalBlocker rowBlock(m_rowAxis), colBlock(m_colAxis);
    m_rowAxis->clear();
    m_colAxis->clear();
    for (int d = 0; d < rank; ++d) {
      const QString item = tr("dim %1 (%2)").arg(d).arg(sizes[static_cast<std::size_t>(d)]);
      m_rowAxis->addItem(item, d);
      m_colAxis->addItem(item, d);
    }
    m_rowAxis->setCurrentIndex(m_slice->rowDim());
    m_colAxis->setCurrentIndex(m_slice->colDim());
  }
  // Below 2-D there is no choice to make.
  m_rowAxis->setEnabled(rank >= 2);
  m_colAxis->setEnabled(rank >= 2);

  for (QSpinBox* spin : m_indexSpins) delete spin;
  m_indexSpins.assign(static_cast<std::size_t>(rank), nullptr);
  for (int d = 0; d < rank; ++d) {
    if (d == m_slice->rowDim() || d == m_slice->colDim()) continue;
    auto* spin = new QSpinBox(m_indexBar);
    spin->setObjectName(QStringLiteral("index%1").arg(d));
    spin->setPrefix(tr("dim %1: ").arg(d));
    spin->setRange(0, static_cast<int>(std::max<int64_t>(sizes[static_cast<std::size_t>(d)] - 1, 0)));
    spin->setValue(static_cast<int>(m_slice->indexOf(d)));
    connect(spin, &QSpinBox::valueChanged, this, &TensorViewer::indexChosen);
    m_indexBar->layout()->addWidget(spin);
    m_indexSpins[static_cast<std::size_t>(d)] = spin;
  }
}

void TensorViewer::axesChosen() {
  int row = m_rowAxis->currentIndex(), col = m_colAxis->currentIndex();
  if (row < 0 || col < 0) return;
  // Choosing the other axis's dim swaps the two, so the pair stays valid.
  if (row == col) {
    if (sender() == m_rowAxis) col = m_slice->rowDim();
    else row = m_slice->colDim();
  }
  m_slice->setAxes(row, col);
  rebuildAxes();
  sliceChanged();
}

void TensorViewer::indexChosen() {
  for (std::size_t d = 0; d < m_indexSpins.size(); ++d)
    if (m_indexSpins[d]) m_slice->setIndex(static_cast<int>(d), m_indexSpins[d]->value());
  sliceChanged();
}

void TensorViewer::sliceChanged() {
  m_heatmapDirty = true;
  refreshHeatmap();
}

void TensorViewer::refreshHeatmap() {
  if (!m_heatmapDirty || m_tabs->currentWidget() != m_heatmap) return;
  m_heatmapDirty = false;
  m_heatmap->showSlice(*m_slice);
}

void TensorViewer::copySlice() {
  if (!m_hasTensor) return;
  QGuiApplication::clipboard()->setText(m_slice->sliceAsTsv());
}

bool TensorViewer::saveTo(const QString& path, QString* error) {
  auto fail = [error](const QString& why) {
    if (error) *error = why;
    return false;
  };
  if (!m_hasTensor) return fail(tr("No tensor to save."));
  if (!m_slice->tensor().hasData()) return fail(tr("The tensor has no data to save."));
  const QString name = m_titleText.isEmpty() ? QStringLiteral("tensor") : m_titleText;
  try {
    torchir::writeSafetensors(path.toStdString(), {{name.toStdString(), m_slice->tensor()}});
  } catch (const std::exception& e) {
    return fail(QString::fromStdString(e.what()));
  }
  return true;
}

void TensorViewer::saveWithDialog() {
  QString suggested = m_titleText;
  suggested.replace(QRegularExpression(QStringLiteral("[^A-Za-z0-9_.-]")), QStringLiteral("_"));
  const QString path = QFileDialog::getSaveFileName(this, tr("Save tensor"), suggested + QStringLiteral(".safetensors"),
                                                    tr("safetensors (*.safetensors)"));
  if (path.isEmpty()) return;
  QString error;
  if (!saveTo(path, &error)) QMessageBox::warning(this, tr("Save tensor"), error);
}

}  // namespace torchir::ui
