#pragma once
// The CPU allocator the engine installs for ATen: small tensor blocks are kept and reused.
#include <cstddef>

namespace torchir {

/// Makes ATen's CPU tensors of up to 4 KiB come from size-classed free lists instead of
/// posix_memalign. c10's default allocator asks glibc for every tensor 64-byte aligned, which glibc
/// serves outside its per-thread caches by carving a bigger chunk and consolidating its bins: on a
/// program of tiny ops that costs more than the ops' kernels. Larger blocks are allocated and freed
/// each time, as by c10's. Blocks stay 64-byte aligned; the free lists hold at most 64 MiB in all
/// and are shared by all threads. Done when libtorchir_aten is loaded; idempotent.
void installSmallBlockAllocator();

/// Bytes held in the free lists now (blocks freed and kept for reuse).
std::size_t smallBlockCacheBytes();

}  // namespace torchir
