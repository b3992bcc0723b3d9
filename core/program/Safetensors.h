#pragma once
#include <map>
#include <string>

#include "TensorData.h"

namespace torchir {

/// Tensors of a `.safetensors` file, memory-mapped in place, by name.
using TensorMap = std::map<std::string, TensorData>;

/// Throws LoadError naming the file and the problem (bad header, a tensor shorter than its shape).
TensorMap readSafetensors(const std::string& path);

/// Writes contiguous copies of the tensors (used for saved outputs and tests).
void writeSafetensors(const std::string& path, const TensorMap& tensors);

}  // namespace torchir
