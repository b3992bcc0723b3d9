#pragma once
// The GUI's copy of the run: the node records the engine's reports brought, by NodeId.
#include <cstddef>
#include <functional>
#include <memory>
#include <utility>
#include <vector>

#include "exec/ExecTypes.h"
#include "session/ExecutionMarks.h"

namespace torchir {
struct DebugOutcome;
struct DebugProgress;
}  // namespace torchir

namespace torchir::ui {

/// A node's record, null when it has not run.
using RecordOf = std::function<const torchir::NodeRecord*(torchir::NodeId)>;

/// The node that did work last before `position` (kNone: the end of `nodes`): what a step just did,
/// not the placeholders, getitems and output it passes on the way; kNone when none did. Nodes run
/// in order, so the first one found going back is the last.
torchir::NodeId lastWorkBefore(torchir::NodeId position, std::size_t nodes, const RecordOf& record);

/// The node a stop shows: where the run failed or a stop condition fired, the breakpoint's node,
/// else the one that did work last (what the step did). The same rule on the engine's records and
/// the GUI's, so a report can carry what the views will show.
torchir::NodeId nodeAStopShows(const torchir::DebugOutcome& outcome, torchir::NodeId position, std::size_t nodes,
                               const RecordOf& record);

/// Records are never changed once made, so a view may keep one. Dropping a 100k-node run's records
/// is a tenth of a second of frees: done on a pool thread.
class RunRecords {
 public:
  using Shared = std::shared_ptr<const torchir::NodeRecord>;

  /// Room for `nodes` records, none there.
  void reset(std::size_t nodes);
  std::size_t size() const { return m_records.size(); }
  const torchir::NodeRecord* record(torchir::NodeId node) const;
  Shared shared(torchir::NodeId node) const;
  /// Takes a report's records (moved out of it) and marks what ran and what runs next in `marks`;
  /// a restart drops the earlier ones first. The rows [first, end) the report brought.
  std::pair<int, int> take(torchir::DebugProgress& report, ExecutionMarks& marks);
  /// The node that did work last before `position` among the nodes `marks` has as executed.
  torchir::NodeId lastWorkBefore(torchir::NodeId position, const ExecutionMarks& marks) const;
  bool anyWork() const;
  /// For the capture mapping, which writes them and puts an opened capture's in.
  std::vector<Shared>& all() { return m_records; }

 private:
  std::vector<Shared> m_records;  // by NodeId
};

}  // namespace torchir::ui
