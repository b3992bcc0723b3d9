#pragma once
#include <string>
#include <vector>

#include "program/Program.h"
#include "program/TensorData.h"

namespace torchir {

/// A program's user inputs, in user-input order, from a `.safetensors` file: each input is found by
/// its name in the program, else as `input_<i>` (the names `torchir run --save-outputs` and the
/// fixture scripts write). Throws LoadError naming the file when an input is missing or the file
/// cannot be read. The tensors stay mapped from the file.
std::vector<TensorData> readInputsFile(const Program& program, const std::string& path);

}  // namespace torchir
