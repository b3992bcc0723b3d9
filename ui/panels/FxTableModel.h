#pragma once
#include <QAbstractTableModel>
#include <QString>
#include <array>
#include <vector>

#include "program/FxTable.h"

namespace torchir::ui {

/// The FX table of a program (`print_tabular()`), read-only, one node per row in graph order.
class FxTableModel : public QAbstractTableModel {
  Q_OBJECT

 public:
  enum Columns { Opcode, Name, Target, Args, Kwargs, ColumnCount };

  explicit FxTableModel(QObject* parent = nullptr);

  /// Replaces every row; views see one model reset.
  void setRows(const std::vector<torchir::FxRow>& rows);
  void clear();

  int rowCount(const QModelIndex& parent = {}) const override;
  int columnCount(const QModelIndex& parent = {}) const override;
  QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
  QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

 private:
  // Converted once here rather than on every paint: views ask for the same cells repeatedly.
  std::vector<std::array<QString, ColumnCount>> m_rows;
};

}  // namespace torchir::ui
