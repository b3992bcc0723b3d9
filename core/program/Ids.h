#pragma once
#include <cstdint>

namespace torchir {

using ValueId = int32_t;
using NodeId = int32_t;
constexpr int32_t kNone = -1;

}  // namespace torchir
