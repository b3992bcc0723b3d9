#include "ThreadPriority.h"

#if defined(__linux__)
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cerrno>
#endif

namespace torchir {

namespace {
// CFS weighs nice 0 against nice 10 about 9 to 1: the window's thread wins a shared core at once.
constexpr int kBackgroundNice = 10;
}  // namespace

void lowerThisThreadPriority() {
#if defined(__linux__)
  // On Linux, PRIO_PROCESS with a thread id sets that thread's nice value alone.
  const auto tid = static_cast<id_t>(syscall(SYS_gettid));
  errno = 0;
  const int now = getpriority(PRIO_PROCESS, tid);
  if (errno == 0 && now >= kBackgroundNice) return;
  setpriority(PRIO_PROCESS, tid, kBackgroundNice);  // lowering needs no privilege; a failure leaves it as it was
#endif
}

}  // namespace torchir
