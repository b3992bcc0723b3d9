#pragma once
// Nodes whose every input is a constant of the program (a weight's dequantize, a transpose of a
// weight, a constant folded from nothing): their results are the same bits at every run of a
// session, so the session computes them once and reuses them. They are kept within a bound,
// least recently used let go first; a node let go is computed again at its next run.
// Only inside libtorchir_aten.
#include <cstddef>
#include <list>
#include <memory>
#include <set>
#include <unordered_map>
#include <vector>

#include "ArgumentBuilder.h"

namespace torchir {

class NodeKernel;

/// Per node of `p`: whether its results depend on the program's constants alone (parameters,
/// lifted tensor constants, buffers the program never writes, and results of such nodes), through
/// a pure call (NodeKernel::pure), and no call may write them or anything that shares their memory
/// (a view of them, or what they view). `patched` nodes (edit and continue) never are: a change
/// may take a value of the run.
std::vector<bool> constantNodes(const Program& p, const std::vector<std::unique_ptr<NodeKernel>>& kernels,
                                const std::set<NodeId>& patched);

class ConstantResults {
 public:
  /// The most bytes of results kept; what passes it is let go, least recently used first.
  void setBound(std::size_t bytes);
  /// The results kept for `node`, in the node's output order, now the most recently used;
  /// nullptr when none are kept.
  const std::vector<c10::IValue>* find(NodeId node);
  /// Keeps `results` of `node`, then lets the least recently used others go while the results
  /// kept pass the bound. Results larger than the bound on their own are not kept.
  void keep(NodeId node, std::vector<c10::IValue> results);
  void clear();
  std::size_t heldBytes() const { return m_held; }

 private:
  void letGoPastTheBound();
  struct Entry {
    std::vector<c10::IValue> results;
    std::size_t bytes = 0;
    std::list<NodeId>::iterator recent;
  };
  std::unordered_map<NodeId, Entry> m_entries;
  std::list<NodeId> m_recent;  // most recently used first
  std::size_t m_held = 0;
  std::size_t m_bound = 0;
};

}  // namespace torchir
