#pragma once

namespace torchir {

/// While one exists, glibc's allocator is tuned for reading a big program. A 30 MB model.json
/// becomes millions of small JSON nodes and strings; glibc's fastbins make every larger request
/// consolidate them first, which costs ~15% of opening a 30k-node program. With fastbins off, the
/// per-thread cache still serves small blocks. Only while reading: the engine's many small tensor
/// allocations run ~40% slower without fastbins. Scopes may nest and overlap across threads; the
/// last one to end restores the default.
class LargeProgramAllocation {
 public:
  LargeProgramAllocation();
  ~LargeProgramAllocation();
  LargeProgramAllocation(const LargeProgramAllocation&) = delete;
  LargeProgramAllocation& operator=(const LargeProgramAllocation&) = delete;
};

}  // namespace torchir
