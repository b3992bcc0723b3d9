#include "TensorValues.h"

#include <cfloat>
#include <cmath>
#include <cstring>
#include <functional>
#include <stdexcept>

namespace torchir {

float halfToFloat(uint16_t h) {
  const uint32_t sign = (h & 0x8000u) << 16;
  const uint32_t exp = (h >> 10) & 0x1F;
  const uint32_t mant = h & 0x3FF;
  float f;
  if (exp == 0) f = std::ldexp(static_cast<float>(mant), -24);
  else if (exp == 31) f = mant ? NAN : INFINITY;
  else f = std::ldexp(static_cast<float>(mant | 0x400), static_cast<int>(exp) - 25);
  uint32_t bits;
  std::memcpy(&bits, &f, 4);
  bits |= sign;
  std::memcpy(&f, &bits, 4);
  return f;
}

float bfloat16ToFloat(uint16_t b) {
  const uint32_t bits = static_cast<uint32_t>(b) << 16;
  float f;
  std::memcpy(&f, &bits, 4);
  return f;
}

namespace {


}  // namespace

double elementAsDouble(const TensorData& t, int64_t flatIndex) {
  // flat index in row-major order of the view -> storage element
  int64_t off = t.storageOffset, rest = flatIndex;
  for (std::size_t d = t.sizes.size(); d-- > 0;) {
    off += (rest % t.sizes[d]) * t.strides[d];
    rest /= t.sizes[d];
  }
  const std::byte* p = t.storage->data + off * static_cast<int64_t>(dtypeItemSize(t.dtype));
  switch (t.dtype) {
    case DType::Float32: return loadUnaligned<float>(p);
    case DType::Float64: return loadUnaligned<double>(p);
    case DType::Float16: return halfToFloat(loadUnaligned<uint16_t>(p));
    case DType::BFloat16: return bfloat16ToFloat(loadUnaligned<uint16_t>(p));
    case DType::Int64: return static_cast<double>(loadUnaligned<int64_t>(p));
    case DType::Int32: return loadUnaligned<int32_t>(p);
    case DType::Int16: return loadUnaligned<int16_t>(p);
    case DType::Int8: return loadUnaligned<int8_t>(p);
    case DType::UInt8: return loadUnaligned<uint8_t>(p);
    case DType::UInt16: return loadUnaligned<uint16_t>(p);
    case DType::Bool: return loadUnaligned<uint8_t>(p) ? 1.0 : 0.0;
    default: throw std::runtime_error("cannot read elements of dtype " + std::string(dtypeName(t.dtype)));
  }
}


}  // namespace torchir
