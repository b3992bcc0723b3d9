#include "AllocatorTuning.h"

#if defined(__GLIBC__)
#include <malloc.h>
#endif

namespace torchir {

void tuneAllocatorForLargePrograms() {
#if defined(__GLIBC__)
  mallopt(M_MXFAST, 0);
#endif
}

}  // namespace torchir
