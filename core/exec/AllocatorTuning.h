#pragma once
// How the process's malloc grows and gives back memory, set once at start-up by each executable.

namespace torchir {

/// Sets glibc's malloc to the state its adaptive thresholds reach anyway after the first large
/// block is freed (blocks under 32 MiB from the heaps, trimmed past 64 MiB), and makes each
/// thread's heap writable in one step instead of a page at a time. Reading a 100k-op program
/// allocates millions of small blocks on the loader's threads; growing their heaps page by page
/// was a quarter of the read, in `mprotect`. Call it first in `main`, before any thread starts.
/// Nothing elsewhere, or under a sanitizer's allocator.
void tuneAllocator();

}  // namespace torchir
