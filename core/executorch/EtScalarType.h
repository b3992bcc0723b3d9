#pragma once
#include "program/DType.h"

namespace torchir {

/// ExecuTorch's ScalarType (schema/scalar_type.fbs) as ours. Both follow c10's numbering; the
/// quantized, 16-bit-opaque and wide unsigned types ExecuTorch also names have no DType here.
inline DType dtypeFromExecuTorch(int code) {
  switch (code) {
    case 0: return DType::UInt8;
    case 1: return DType::Int8;
    case 2: return DType::Int16;
    case 3: return DType::Int32;
    case 4: return DType::Int64;
    case 5: return DType::Float16;
    case 6: return DType::Float32;
    case 7: return DType::Float64;
    case 11: return DType::Bool;
    case 15: return DType::BFloat16;
    case 23: return DType::Float8_e5m2;
    case 24: return DType::Float8_e4m3fn;
    case 25: return DType::Float8_e5m2fnuz;
    case 26: return DType::Float8_e4m3fnuz;
    case 27: return DType::UInt16;
    default: return DType::Unknown;
  }
}

}  // namespace torchir
