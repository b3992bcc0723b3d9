#include "AllocatorTuning.h"

#include <cstdlib>  // defines __GLIBC__ where glibc is the C library

#if defined(__GLIBC__)
#include <malloc.h>
#endif

namespace torchir {

void tuneAllocator() {
#if defined(__GLIBC__)
  constexpr int kMiB = 1 << 20;
  // A thread's heap is at most 64 MiB on 64-bit glibc: padded to that, it is made writable once.
  mallopt(M_TOP_PAD, 64 * kMiB);
  // Setting the pad fixes the thresholds glibc would otherwise move; these are where it moves them
  // to (the mmap threshold's largest, the trim threshold twice it), so big tensors still reuse the
  // heaps rather than being mapped and faulted in afresh at every allocation.
  mallopt(M_MMAP_THRESHOLD, 32 * kMiB);
  mallopt(M_TRIM_THRESHOLD, 64 * kMiB);
#endif
}

}  // namespace torchir
