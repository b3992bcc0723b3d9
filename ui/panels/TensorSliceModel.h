#pragma once
#include <QAbstractTableModel>
#include <QString>
#include <vector>

#include "program/QuantOps.h"
#include "program/TensorData.h"

namespace torchir::ui {

/// A 2-D slice of an N-D tensor: two dims as rows and columns, the others fixed at an index.
/// 0-D and 1-D tensors are one row. Cells read the tensor's storage in place (any strides).
class TensorSliceModel : public QAbstractTableModel {
  Q_OBJECT

 public:
  /// The element as a double, for DisplayRole's formatted text's source.
  static constexpr int ValueRole = Qt::UserRole + 1;

  explicit TensorSliceModel(QObject* parent = nullptr);

  /// `dequantization`: the qparams of an integer tensor's codes; each cell then shows its code and
  /// the real number it stands for, `-3 (-0.0369)`.
  void setTensor(const torchir::TensorData& tensor, std::optional<torchir::Dequantization> dequantization = {});
  void clear();
  const torchir::TensorData& tensor() const { return m_tensor; }

  /// Which dims are rows and columns (distinct, in range; ignored otherwise). Below 2-D there is
  /// nothing to choose.
  void setAxes(int rowDim, int colDim);
  /// The index of a dim that is neither rows nor columns, clamped to its size.
  void setIndex(int dim, int64_t position);
  int rowDim() const { return m_rowDim; }
  int colDim() const { return m_colDim; }
  int64_t indexOf(int dim) const { return m_index.at(static_cast<std::size_t>(dim)); }

  /// The element's position in row-major order of the whole tensor (elementAsDouble's index).
  int64_t flatIndex(int row, int column) const;
  double value(int row, int column) const;
  /// As torch prints elements: integers plainly, floats with %.6g, bools True/False.
  QString text(int row, int column) const;
  /// The slice as tab-separated values, one line per row (for the clipboard).
  QString sliceAsTsv() const;

  int rowCount(const QModelIndex& parent = {}) const override;
  int columnCount(const QModelIndex& parent = {}) const override;
  QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
  QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

 private:
  bool readable() const;

  torchir::TensorData m_tensor;
  std::optional<torchir::Dequantization> m_dequantization;
  int m_rowDim = -1, m_colDim = -1;  // -1: no such axis (0-D, or rows of a 1-D tensor)
  std::vector<int64_t> m_index;      // per dim; only the fixed dims' entries matter
  std::vector<int64_t> m_rowMajor;   // row-major strides of the sizes, for flatIndex
};

}  // namespace torchir::ui
