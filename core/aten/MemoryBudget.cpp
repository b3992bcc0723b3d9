#include "MemoryBudget.h"

#include <ATen/ATen.h>

#include "exec/MachineMemory.h"

namespace torchir {
namespace {

std::size_t quarterOfMemory() { return usableMemory() / 4; }

std::size_t tensorBytes(const c10::IValue& v) {
  if (!v.isTensor() || !v.toTensor().defined()) return 0;
  const at::Tensor& t = v.toTensor();
  return t.numel() * t.element_size();  // views count their own extent: an upper bound
}

}  // namespace

MemoryBudget::MemoryBudget(const Program& p)
    : m_p(p), m_lastUse(p.values.size(), kNone), m_bytes(p.values.size(), 0), m_released(p.values.size(), false),
      m_limit(quarterOfMemory()) {
  const auto never = static_cast<NodeId>(p.nodes.size());
  for (const auto& v : p.values)
    for (NodeId user : v.users) m_lastUse[static_cast<std::size_t>(v.id)] = std::max(m_lastUse[static_cast<std::size_t>(v.id)], user);
  for (const auto& v : p.values) {
    const Node& producer = p.node(v.producer);
    // Inputs and weights are not the run's to release; outputs are what the run is for.
    if (producer.opcode != Opcode::CallFunction) m_lastUse[static_cast<std::size_t>(v.id)] = never;
  }
  for (const auto& s : p.outputs)
    if (s.value != kNone) m_lastUse[static_cast<std::size_t>(s.value)] = never;
}

void MemoryBudget::reset() {
  m_order.clear();
  std::fill(m_bytes.begin(), m_bytes.end(), 0);
  std::fill(m_released.begin(), m_released.end(), false);
  m_held = 0;
  m_next = 0;
}

bool MemoryBudget::account(NodeId node, const FrameValues& values) {
  const Node& n = m_p.node(node);
  for (ValueId v : n.outputs) {
    if (m_p.value(v).producer != node) continue;  // a getitem's value belongs to its op
    const auto i = static_cast<std::size_t>(v);
    m_held -= m_bytes[i];
    m_bytes[i] = tensorBytes(values[i]);
    m_held += m_bytes[i];
    m_order.push_back(v);
  }
  return m_held > m_limit;
}

std::vector<ValueId> MemoryBudget::release(NodeId node, FrameValues& values) {
  std::vector<ValueId> released;
  for (std::size_t k = m_next; k < m_order.size() && m_held > m_limit; ++k) {
    const ValueId v = m_order[k];
    const auto i = static_cast<std::size_t>(v);
    if (m_released[i] || m_lastUse[i] > node) continue;  // still needed later
    values[i] = c10::IValue();
    m_released[i] = true;
    m_held -= m_bytes[i];
    m_bytes[i] = 0;
    released.push_back(v);
  }
  while (m_next < m_order.size() && m_released[static_cast<std::size_t>(m_order[m_next])]) ++m_next;
  return released;
}

}  // namespace torchir
