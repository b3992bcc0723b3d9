#pragma once
#include <cstring>

#include "TensorData.h"

namespace torchir {

/// A T stored at `p`, which need not be aligned for T (storages are byte buffers).
template <class T>
T loadUnaligned(const std::byte* p) {
  T v;
  std::memcpy(&v, p, sizeof(T));
  return v;
}

/// IEEE half and bfloat16 bit patterns widened to float, exactly.
float halfToFloat(uint16_t bits);
float bfloat16ToFloat(uint16_t bits);

/// One element as a double (float16/bfloat16 widened exactly, integers and bools converted).
double elementAsDouble(const TensorData& t, int64_t flatIndex);

}  // namespace torchir
