#pragma once
#include <QAbstractTableModel>
#include <QString>
#include <array>
#include <functional>
#include <memory>
#include <optional>
#include <utility>
#include <vector>

#include "exec/ExecTypes.h"
#include "program/FxTable.h"
#include "session/ComparisonResult.h"
#include "session/FxCells.h"
#include "session/ExecutionMarks.h"

namespace torchir::ui {

/// The FX table of a program (`print_tabular()`), read-only, one node per row in graph order
/// (row == NodeId), followed by what the current run did to each node.
class FxTableModel : public QAbstractTableModel {
  Q_OBJECT

 public:
  enum Columns { Opcode, Name, Target, Args, Kwargs, Status, Output, Time, MaxRel, MaxAbs, Cosine, Sqnr, OwnRel, OwnSqnr,
                 SensitivityGain, DeviceMs, ColumnCount };
  /// The comparison's columns (empty until there is one).
  static constexpr int kFirstMetricColumn = MaxRel;
  /// What a sort orders by: the metric or time as a number (nodes without one last), else the text.
  static constexpr int kSortRole = Qt::UserRole + 1;
  /// The columns Python's print_tabular() has; the rest describe the run.
  static constexpr int kFxColumnCount = Status;

  /// A node's record, shared with the session that made it; records are never changed once made.
  using RecordLookup = std::function<std::shared_ptr<const torchir::NodeRecord>(torchir::NodeId)>;

  explicit FxTableModel(QObject* parent = nullptr);

  /// Replaces every row; views see one model reset. The run columns start empty.
  void setRows(const std::vector<torchir::FxRow>& rows);
  /// The same, from cells converted on the loader thread.
  void setRows(FxCells cells);
  /// The same, sharing the cells (a 100k-node program's are 20 MB, not copied).
  void setRows(std::shared_ptr<const FxCells> cells);
  void clear();
  /// The program as exported: each executed row's outputs are compared with what export recorded,
  /// and an output that differs is tinted, with the difference in its tooltip.
  void setExported(std::shared_ptr<const torchir::Program> program);

  /// Takes the run's state; emits dataChanged only for rows whose status, breakpoint or record
  /// changed, one signal per contiguous range of rows. `changedRecords` [first, end): the only rows
  /// whose records may have changed since the last call (a report's); then only those and the rows
  /// whose marks differ from the last call's are looked at, so a step costs the same at 100k rows
  /// as at 1k. Without it every row is.
  /// The rows are looked at for at most the slice budget of this call; those left are looked at in
  /// later turns of the event loop, against the latest marks and records, so a report of 100k rows
  /// never freezes the window. A table of a few thousand rows is up to date when this returns.
  void updateExecution(const ExecutionMarks& marks, const RecordLookup& records,
                       std::optional<std::pair<int, int>> changedRecords = std::nullopt);
  /// True while rows of an update are still to be looked at.
  bool updatePending() const { return m_pendingCount > 0; }
  /// The GUI time one turn of updateExecution may take (a few ms: well inside a frame).
  void setSliceBudgetNs(qint64 ns) { m_sliceBudgetNs = ns; }
  /// A comparison of the run with a reference (null: none): the metric columns show it, a node
  /// that diverges tinted, the one where a divergence starts more.
  void setComparison(ComparisonPtr comparison);
  const ComparisonResult* comparison() const { return m_comparison.get(); }

  /// The text a cell shows (its display role), without a QVariant around it.
  QString cellText(int row, int column) const;

  int rowCount(const QModelIndex& parent = {}) const override;
  int columnCount(const QModelIndex& parent = {}) const override;
  QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
  QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

 private:
  struct RunState {
    NodeStatus status = NodeStatus::NotRun;
    bool breakpoint = false;
    bool patched = false;  // the user changed its call
    int bookmark = 0;      // its slot, 0 for none
    bool noted = false;
    std::shared_ptr<const torchir::NodeRecord> record;  // what the run columns show; null: not run
    // Made from `record` when a view first asks for them: a progress report of a long run then
    // costs a comparison per row, not the formatting of every row that ran since the last one.
    struct Texts {
      QString output;      // "float32[1, 64, 56, 56]", several joined by ", "
      QString time;        // µs, one decimal; empty when not run
      QString exportDiff;  // how the outputs differ from what export recorded; empty when they agree
    };
    // Apart: a table of 100k rows holds 6 MB of run state rather than 19 MB.
    mutable std::unique_ptr<Texts> texts;
  };

  /// Run state by row, made 4096 rows at a time when one of them first differs from not run: a
  /// program shown before it runs allocates none of its 7 MB (for 100k nodes) on the GUI thread,
  /// and a run's first reports fault in only the chunks they reach.
  class RunStates {
   public:
    explicit RunStates(std::size_t rows = 0) : m_chunks((rows + kChunk - 1) / kChunk) {}
    const RunState& operator[](std::size_t row) const {
      const auto& chunk = m_chunks[row / kChunk];
      return chunk ? (*chunk)[row % kChunk] : notRun();
    }
    RunState& writable(std::size_t row);
    template <class F>
    void forEachMade(F f) const {
      for (const auto& chunk : m_chunks)
        if (chunk)
          for (const RunState& run : *chunk) f(run);
    }

   private:
    static constexpr std::size_t kChunk = 4096;
    static const RunState& notRun();
    std::vector<std::unique_ptr<std::array<RunState, kChunk>>> m_chunks;
  };

  /// Looks at pending rows, lowest first, until none is left or the slice's budget is spent; queues
  /// the next slice when some are left.
  void takePendingRows();
  const RunState::Texts& texts(int row) const;
  bool isInput(std::size_t row) const;  // a placeholder: an input, weight or buffer

  // Converted once here rather than on every paint: views ask for the same cells repeatedly.
  std::shared_ptr<const FxCells> m_rows = std::make_shared<const FxCells>();  // never null
  static_assert(std::tuple_size_v<FxCells::value_type> == kFxColumnCount);
  RunStates m_run;
  mutable bool m_textsMade = false;  // whether any row's texts were made since setRows
  ExecutionMarks m_marks;  // as the last updateExecution took them
  RecordLookup m_records;  // the last updateExecution's, for the rows still pending
  std::vector<char> m_pending;  // by row: to be looked at
  std::size_t m_pendingCount = 0;
  int m_firstPending = 0;  // no pending row below it
  bool m_sliceQueued = false;
  qint64 m_sliceBudgetNs = 4'000'000;
  std::shared_ptr<const torchir::Program> m_exported;
  ComparisonPtr m_comparison;
};


}  // namespace torchir::ui
