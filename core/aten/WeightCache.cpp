#include "WeightCache.h"

#include <ATen/ATen.h>

#include <sys/mman.h>

#include <algorithm>
#include <new>

namespace torchir {

at::Tensor copyIntoOwnPages(const at::Tensor& t, at::ScalarType dtype) {
  const std::size_t bytes = static_cast<std::size_t>(t.numel()) * c10::elementSize(dtype);
  // Small copies from the allocator, which reuses their blocks: a mapping each would cost a
  // syscall and a page apiece, and a program's 70k small weights as many mappings.
  constexpr std::size_t kOwnPagesFrom = 256 * 1024;
  if (bytes < kOwnPagesFrom || !t.is_non_overlapping_and_dense()) return t.to(dtype);
  void* pages = mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (pages == MAP_FAILED) throw std::bad_alloc();
  at::Tensor out = at::from_blob(
      pages, t.sizes(), t.strides(), [bytes](void* p) { munmap(p, bytes); }, t.options().dtype(dtype));
  out.copy_(t);
  return out;
}

bool WeightCache::provide(const std::vector<ValueId>& needed, FrameValues& frame) {
  for (ValueId v : needed) {
    auto it = m_entries.find(v);
    if (it == m_entries.end()) continue;
    Entry& e = it->second;
    if (e.held.defined()) {
      m_recent.splice(m_recent.begin(), m_recent, e.recent);  // most recent now
    } else {
      e.held = e.make();
      e.bytes = static_cast<std::size_t>(e.held.numel()) * e.held.element_size();
      m_held += e.bytes;
      m_recent.push_front(v);
      e.recent = m_recent.begin();
    }
    frame[static_cast<std::size_t>(v)] = e.held;
  }
  // The node's own weights are at the front: they stay even when they alone pass the bound.
  bool letGo = false;
  while (m_held > m_bound && !m_recent.empty()) {
    const ValueId v = m_recent.back();
    Entry& e = m_entries.at(v);
    if (std::find(needed.begin(), needed.end(), v) != needed.end()) break;
    m_recent.pop_back();
    m_held -= e.bytes;
    e.held = at::Tensor();
    e.bytes = 0;
    frame[static_cast<std::size_t>(v)] = c10::IValue();
    letGo = true;
  }
  return letGo;
}

void WeightCache::refill(FrameValues& frame) const {
  for (const auto& [v, e] : m_entries)
    if (e.held.defined()) frame[static_cast<std::size_t>(v)] = e.held;
}

}  // namespace torchir
