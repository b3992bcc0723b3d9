#include "Crc32.h"

#include <libdeflate.h>

namespace torchir {

std::uint32_t crc32Of(const void* data, std::size_t size) { return libdeflate_crc32(0, data, size); }

}  // namespace torchir
