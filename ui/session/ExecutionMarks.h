#pragma once
// What the views mark on the program while it runs: the graph view and the FX table draw the same
// state, so they read it from one place (the SessionController) instead of each asking the engine.
#include <map>
#include <set>
#include <vector>

#include "program/Program.h"

namespace torchir::ui {

enum class NodeStatus : uint8_t { NotRun, Current, Executed, Failed };

struct ExecutionMarks {
  torchir::NodeId current = torchir::kNone;  // the node that runs next; kNone when finished or idle
  torchir::NodeId failed = torchir::kNone;   // the node where the run failed or a stop condition fired
  std::vector<bool> executed;                // by NodeId: ran since the last reset
  std::set<torchir::NodeId> breakpoints;
  std::set<torchir::NodeId> patched;  // nodes whose call the user changed (edit and continue)
  std::map<torchir::NodeId, int> bookmarks;  // node -> its slot, 1 to 9 (Ctrl+1..9 go there)
  std::set<torchir::NodeId> noted;           // nodes with a note

  NodeStatus status(torchir::NodeId n) const {
    if (n == failed) return NodeStatus::Failed;
    if (n == current) return NodeStatus::Current;
    const auto i = static_cast<std::size_t>(n);
    return i < executed.size() && executed[i] ? NodeStatus::Executed : NodeStatus::NotRun;
  }
  bool hasBreakpoint(torchir::NodeId n) const { return breakpoints.count(n) != 0; }
  bool isPatched(torchir::NodeId n) const { return patched.count(n) != 0; }
  int bookmark(torchir::NodeId n) const {
    const auto it = bookmarks.find(n);
    return it == bookmarks.end() ? 0 : it->second;
  }
  bool hasNote(torchir::NodeId n) const { return noted.count(n) != 0; }
};

}  // namespace torchir::ui
