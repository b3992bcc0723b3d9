#include "session/RunRecords.h"

#include <algorithm>

#include "debug/Debugger.h"
#include "session/BackgroundRelease.h"

namespace torchir::ui {

torchir::NodeId lastWorkBefore(torchir::NodeId position, std::size_t nodes, const RecordOf& record) {
  const auto end = static_cast<torchir::NodeId>(nodes);
  const torchir::NodeId from = position == torchir::kNone ? end : std::min(position, end);
  for (torchir::NodeId n = from - 1; n >= 0; --n)
    if (const torchir::NodeRecord* r = record(n); r && r->doesWork) return n;
  return torchir::kNone;
}

torchir::NodeId nodeAStopShows(const torchir::DebugOutcome& outcome, torchir::NodeId position, std::size_t nodes,
                               const RecordOf& record) {
  switch (outcome.reason) {
    case torchir::StopReason::Failed:
    case torchir::StopReason::StopCondition: return outcome.diagnosis.node;
    case torchir::StopReason::Breakpoint: return position;
    default: return lastWorkBefore(position, nodes, record);
  }
}

void RunRecords::reset(std::size_t nodes) {
  // A run's first report resets records that are all still empty (a 100k-node program's start):
  // they are kept, where a new 1.6 MB table was made and faulted in on the window's thread.
  if (m_records.size() == nodes && std::none_of(m_records.begin(), m_records.end(), [](const Shared& r) { return r != nullptr; }))
    return;
  destroyInBackground(std::exchange(m_records, std::vector<Shared>(nodes)));
}

const torchir::NodeRecord* RunRecords::record(torchir::NodeId node) const { return shared(node).get(); }

RunRecords::Shared RunRecords::shared(torchir::NodeId node) const {
  if (node < 0 || static_cast<std::size_t>(node) >= m_records.size()) return nullptr;
  return m_records[static_cast<std::size_t>(node)];
}

std::pair<int, int> RunRecords::take(torchir::DebugProgress& report, ExecutionMarks& marks) {
  if (report.restart) {
    reset(m_records.size());
    marks.executed.assign(marks.executed.size(), false);
  }
  for (std::size_t i = 0; i < report.records.size(); ++i) {
    const auto n = static_cast<std::size_t>(report.firstRecord) + i;
    if (n >= m_records.size() || n >= marks.executed.size()) break;
    auto& r = report.records[i];
    marks.executed[n] = r != nullptr;
    if (r) m_records[n] = std::move(r);
  }
  marks.current = report.finished ? torchir::kNone : report.position;
  return {static_cast<int>(report.firstRecord), static_cast<int>(report.firstRecord + report.records.size())};
}

torchir::NodeId RunRecords::lastWorkBefore(torchir::NodeId position, const ExecutionMarks& marks) const {
  const std::size_t nodes = std::min(m_records.size(), marks.executed.size());
  return ui::lastWorkBefore(position, nodes, [&](torchir::NodeId n) {
    return marks.executed[static_cast<std::size_t>(n)] ? record(n) : nullptr;
  });
}

bool RunRecords::anyWork() const {
  return std::any_of(m_records.begin(), m_records.end(), [](const Shared& r) { return r && r->doesWork; });
}

}  // namespace torchir::ui
