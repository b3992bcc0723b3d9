#pragma once
// How the process's malloc grows and gives back memory, set once at start-up by each executable.

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

}  // namespace torchir
