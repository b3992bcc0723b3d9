#include "panels/TensorSliceModel.h"

#include <QStringList>
#include <algorithm>
#include <cmath>
#include <cstring>

#include "panels/ShapeText.h"
#include "program/TensorValues.h"

namespace torchir::ui {

TensorSliceModel::TensorSliceModel(QObject* parent) : QAbstractTableModel(parent) {}

void TensorSliceModel::setTensor(const torchir::TensorData& tensor,
                                 std::optional<torchir::Dequantization> dequantization) {
  // Same shape: keep the chosen axes and indices, so stepping through layers watches one slice.
  const bool sameShape = !m_tensor.sizes.empty() && tensor.sizes == m_tensor.sizes;
  beginResetModel();
  m_tensor = tensor;
  const bool codes = torchir::isIntegral(tensor.dtype) && dequantization &&
                     (dequantization->axis < 0 || dequantization->axis < static_cast<int>(tensor.sizes.size()));
  m_dequantization = codes ? std::move(dequantization) : std::nullopt;
  if (!sameShape) {
    const int rank = static_cast<int>(tensor.sizes.size());
    m_rowDim = rank >= 2 ? rank - 2 : -1;
    m_colDim = rank >= 1 ? rank - 1 : -1;
    m_index.assign(static_cast<std::size_t>(rank), 0);
    m_rowMajor = torchir::TensorData::contiguousStrides(tensor.sizes);
  }
  endResetModel();
}

void TensorSliceModel::clear() { setTensor({}); }

void TensorSliceModel::setAxes(int rowDim, int colDim) {
  const int rank = static_cast<int>(m_tensor.sizes.size());
  if (rank < 2 || rowDim == colDim || rowDim < 0 || colDim < 0 || rowDim >= rank || colDim >= rank) return;
  if (rowDim == m_rowDim && colDim == m_colDim) return;
  beginResetModel();
  m_rowDim = rowDim;
  m_colDim = colDim;
  endResetModel();
}

void TensorSliceModel::setIndex(int dim, int64_t position) {
  if (dim < 0 || dim >= static_cast<int>(m_index.size())) return;
  const int64_t size = m_tensor.sizes[static_cast<std::size_t>(dim)];
  const int64_t clamped = std::clamp<int64_t>(position, 0, std::max<int64_t>(size - 1, 0));
  if (m_index[static_cast<std::size_t>(dim)] == clamped) return;
  m_index[static_cast<std::size_t>(dim)] = clamped;
  // Same shape, other elements: the views keep their scroll position.
  if (dim != m_rowDim && dim != m_colDim && rowCount() > 0 && columnCount() > 0)
    Q_EMIT dataChanged(index(0, 0), index(rowCount() - 1, columnCount() - 1));
}

bool TensorSliceModel::readable() const {
  return m_tensor.dtype != torchir::DType::Unknown && m_tensor.numel() > 0 && m_tensor.hasData();
}

int64_t TensorSliceModel::flatIndex(int row, int column) const {
  int64_t flat = 0;
  for (std::size_t d = 0; d < m_index.size(); ++d) {
    const int dim = static_cast<int>(d);
    const int64_t i = dim == m_rowDim ? row : dim == m_colDim ? column : m_index[d];
    flat += i * m_rowMajor[d];
  }
  return flat;
}

double TensorSliceModel::value(int row, int column) const {
  return torchir::elementAsDouble(m_tensor, flatIndex(row, column));
}

QString TensorSliceModel::text(int row, int column) const {
  const int64_t flat = flatIndex(row, column);
  if (m_tensor.dtype == torchir::DType::Int64) {
    // Read exactly: int64 values beyond 2^53 do not survive a double.
    int64_t off = m_tensor.storageOffset, rest = flat;
    for (std::size_t d = m_tensor.sizes.size(); d-- > 0;) {
      off += (rest % m_tensor.sizes[d]) * m_tensor.strides[d];
      rest /= m_tensor.sizes[d];
    }
    int64_t v;
    std::memcpy(&v, m_tensor.storage->data + off * 8, 8);
    return QString::number(v);
  }
  const double v = torchir::elementAsDouble(m_tensor, flat);
  if (m_tensor.dtype == torchir::DType::Bool) return v != 0 ? QStringLiteral("True") : QStringLiteral("False");
  if (torchir::isIntegral(m_tensor.dtype)) {
    if (!m_dequantization) return QString::number(static_cast<int64_t>(v));
    // the code and the real number it stands for, with the channel's qparams when per channel
    const int axis = m_dequantization->axis;
    const int64_t channel = axis < 0 ? 0 : axis == m_rowDim ? row : axis == m_colDim ? column : m_index[static_cast<std::size_t>(axis)];
    return QStringLiteral("%1 (%2)").arg(static_cast<int64_t>(v)).arg(numberText(m_dequantization->dequantize(v, channel)));
  }
  if (std::isnan(v)) return QStringLiteral("nan");
  if (std::isinf(v)) return v > 0 ? QStringLiteral("inf") : QStringLiteral("-inf");
  return numberText(v);
}

QString TensorSliceModel::sliceAsTsv() const {
  QStringList lines;
  for (int r = 0; r < rowCount(); ++r) {
    QStringList cells;
    for (int c = 0; c < columnCount(); ++c) cells << text(r, c);
    lines << cells.join(QLatin1Char('\t'));
  }
  return lines.join(QLatin1Char('\n'));
}

int TensorSliceModel::rowCount(const QModelIndex& parent) const {
  if (parent.isValid() || !readable()) return 0;
  return m_rowDim < 0 ? 1 : static_cast<int>(m_tensor.sizes[static_cast<std::size_t>(m_rowDim)]);
}

int TensorSliceModel::columnCount(const QModelIndex& parent) const {
  if (parent.isValid() || !readable()) return 0;
  return m_colDim < 0 ? 1 : static_cast<int>(m_tensor.sizes[static_cast<std::size_t>(m_colDim)]);
}

QVariant TensorSliceModel::data(const QModelIndex& index, int role) const {
  if (!checkIndex(index, CheckIndexOption::IndexIsValid | CheckIndexOption::ParentIsInvalid)) return {};
  switch (role) {
    case Qt::DisplayRole:
    case Qt::ToolTipRole:
      return text(index.row(), index.column());
    case ValueRole:
      return value(index.row(), index.column());
    case Qt::TextAlignmentRole:
      return int(Qt::AlignRight | Qt::AlignVCenter);
    default:
      return {};
  }
}

QVariant TensorSliceModel::headerData(int section, Qt::Orientation, int role) const {
  // Indices along the dim, as tensor[i] counts them.
  return role == Qt::DisplayRole ? QVariant(section) : QVariant();
}

}  // namespace torchir::ui
