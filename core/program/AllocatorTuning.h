#pragma once

namespace torchir {

/// Tunes glibc's allocator for reading big programs; call once at the start of main().
/// A 30 MB model.json becomes millions of small JSON nodes and strings; glibc's fastbins make every
/// larger request consolidate them first, which costs ~15% of opening a 30k-node program. With
/// fastbins off, the per-thread cache still serves small blocks.
void tuneAllocatorForLargePrograms();

}  // namespace torchir
