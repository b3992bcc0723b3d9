#include "AllocatorTuning.h"

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

LargeProgramAllocation::LargeProgramAllocation() {
  const std::lock_guard lock(g_mutex);
  if (g_scopes++ == 0) setMaxFast(0);
}

LargeProgramAllocation::~LargeProgramAllocation() {
  const std::lock_guard lock(g_mutex);
  if (--g_scopes == 0) setMaxFast(kDefaultMaxFast);
}

}  // namespace torchir
