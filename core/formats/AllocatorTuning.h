#pragma once
// How the process's malloc grows and gives back memory: set once at start-up by each executable,
// given back when a big program is let go of, and tuned while a big program is read.

namespace torchir {

/// Makes each thread's malloc heap writable in one step instead of a page at a time: reading a
/// 100k-op program allocates millions of small blocks on the loader's threads, and growing their
/// heaps page by page was 41k `mprotect` calls, a quarter of the read. glibc pads a new heap by
/// M_TOP_PAD; 64 MiB is a whole heap. Setting it fixes the thresholds glibc would otherwise move,
/// so they are set where glibc moves them for large blocks: blocks under 32 MiB come from the heaps
/// (large tensors are reused there instead of mapped and faulted in afresh each time), and the
/// main heap is trimmed past 64 MiB. The cost: a thread's heap keeps the pad when trimmed, so
/// freed memory stays with it for its next allocations (measured: 2% more resident memory after a
/// 100k-op program is replaced, docs/benchmarks.md). Call it first in `main`, before any thread
/// starts. Nothing where glibc is not the C library; a sanitizer's allocator ignores it.
void tuneAllocator();

/// Hands back to the system the pages of memory malloc holds free. glibc returns a heap's memory
/// only from its top, so after a 100k-op program is replaced, the 3 GB its blocks took stay
/// resident, scattered between the few blocks still in use (measured: 477 MB in use, 3.1 GB held
/// free). This walks every heap and releases the free pages in the middle too. It locks each heap
/// while it walks it, so it belongs on a background thread at a quiet moment.
void returnFreedMemory();

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
