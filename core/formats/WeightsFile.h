#pragma once
#include <string>
#include <vector>

#include "Safetensors.h"

namespace torchir {

/// Tensors by name from a weights file: `.safetensors`, or a `torch.save` state dict
/// (`.pt`, `.pth`, `.bin`), chosen by the file's first bytes.
TensorMap readWeightsFile(const std::string& path);

struct Program;
/// Gives the program's parameters, buffers and constants the data found in `path`, by
/// state_dict key; each must have the recorded shape (LoadError otherwise). One of another dtype
/// is taken as it is (float16 weights for a float32 export are what a debugger is for): see
/// weightsOfOtherDtype. Keys not in the file stay as they were (missing data stays listed by
/// Program::missingData).
void supplyWeights(Program& program, const std::string& path);

/// A weight whose data has another dtype than the export recorded for it.
struct WeightOfOtherDtype {
  std::string name;  // state_dict key or constant name
  DType given = DType::Unknown, exported = DType::Unknown;
};
std::vector<WeightOfOtherDtype> weightsOfOtherDtype(const Program& program);
/// "2 weights have another dtype than the export: fc1.weight float16 (export float32), ...".
std::string describeWeightsOfOtherDtype(const std::vector<WeightOfOtherDtype>& weights);

}  // namespace torchir
