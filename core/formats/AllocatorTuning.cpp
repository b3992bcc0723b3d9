#include "AllocatorTuning.h"

#include <cstdlib>  // defines __GLIBC__ where glibc is the C library
#include <mutex>

#if defined(__GLIBC__)
#include <malloc.h>
#endif

namespace torchir {
namespace {

std::mutex g_mutex;
int g_scopes = 0;
// glibc's default fastbin limit on 64-bit systems (DEFAULT_MXFAST: 64 * sizeof(size_t) / 4).
constexpr int kDefaultMaxFast = 64 * static_cast<int>(sizeof(std::size_t)) / 4;

void setMaxFast([[maybe_unused]] int bytes) {
#if defined(__GLIBC__)
  mallopt(M_MXFAST, bytes);
#endif
}

}  // namespace

void tuneAllocator() {
#if defined(__GLIBC__)
  constexpr int kMiB = 1 << 20;
  mallopt(M_TOP_PAD, 64 * kMiB);  // a 64-bit glibc's largest thread heap
  mallopt(M_MMAP_THRESHOLD, 32 * kMiB);  // the most glibc's moving threshold reaches
  mallopt(M_TRIM_THRESHOLD, 64 * kMiB);  // twice it, as glibc keeps it
#endif
}

void returnFreedMemory() {
#if defined(__GLIBC__)
  malloc_trim(0);
#endif
}

LargeProgramAllocation::LargeProgramAllocation() {
  const std::lock_guard lock(g_mutex);
  if (g_scopes++ == 0) setMaxFast(0);
}

LargeProgramAllocation::~LargeProgramAllocation() {
  const std::lock_guard lock(g_mutex);
  if (--g_scopes == 0) setMaxFast(kDefaultMaxFast);
}

}  // namespace torchir
