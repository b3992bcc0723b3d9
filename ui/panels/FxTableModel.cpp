#include "panels/FxTableModel.h"

namespace torchir::ui {

namespace {

// Cells longer than this get a tooltip, since the view elides them.
constexpr int kTooltipThreshold = 40;

}  // namespace

FxTableModel::FxTableModel(QObject* parent) : QAbstractTableModel(parent) {}

void FxTableModel::setRows(const std::vector<torchir::FxRow>& rows) {
  beginResetModel();
  m_rows.clear();
  m_rows.reserve(rows.size());
  for (const torchir::FxRow& row : rows) {
    m_rows.push_back({QString::fromStdString(row.opcode), QString::fromStdString(row.name),
                      QString::fromStdString(row.target), QString::fromStdString(row.args),
                      QString::fromStdString(row.kwargs)});
  }
  endResetModel();
}

void FxTableModel::clear() {
  beginResetModel();
  m_rows.clear();
  endResetModel();
}

int FxTableModel::rowCount(const QModelIndex& parent) const {
  return parent.isValid() ? 0 : static_cast<int>(m_rows.size());
}

int FxTableModel::columnCount(const QModelIndex& parent) const { return parent.isValid() ? 0 : ColumnCount; }

QVariant FxTableModel::data(const QModelIndex& index, int role) const {
  if (!checkIndex(index, CheckIndexOption::IndexIsValid | CheckIndexOption::ParentIsInvalid)) return {};
  const QString& cell = m_rows[static_cast<std::size_t>(index.row())][static_cast<std::size_t>(index.column())];
  switch (role) {
    case Qt::DisplayRole:
      return cell;
    case Qt::ToolTipRole:
      return cell.size() > kTooltipThreshold ? QVariant(cell) : QVariant();
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
  // The same headings as torch.fx.Graph.print_tabular().
  switch (section) {
    case Opcode: return QStringLiteral("opcode");
    case Name: return QStringLiteral("name");
    case Target: return QStringLiteral("target");
    case Args: return QStringLiteral("args");
    case Kwargs: return QStringLiteral("kwargs");
    default: return {};
  }
}

}  // namespace torchir::ui
