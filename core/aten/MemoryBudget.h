#pragma once
// Keeps a run's intermediate values within a memory budget: values no later node needs are
// released, oldest first, only while the values held exceed the budget (so by default every
// value stays inspectable). Only inside libtorchir_aten.
#include <cstddef>
#include <vector>

#include "ArgumentBuilder.h"

namespace torchir {

class MemoryBudget {
 public:
  explicit MemoryBudget(const Program& program);

  /// A quarter of the usable memory (the machine's, or a memory cgroup's lower limit) unless set.
  void setLimit(std::size_t bytes) { m_limit = bytes; }
  std::size_t limit() const { return m_limit; }
  void reset();

  /// Accounts node `node`'s outputs; true when the values held now exceed the limit.
  bool account(NodeId node, const FrameValues& values);
  /// Releases values no node after `node` reads, oldest first, until within the limit.
  std::vector<ValueId> release(NodeId node, FrameValues& values);
  bool released(ValueId v) const { return m_released[static_cast<std::size_t>(v)]; }
  std::size_t heldBytes() const { return m_held; }

 private:
  const Program& m_p;
  std::vector<NodeId> m_lastUse;   // the last node that reads each value (nodes.size() = never release)
  std::vector<ValueId> m_order;    // intermediate values in the order they were produced
  std::vector<std::size_t> m_bytes;
  std::vector<bool> m_released;
  std::size_t m_held = 0;
  std::size_t m_next = 0;          // m_order before this index has been considered
  std::size_t m_limit;
};

}  // namespace torchir
