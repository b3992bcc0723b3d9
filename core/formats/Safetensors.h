#pragma once
#include <map>
#include <string>

#include "program/TensorData.h"

namespace torchir {

/// Tensors of a `.safetensors` file, memory-mapped in place, by name.
using TensorMap = std::map<std::string, TensorData>;

/// The header's `__metadata__`: text by key, as the format allows.
using SafetensorsMetadata = std::map<std::string, std::string>;

/// Throws LoadError naming the file and the problem (bad header, a tensor shorter than its shape).
/// `metadata`, when given, gets `__metadata__` (a value that is not text is a LoadError).
TensorMap readSafetensors(const std::string& path, SafetensorsMetadata* metadata = nullptr);

/// Writes contiguous copies of the tensors (saved outputs, captures, tests), with `metadata`.
void writeSafetensors(const std::string& path, const TensorMap& tensors, const SafetensorsMetadata& metadata = {});

}  // namespace torchir
