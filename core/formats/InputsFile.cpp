#include "InputsFile.h"

#include "program/LoadError.h"
#include "Safetensors.h"

namespace torchir {

std::vector<TensorData> readInputsFile(const Program& program, const std::string& path) {
  std::vector<std::string> names;
  for (const auto& s : program.inputs)
    if (s.kind == InputKind::UserInput) names.push_back(program.value(s.value).name);
  const TensorMap tensors = readSafetensors(path);
  std::vector<TensorData> out;
  for (std::size_t i = 0; i < names.size(); ++i) {
    auto it = tensors.find(names[i]);
    if (it == tensors.end()) it = tensors.find("input_" + std::to_string(i));
    if (it == tensors.end())
      throw LoadError(path, "has no tensor '" + names[i] + "' or 'input_" + std::to_string(i) + "'");
    out.push_back(it->second);
  }
  return out;
}

}  // namespace torchir
