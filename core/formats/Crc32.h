#pragma once
#include <cstddef>
#include <cstdint>

namespace torchir {

/// The CRC-32 of `size` bytes (zip's, and the one a capture names its program by), with
/// libdeflate's carry-less multiplication: 139 MB in 16 ms, where zlib's loop took 73.
std::uint32_t crc32Of(const void* data, std::size_t size);

}  // namespace torchir
