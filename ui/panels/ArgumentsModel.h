#pragma once
#include <QAbstractItemModel>
#include <QString>
#include <array>
#include <optional>
#include <vector>

#include "exec/ExecTypes.h"
#include "program/Program.h"

namespace torchir::ui {

/// One node's call as a two-level tree: top rows "Arguments" and "Outputs", one child per
/// argument or output, and for a higher-order node that ran (cond, while_loop, ...) "Inside": the
/// nodes its subgraphs ran. What it shows depends on what is known about the node: the record of
/// its last run, else the diagnosis of its failure, else the node as exported. In a body's window,
/// "Body Call" last: the iteration shown and where each of the body's inputs came from.
class ArgumentsModel : public QAbstractItemModel {
  Q_OBJECT

 public:
  enum Columns { Name, Type, Source, Value, DType, Shape, Strides, Device, ColumnCount };
  enum Groups { ArgumentsGroup, OutputsGroup, InsideGroup, CallGroup, GroupCount };

  explicit ArgumentsModel(QObject* parent = nullptr);

  /// `record`: what ran (preferred); `failure`: used when it names this node. Neither: the node as
  /// exported. Nothing of `program` is kept: the model holds its own text.
  void setNode(const torchir::Program& program, torchir::NodeId node, const torchir::NodeRecord* record,
               const torchir::Diagnosis* failure);
  void clear();

  /// The graph value of a tensor row (arguments by the node's input of that name, outputs by
  /// index); nullopt for scalars, group rows and values the graph does not name.
  std::optional<torchir::ValueId> valueAt(const QModelIndex& index) const;
  /// Whether the row is marked as the odd one out (dtype or device), and why.
  QString highlightReason(const QModelIndex& index) const;

  QModelIndex index(int row, int column, const QModelIndex& parent = {}) const override;
  QModelIndex parent(const QModelIndex& child) const override;
  int rowCount(const QModelIndex& parent = {}) const override;
  int columnCount(const QModelIndex& parent = {}) const override;
  QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
  QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

  struct Row {
    std::array<QString, ColumnCount> cells;
    bool tensor = false;
    torchir::DType dtype = torchir::DType::Unknown;
    std::optional<torchir::ValueId> value;
    QString highlight;  // empty: not highlighted
  };
  /// A row of `v` (its kind, dtype, shape) under `name`.
  static Row summaryRow(const QString& name, const QString& type, const QString& source, const torchir::ValueSummary& v);
  /// The "Body Call" rows, shown under every node until set again (empty: none).
  void setCallRows(std::vector<Row> rows);

 private:
  const Row* rowAt(const QModelIndex& index) const;
  /// The groups on screen, top row first: Arguments and Outputs always, the others when not empty.
  void showGroups();

  bool m_hasNode = false;
  std::array<std::vector<Row>, GroupCount> m_groups;
  std::vector<int> m_shown;  // group of each top row
};

}  // namespace torchir::ui
