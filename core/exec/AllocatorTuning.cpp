#include "AllocatorTuning.h"

#include <cstdlib>  // defines __GLIBC__ where glibc is the C library

#if defined(__GLIBC__)
#include <malloc.h>
#endif

namespace torchir {

void tuneAllocator() {
#if defined(__GLIBC__)
  constexpr int kMiB = 1 << 20;
  mallopt(M_TOP_PAD, 64 * kMiB);  // a 64-bit glibc's largest thread heap
  mallopt(M_MMAP_THRESHOLD, 32 * kMiB);  // the most glibc's moving threshold reaches
  mallopt(M_TRIM_THRESHOLD, 64 * kMiB);  // twice it, as glibc keeps it
#endif
}

}  // namespace torchir
