#include "panels/FxTableModel.h"

#include <QBrush>
#include <QColor>
#include <QImage>
#include <QPainter>

#include "panels/ExportComparison.h"
#include "panels/ShapeText.h"

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

}  // namespace

bool FxTableModel::RunState::showsRecord(const torchir::NodeRecord* record) const {
  if (!record) return !hasRecord;
  if (!hasRecord || record->microseconds != microseconds || record->outputs.size() != outputs.size()) return false;
  for (std::size_t i = 0; i < outputs.size(); ++i) {
    const torchir::ValueSummary &a = outputs[i], &b = record->outputs[i];
    if (a.kind != b.kind || a.dtype != b.dtype || a.sizes != b.sizes || a.text != b.text) return false;
  }
  return true;
}

FxTableModel::FxTableModel(QObject* parent) : QAbstractTableModel(parent) {}

void FxTableModel::setRows(const std::vector<torchir::FxRow>& rows) { setRows(toFxCells(rows)); }

void FxTableModel::setRows(FxCells cells) {
  beginResetModel();
  m_rows = std::move(cells);
  m_run.assign(m_rows.size(), RunState{});
  endResetModel();
}

void FxTableModel::setExported(std::shared_ptr<const torchir::Program> program) { m_exported = std::move(program); }

void FxTableModel::clear() {
  beginResetModel();
  m_rows.clear();
  m_run.clear();
  m_exported.reset();
  endResetModel();
}

void FxTableModel::updateExecution(const ExecutionMarks& marks, const RecordLookup& records) {
  const int rows = static_cast<int>(m_rows.size());
  int rangeStart = -1;
  auto flush = [&](int endExclusive) {
    if (rangeStart < 0) return;
    Q_EMIT dataChanged(index(rangeStart, 0), index(endExclusive - 1, ColumnCount - 1));
    rangeStart = -1;
  };
  for (int row = 0; row < rows; ++row) {
    const NodeStatus status = marks.status(row);
    const bool breakpoint = marks.hasBreakpoint(row);
    // A record of a node outside the current run (e.g. a stale pointer after reset) is not asked
    // for: only nodes that ran or failed can have one.
    const torchir::NodeRecord* record = records && status != NodeStatus::NotRun ? records(row) : nullptr;
    if (record && !record->executed) record = nullptr;
    RunState& current = m_run[static_cast<std::size_t>(row)];
    // Texts are made only when what they show changed: a run of 30k nodes reports progress every
    // 50 ms, and formatting every executed row at each report took the GUI thread 0.15 s.
    if (status == current.status && breakpoint == current.breakpoint && current.showsRecord(record)) {
      flush(row);
      continue;
    }
    RunState next;
    next.status = status;
    next.breakpoint = breakpoint;
    if (record) {
      next.hasRecord = true;
      next.microseconds = record->microseconds;
      next.outputs = record->outputs;
      QStringList outputs;
      for (const torchir::ValueSummary& v : record->outputs) outputs << valueSummaryText(v);
      next.output = outputs.join(QStringLiteral(", "));
      next.time = QString::number(record->microseconds, 'f', 1);
      if (m_exported && static_cast<std::size_t>(row) < m_exported->nodes.size())
        next.exportDiff = exportDifference(*m_exported, row, *record);
    }
    const bool changed = !(next == current);
    current = std::move(next);
    if (!changed) {
      flush(row);
      continue;
    }
    if (rangeStart < 0) rangeStart = row;
  }
  flush(rows);
}

int FxTableModel::rowCount(const QModelIndex& parent) const {
  return parent.isValid() ? 0 : static_cast<int>(m_rows.size());
}

int FxTableModel::columnCount(const QModelIndex& parent) const { return parent.isValid() ? 0 : ColumnCount; }

QString FxTableModel::cellText(int row, int column) const {
  const auto r = static_cast<std::size_t>(row);
  if (column < kFxColumnCount) return m_rows[r][static_cast<std::size_t>(column)];
  const RunState& run = m_run[r];
  switch (column) {
    case Status: return statusText(run.status);
    case Output: return run.output;
    case Time: return run.time;
    default: return {};
  }
}

QVariant FxTableModel::data(const QModelIndex& index, int role) const {
  if (!checkIndex(index, CheckIndexOption::IndexIsValid | CheckIndexOption::ParentIsInvalid)) return {};
  const RunState& run = m_run[static_cast<std::size_t>(index.row())];
  switch (role) {
    case Qt::DisplayRole:
      return cellText(index.row(), index.column());
    case Qt::ToolTipRole: {
      if (index.column() == Status && run.breakpoint) return QStringLiteral("Breakpoint: the run stops before this node");
      if (index.column() == Output && !run.exportDiff.isEmpty()) return QStringLiteral("Differs from export: ") + run.exportDiff;
      const QString cell = cellText(index.row(), index.column());
      return cell.size() > kTooltipThreshold ? QVariant(cell) : QVariant();
    }
    case Qt::BackgroundRole:
      if (index.column() == Output && !run.exportDiff.isEmpty()) return QBrush(QColor(0xff, 0xd5, 0x8a));
      return statusTint(run.status);
    case Qt::DecorationRole:
      return index.column() == Status && run.breakpoint ? QVariant(breakpointDot()) : QVariant();
    case Qt::TextAlignmentRole:
      return index.column() == Time ? QVariant(int(Qt::AlignRight | Qt::AlignVCenter)) : QVariant();
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
    default: return {};
  }
}

}  // namespace torchir::ui
