#pragma once
// Tensors as nested JSON lists: pytorch-ir's IR JSON keeps its constants so.
#include <nlohmann/json.hpp>

#include "program/TensorData.h"

namespace torchir {

/// The tensor as nested lists, the way `tensor.tolist()` gives it (ints stay ints, bools bools).
nlohmann::ordered_json tensorToNestedList(const TensorData& t);

/// A tensor owning its bytes, from nested lists of numbers in the given dtype (pytorch-ir constants).
TensorData tensorFromNestedList(const nlohmann::ordered_json& data, DType dtype);

}  // namespace torchir
