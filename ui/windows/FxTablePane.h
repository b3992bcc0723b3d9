#pragma once
#include <QModelIndex>
#include <QWidget>
#include <vector>

#include "program/Program.h"
#include "session/ComparisonResult.h"
#include "session/FxCells.h"

class QLabel;
class QLineEdit;
class QSortFilterProxyModel;
class QTableView;

namespace torchir::ui {

class FxTableModel;

/// The FX table with its filter: print_tabular's columns plus the run's status, output and time.
/// Rows are nodes in graph order, so a row number is a NodeId.
class FxTablePane : public QWidget {
  Q_OBJECT

 public:
  explicit FxTablePane(QWidget* parent = nullptr);

  FxTableModel* model() const { return m_model; }
  QTableView* view() const { return m_view; }
  void setRows(std::shared_ptr<const FxCells> cells);
  /// Shows the comparison in the table's metric columns (hidden without one); the table sorts by
  /// any column, a metric's worst first.
  void setComparison(ComparisonPtr comparison);
  /// Sorts by max rel, the worst node first, and selects it.
  void sortByWorst();
  /// Makes the node's row current and visible; clears the filter when it hides the row. Emits nothing.
  void selectNode(torchir::NodeId node);
  /// Scrolls the node's row into the middle of the view, selecting nothing (where a run starts).
  void showNode(torchir::NodeId node);

 Q_SIGNALS:
  /// The user made a row current (click, keys).
  void nodeSelected(torchir::NodeId node);

 private:
  /// Puts the sort/filter proxy between the view and the model, or takes it out.
  void useProxy(bool use);
  bool usesProxy() const;
  void connectSelection();
  /// A model index as the view shows it (none when filtered out), and back.
  QModelIndex toView(const QModelIndex& modelIndex) const;
  QModelIndex toModel(const QModelIndex& viewIndex) const;
  void applyFilter(const QString& text);
  void updateFilterCount();
  void sizeColumns();
  /// print_tabular's columns narrowed to share the view's width, from their fitted widths, as
  /// long as the user has not sized one by hand.
  void fitColumnsToView();
  bool eventFilter(QObject* watched, QEvent* event) override;
  void onCurrentRowChanged();

  FxTableModel* m_model = nullptr;
  QSortFilterProxyModel* m_filterModel = nullptr;
  QTableView* m_view = nullptr;
  std::vector<int> m_fittedWidths;  // of print_tabular's columns, to their contents
  bool m_fitting = false;           // fitColumnsToView is resizing them
  bool m_sizedByHand = false;
  QLineEdit* m_filterEdit = nullptr;
  QLabel* m_filterCountLabel = nullptr;
  bool m_selecting = false;  // selectNode() is moving the current row: not the user's choice
};

}  // namespace torchir::ui
