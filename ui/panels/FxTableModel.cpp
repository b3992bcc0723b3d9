#include "panels/FxTableModel.h"

#include <QBrush>
#include <QColor>
#include <QElapsedTimer>
#include <QImage>
#include <QPainter>
#include <algorithm>
#include <cmath>
#include <iterator>
#include <numeric>
#include <optional>
#include <utility>

#include "panels/ExportComparison.h"
#include "panels/ShapeText.h"
#include "program/QuantOps.h"
#include "quant/LayerSensitivity.h"
#include "session/BackgroundRelease.h"
#include "session/NextTurn.h"

namespace torchir::ui {

namespace {

// Cells longer than this get a tooltip, since the view elides them.
constexpr int kTooltipThreshold = 40;

QString statusText(NodeStatus s) {
  switch (s) {
    case NodeStatus::NotRun: return {};
    case NodeStatus::Current: return QStringLiteral("next");
    case NodeStatus::Executed: return QStringLiteral("done");
    case NodeStatus::Failed: return QStringLiteral("failed");
  }
  return {};
}

QVariant statusTint(NodeStatus s) {
  switch (s) {
    case NodeStatus::NotRun: return {};
    case NodeStatus::Current: return QBrush(QColor(0xff, 0xf1, 0xa8));
    case NodeStatus::Executed: return QBrush(QColor(0xdc, 0xf3, 0xdc));
    case NodeStatus::Failed: return QBrush(QColor(0xf8, 0xcf, 0xcf));
  }
  return {};
}

// A QImage rather than a QPixmap: models also live in GUI-less processes (tests, workers).
const QImage& breakpointDot() {
  static const QImage dot = [] {
    QImage image(12, 12, QImage::Format_ARGB32_Premultiplied);
    image.fill(Qt::transparent);
    QPainter painter(&image);
    painter.setRenderHint(QPainter::Antialiasing);
    painter.setPen(Qt::NoPen);
    painter.setBrush(QColor(0xd0, 0x21, 0x21));
    painter.drawEllipse(QRectF(1, 1, 10, 10));
    return image;
  }();
  return dot;
}

// Whether two records show the same: a node run again with the same outcome keeps its texts.
bool sameOutcome(const torchir::NodeRecord* a, const torchir::NodeRecord* b) {
  if (a == b) return true;
  if (!a || !b || a->microseconds != b->microseconds || a->cached != b->cached || a->outputs.size() != b->outputs.size()) return false;
  for (std::size_t i = 0; i < a->outputs.size(); ++i) {
    const torchir::ValueSummary &x = a->outputs[i], &y = b->outputs[i];
    if (x.kind != y.kind || x.dtype != y.dtype || x.sizes != y.sizes || x.text != y.text) return false;
  }
  return true;
}

}  // namespace

FxTableModel::FxTableModel(QObject* parent) : QAbstractTableModel(parent) {}

void FxTableModel::setRows(const std::vector<torchir::FxRow>& rows) { setRows(toFxCells(rows)); }

void FxTableModel::setRows(FxCells cells) { setRows(std::make_shared<const FxCells>(std::move(cells))); }

void FxTableModel::setRows(std::shared_ptr<const FxCells> cells) {
  beginResetModel();
  // A 100k-node program's rows and records are a quarter of a second of frees.
  releaseInBackground(std::exchange(m_rows, cells ? std::move(cells) : std::make_shared<const FxCells>()));
  destroyInBackground(std::exchange(m_run, RunStates(m_rows->size())));
  // Another program's rows: a comparison describes the rows it was made on (and holds their program).
  releaseInBackground(std::exchange(m_comparison, nullptr));
  m_textsMade = false;
  m_marks = {};
  m_pending.assign(m_rows->size(), 0);
  m_pendingCount = 0;
  m_firstPending = static_cast<int>(m_rows->size());
  endResetModel();
}

void FxTableModel::setExported(std::shared_ptr<const torchir::Program> program) {
  m_exported = std::move(program);
  // The export differences depend on it. A table just given its rows has no texts yet: a 100k-row
  // one is not walked for none.
  if (std::exchange(m_textsMade, false))
    m_run.forEachMade([](const RunState& run) { run.texts.reset(); });
}

void FxTableModel::clear() {
  m_exported.reset();
  m_records = nullptr;
  setRows(nullptr);
}

namespace {

/// The rows whose marks differ between `before` and `after`.
std::vector<int> rowsWithOtherMarks(const ExecutionMarks& before, const ExecutionMarks& after) {
  std::vector<int> rows{before.current, before.failed, after.current, after.failed};
  for (auto [was, is] : {std::pair{&before.breakpoints, &after.breakpoints}, std::pair{&before.patched, &after.patched},
                         std::pair{&before.noted, &after.noted}})
    std::set_symmetric_difference(was->begin(), was->end(), is->begin(), is->end(), std::back_inserter(rows));
  for (const auto* bookmarks : {&before.bookmarks, &after.bookmarks})  // few: every one looked at
    for (const auto& [node, slot] : *bookmarks) rows.push_back(node);
  const std::size_t n = std::max(before.executed.size(), after.executed.size());
  for (std::size_t i = 0; i < n; ++i) {
    const bool was = i < before.executed.size() && before.executed[i];
    const bool is = i < after.executed.size() && after.executed[i];
    if (was != is) rows.push_back(static_cast<int>(i));
  }
  return rows;
}

}  // namespace

void FxTableModel::updateExecution(const ExecutionMarks& marks, const RecordLookup& records,
                                   std::optional<std::pair<int, int>> changedRecords) {
  const int rows = static_cast<int>(m_rows->size());
  auto look = [&](int row) {
    if (row < 0 || row >= rows || m_pending[static_cast<std::size_t>(row)]) return;
    m_pending[static_cast<std::size_t>(row)] = 1;
    ++m_pendingCount;
    m_firstPending = std::min(m_firstPending, row);
  };
  if (changedRecords) {
    for (const int row : rowsWithOtherMarks(m_marks, marks)) look(row);
    for (int row = std::max(0, changedRecords->first); row < std::min(rows, changedRecords->second); ++row) look(row);
  } else {
    for (int row = 0; row < rows; ++row) look(row);
  }
  m_marks = marks;
  m_records = records;
  takePendingRows();
}

void FxTableModel::takePendingRows() {
  QElapsedTimer clock;
  clock.start();
  const int rows = static_cast<int>(m_rows->size());
  // Records this table held last are freed on a pool thread: a new run of a 100k-node program
  // drops 100k of them at once, a quarter of a second of frees.
  std::vector<std::shared_ptr<const torchir::NodeRecord>> dropped;
  int rangeStart = -1, rangeEnd = -1;
  auto flush = [&] {
    if (rangeStart < 0) return;
    Q_EMIT dataChanged(index(rangeStart, 0), index(rangeEnd - 1, ColumnCount - 1));
    rangeStart = -1;
  };
  int row = m_firstPending;
  // The clock is read every 64 rows looked at: the first 63 are always taken.
  for (int looked = 0; row < rows && m_pendingCount > 0; ++row) {
    if (!m_pending[static_cast<std::size_t>(row)]) continue;
    if (++looked % 64 == 0 && clock.nsecsElapsed() > m_sliceBudgetNs) break;
    m_pending[static_cast<std::size_t>(row)] = 0;
    --m_pendingCount;
    const NodeStatus status = m_marks.status(row);
    const bool breakpoint = m_marks.hasBreakpoint(row);
    const bool patched = m_marks.isPatched(row);
    const int bookmark = m_marks.bookmark(row);
    const bool noted = m_marks.hasNote(row);
    // A record of a node outside the current run (e.g. a stale one after reset) is not asked
    // for: only nodes that ran or failed can have one.
    std::shared_ptr<const torchir::NodeRecord> record =
        m_records && status != NodeStatus::NotRun ? m_records(row) : nullptr;
    if (record && !record->executed) record.reset();
    const RunState& seen = m_run[static_cast<std::size_t>(row)];
    const bool sameRecord = sameOutcome(seen.record.get(), record.get());
    const bool changed = status != seen.status || breakpoint != seen.breakpoint || patched != seen.patched ||
                         bookmark != seen.bookmark || noted != seen.noted || !sameRecord;
    if (!changed && seen.record == record) continue;  // nothing to keep: a row never run stays unmade
    RunState& current = m_run.writable(static_cast<std::size_t>(row));
    current.status = status;
    current.bookmark = bookmark;
    current.noted = noted;
    current.breakpoint = breakpoint;
    current.patched = patched;
    if (current.record != record && current.record) dropped.push_back(std::move(current.record));
    current.record = std::move(record);
    if (!sameRecord) current.texts.reset();
    if (!changed) continue;
    if (rangeStart >= 0 && row != rangeEnd) flush();  // a gap: the range so far is one signal
    if (rangeStart < 0) rangeStart = row;
    rangeEnd = row + 1;
  }
  m_firstPending = m_pendingCount > 0 ? row : rows;
  flush();
  if (!dropped.empty()) destroyInBackground(std::move(dropped));
  if (m_pendingCount > 0 && !std::exchange(m_sliceQueued, true))
    inNextTurn(this, [this] {
      m_sliceQueued = false;
      takePendingRows();
    });
}

bool FxTableModel::isInput(std::size_t row) const {
  return (*m_rows)[row][Opcode] == QLatin1String("placeholder");
}

FxTableModel::RunState& FxTableModel::RunStates::writable(std::size_t row) {
  auto& chunk = m_chunks[row / kChunk];
  if (!chunk) chunk = std::make_unique<std::array<RunState, kChunk>>();
  return (*chunk)[row % kChunk];
}

const FxTableModel::RunState& FxTableModel::RunStates::notRun() {
  static const RunState none;
  return none;
}

const FxTableModel::RunState::Texts& FxTableModel::texts(int row) const {
  const RunState& run = m_run[static_cast<std::size_t>(row)];
  if (run.texts) return *run.texts;
  static const RunState::Texts none;
  if (!run.record) return none;  // not run: nothing to make, nor to keep (a row never run may be unmade)
  m_textsMade = true;
  RunState::Texts t;
  if (const torchir::NodeRecord* record = run.record.get()) {
    QStringList outputs;
    for (const torchir::ValueSummary& v : record->outputs) outputs << valueSummaryText(v);
    t.output = outputs.join(QStringLiteral(", "));
    // a quantized output reads with its qparams: `uint8[1, 16, 32, 32] s=0.0123 zp=-3`
    if (m_exported && static_cast<std::size_t>(row) < m_exported->nodes.size()) {
      const torchir::Node& node = m_exported->nodes[static_cast<std::size_t>(row)];
      if (torchir::quantRole(node.target) == torchir::QuantRole::Quantize)
        if (const std::string qparams = torchir::quantParamsText(node); !qparams.empty())
          t.output += QLatin1Char(' ') + QString::fromStdString(qparams);
    }
    t.time = record->cached ? QStringLiteral("cached") : QString::number(record->microseconds, 'f', 1);
    if (m_exported && static_cast<std::size_t>(row) < m_exported->nodes.size())
      t.exportDiff = exportDifference(*m_exported, row, *record);
  }
  run.texts = std::make_unique<RunState::Texts>(std::move(t));
  return *run.texts;
}

int FxTableModel::rowCount(const QModelIndex& parent) const {
  return parent.isValid() ? 0 : static_cast<int>(m_rows->size());
}

int FxTableModel::columnCount(const QModelIndex& parent) const { return parent.isValid() ? 0 : ColumnCount; }

namespace {

QString metricText(double x) { return QString::fromStdString(torchir::metricText(x)); }

/// A metric of the comparison's node as a number, for sorting; nullopt when there is none.
std::optional<double> metricOf(const torchir::NodeComparison& c, int column, const torchir::ComparisonRecord& record) {
  switch (column) {
    case FxTableModel::MaxRel: return c.metrics.distance();
    case FxTableModel::MaxAbs: return c.metrics.maxAbs;
    case FxTableModel::Cosine: return c.metrics.cosine;
    case FxTableModel::Sqnr: return c.metrics.sqnrDb;
    case FxTableModel::OwnRel: return c.ownRel;
    case FxTableModel::OwnSqnr: return c.ownSqnrDb;
    case FxTableModel::SensitivityGain: {
      const torchir::LayerSensitivity* l = record.sensitivity ? record.sensitivity->of(c.a) : nullptr;
      return l && l->problem.empty() ? std::optional<double>(l->gainDb) : std::nullopt;
    }
    case FxTableModel::DeviceMs: return c.deviceMs;
    default: return std::nullopt;
  }
}

}  // namespace

void FxTableModel::setComparison(ComparisonPtr comparison) {
  // The same (none, as at every run's start): no change to tell. A change's signal makes a filter
  // model look at all 170k rows of a 100k-node program.
  if (comparison == m_comparison) return;
  releaseInBackground(std::exchange(m_comparison, std::move(comparison)));  // 100k nodes' metrics
  if (!m_rows->empty()) Q_EMIT dataChanged(index(0, kFirstMetricColumn), index(rowCount() - 1, ColumnCount - 1));
}

QString FxTableModel::cellText(int row, int column) const {
  const auto r = static_cast<std::size_t>(row);
  if (column < kFxColumnCount) return (*m_rows)[r][static_cast<std::size_t>(column)];
  if (column >= kFirstMetricColumn) {
    const torchir::NodeComparison* c = m_comparison ? m_comparison->of(row) : nullptr;
    if (!c) return {};
    if (column == DeviceMs && c->deviceMs) return metricText(*c->deviceMs);  // timed even where not compared
    if (!c->problem.empty()) return {};
    if (column == MaxRel && c->metrics.nonfiniteApart > 0) return QStringLiteral("NaN/Inf");
    const auto x = metricOf(*c, column, *m_comparison);
    return x ? metricText(*x) : QString();
  }
  const RunState& run = m_run[r];
  switch (column) {
    case Status: {
      // a user change to the call, a bookmark and a note are marked after the run's state
      QStringList parts;
      parts << (isInput(r) && run.status == NodeStatus::Executed ? QStringLiteral("input") : statusText(run.status));
      if (run.patched) parts << QStringLiteral("edited");
      if (run.bookmark) parts << QStringLiteral("bookmark %1").arg(run.bookmark);
      if (run.noted) parts << QStringLiteral("note");
      parts.removeAll(QString());
      return parts.join(QStringLiteral(", "));
    }
    case Output: return texts(row).output;
    case Time: return texts(row).time;
    default: return {};
  }
}

QVariant FxTableModel::data(const QModelIndex& index, int role) const {
  if (!checkIndex(index, CheckIndexOption::IndexIsValid | CheckIndexOption::ParentIsInvalid)) return {};
  const RunState& run = m_run[static_cast<std::size_t>(index.row())];
  switch (role) {
    case Qt::DisplayRole:
      return cellText(index.row(), index.column());
    case kSortRole: {
      if (index.column() == Time) return run.record ? QVariant(run.record->microseconds) : QVariant(-1.0);
      if (index.column() < kFirstMetricColumn) return cellText(index.row(), index.column());
      const torchir::NodeComparison* c = m_comparison ? m_comparison->of(index.row()) : nullptr;
      const auto x = c ? metricOf(*c, index.column(), *m_comparison) : std::nullopt;
      return x ? QVariant(*x) : QVariant(-INFINITY);
    }
    case Qt::ForegroundRole:
      if (index.column() == Name && m_comparison && m_comparison->inNonfiniteSlice(index.row()))
        return QBrush(QColor(0x7b, 0x1f, 0xa2));
      return {};
    case Qt::ToolTipRole: {
      if (index.column() == Name && m_comparison && m_comparison->inNonfiniteSlice(index.row()))
        return index.row() == m_comparison->firstNonfinite
                   ? QStringLiteral("Makes the run's first NaN or Inf from finite inputs")
                   : QStringLiteral("In the backward slice of the run's first NaN or Inf");
      if (index.column() >= kFirstMetricColumn) {
        const torchir::NodeComparison* c = m_comparison ? m_comparison->of(index.row()) : nullptr;
        if (!c) return {};
        if (index.column() == DeviceMs && c->deviceMs)
          return QStringLiteral("The device's median time for the instruction this node ends, over the ETDump's runs: %1 ms")
              .arg(metricText(*c->deviceMs));
        if (!c->problem.empty()) return QString::fromStdString(c->problem);
        QString tip = QStringLiteral("against %1: max rel %2 (tolerance %3), max abs %4, mean abs %5, cosine %6, SQNR %7 dB")
                          .arg(QString::fromStdString(m_comparison->reference), metricText(c->metrics.maxRel), metricText(c->tolerance),
                               metricText(c->metrics.maxAbs), metricText(c->metrics.meanAbs),
                               metricText(c->metrics.cosine), metricText(c->metrics.sqnrDb));
        tip += QStringLiteral(", SNR %1 dB, MSE %2").arg(metricText(c->metrics.snrDb), metricText(c->metrics.mse));
        if (c->ownRel) tip += QStringLiteral("; its own error %1").arg(metricText(*c->ownRel));
        if (c->ownSqnrDb) tip += QStringLiteral(" (own SQNR %1 dB)").arg(metricText(*c->ownSqnrDb));
        if (c->metrics.nonfiniteA || c->metrics.nonfiniteB)
          tip += QStringLiteral("; NaN/Inf: %1 here, %2 in the reference").arg(c->metrics.nonfiniteA).arg(c->metrics.nonfiniteB);
        if (c->startsDivergence) tip += QStringLiteral("; the divergence starts here");
        return tip;
      }
      if (index.column() == Status && run.breakpoint) return QStringLiteral("Breakpoint: the run stops before this node");
      if (index.column() == Output && !texts(index.row()).exportDiff.isEmpty())
        return QStringLiteral("Differs from export: ") + texts(index.row()).exportDiff;
      const QString cell = cellText(index.row(), index.column());
      return cell.size() > kTooltipThreshold ? QVariant(cell) : QVariant();
    }
    case Qt::BackgroundRole:
      if (index.column() >= kFirstMetricColumn) {
        const torchir::NodeComparison* c = m_comparison ? m_comparison->of(index.row()) : nullptr;
        if (!c || !c->diverges) return {};
        return QBrush(c->startsDivergence || c->makesNonfinite ? QColor(0xf4, 0xa0, 0x8c) : QColor(0xfb, 0xdd, 0xd2));
      }
      if (index.column() == Output && !texts(index.row()).exportDiff.isEmpty()) return QBrush(QColor(0xff, 0xd5, 0x8a));
      // An input is passed, not run: tinting it "done" would paint a program green before any step.
      return isInput(static_cast<std::size_t>(index.row())) ? QVariant() : statusTint(run.status);
    case Qt::DecorationRole:
      return index.column() == Status && run.breakpoint ? QVariant(breakpointDot()) : QVariant();
    case Qt::TextAlignmentRole:
      return index.column() == Time || index.column() >= kFirstMetricColumn ? QVariant(int(Qt::AlignRight | Qt::AlignVCenter))
                                                                            : QVariant();
    default:
      return {};
  }
}

QVariant FxTableModel::headerData(int section, Qt::Orientation orientation, int role) const {
  if (orientation == Qt::Vertical) {
    // Graph positions count from 0, as node ids do.
    return role == Qt::DisplayRole ? QVariant(section) : QVariant();
  }
  if (role != Qt::DisplayRole) return {};
  // The same headings as torch.fx.Graph.print_tabular(), then the run's.
  switch (section) {
    case Opcode: return QStringLiteral("opcode");
    case Name: return QStringLiteral("name");
    case Target: return QStringLiteral("target");
    case Args: return QStringLiteral("args");
    case Kwargs: return QStringLiteral("kwargs");
    case Status: return QStringLiteral("status");
    case Output: return QStringLiteral("output");
    case Time: return QStringLiteral("time (µs)");
    case MaxRel: return QStringLiteral("max rel");
    case MaxAbs: return QStringLiteral("max abs");
    case Cosine: return QStringLiteral("cosine");
    case Sqnr: return QStringLiteral("SQNR (dB)");
    case OwnRel: return QStringLiteral("own rel");
    case OwnSqnr: return QStringLiteral("own SQNR");
    case SensitivityGain: return QStringLiteral("in float (+dB)");
    case DeviceMs: return QStringLiteral("device (ms)");
    default: return {};
  }
}

}  // namespace torchir::ui
