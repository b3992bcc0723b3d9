#pragma once
#include <string>

#include "Safetensors.h"

namespace torchir {

/// Tensors by name from a weights file: `.safetensors`, or a `torch.save` state dict
/// (`.pt`, `.pth`, `.bin`), chosen by the file's first bytes.
TensorMap readWeightsFile(const std::string& path);

struct Program;
/// Gives the program's parameters, buffers and constants the data found in `path`, by
/// state_dict key; each must have the recorded shape and dtype. Keys not in the file stay as
/// they were (missing data stays listed by Program::missingData).
void supplyWeights(Program& program, const std::string& path);

}  // namespace torchir
