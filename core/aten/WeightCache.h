#pragma once
// Weights a session holds in another form than the file's bytes: cast to a shadow run's float64,
// cast to the export's dtype, or copied to an aligned address. Such a copy is made when a node
// needs it and let go, least recently used first, once the copies pass a bound, so a comparison
// of a model larger than memory holds one layer's copies at a time instead of the whole model's.
// Weights used as the file's bytes (mapped) are not held here: the kernel pages those in and out.
// Only inside libtorchir_aten.
#include <ATen/Tensor.h>

#include <cstddef>
#include <functional>
#include <list>
#include <unordered_map>
#include <vector>

#include "ArgumentBuilder.h"

namespace torchir {

/// `t` converted to `dtype`, with its strides; from 256 KiB, in pages of its own that go back to the
/// system when the tensor is freed. Large copies made and let go all through a run would otherwise
/// leave glibc's heap holding the whole model: blocks below its (adaptive, up to 32 MB) mmap
/// threshold are kept when freed.
at::Tensor copyIntoOwnPages(const at::Tensor& t, at::ScalarType dtype);

class WeightCache {
 public:
  using Make = std::function<at::Tensor()>;

  void setBound(std::size_t bytes) { m_bound = bytes; }
  /// Registers weight value `v`, made by `make` (read from the file and converted) when asked for.
  void add(ValueId v, Make make) { m_entries[v].make = std::move(make); }
  bool holds(ValueId v) const { return m_entries.count(v) != 0; }
  bool empty() const { return m_entries.empty(); }

  /// Puts the weights among `needed` into `frame`, making those not held; then, while the copies
  /// exceed the bound, lets the least recently used others go (their frame slots emptied). True
  /// when it let one go: references elsewhere (argument records) must go too for it to be freed.
  bool provide(const std::vector<ValueId>& needed, FrameValues& frame);
  /// Puts every copy held into `frame` (after a reset): those let go come back when needed.
  void refill(FrameValues& frame) const;
  /// Weight `v` as the session holds it, without keeping it (for a view of a weight let go).
  at::Tensor make(ValueId v) const { return m_entries.at(v).make(); }

 private:
  struct Entry {
    Make make;
    at::Tensor held;
    std::size_t bytes = 0;
    std::list<ValueId>::iterator recent;  // its place in m_recent while held
  };
  std::unordered_map<ValueId, Entry> m_entries;
  std::list<ValueId> m_recent;  // held weights, most recently needed first
  std::size_t m_held = 0;
  std::size_t m_bound = 0;
};

}  // namespace torchir
