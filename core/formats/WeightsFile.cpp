#include "WeightsFile.h"

#include <algorithm>
#include <cstring>

#include "program/LoadError.h"
#include "MappedFile.h"
#include "program/Program.h"
#include "TorchSaveReader.h"

namespace torchir {

TensorMap readWeightsFile(const std::string& path) {
  char magic[2] = {0, 0};
  {
    const auto file = MappedFile::open(path);  // regular files only: a FIFO would block a read
    if (file->size() > 0) std::memcpy(magic, file->data(), std::min<std::size_t>(file->size(), 2));
  }
  if (magic[0] == 'P' && magic[1] == 'K') return readTorchSaveStateDict(path);
  return readSafetensors(path);
}

namespace {
std::string describe(DType dtype, const std::vector<int64_t>& shape) { return std::string(dtypeName(dtype)) + sizesText(shape); }
}  // namespace

void supplyWeights(Program& p, const std::string& path) {
  const TensorMap tensors = readWeightsFile(path);
  for (const auto& spec : p.inputs) {
    if (spec.kind == InputKind::UserInput) continue;
    auto it = tensors.find(spec.target);
    if (it == tensors.end()) continue;
    const Value& v = p.value(spec.value);
    std::vector<int64_t> shape;
    for (const auto& d : v.shape) shape.push_back(d.hint);
    if (it->second.sizes != shape)
      throw LoadError(path, "weight '" + spec.target + "' is " + describe(it->second.dtype, it->second.sizes) +
                                ", the program records " + describe(v.dtype, shape));
    p.weights[spec.target] = it->second;
  }
}

std::vector<WeightOfOtherDtype> weightsOfOtherDtype(const Program& p) {
  std::vector<WeightOfOtherDtype> out;
  for (const auto& spec : p.inputs) {
    if (spec.kind == InputKind::UserInput) continue;
    const auto it = p.weights.find(spec.target);
    const Value& v = p.value(spec.value);
    if (it != p.weights.end() && v.kind == ValueKind::Tensor && v.dtype != DType::Unknown && it->second.dtype != v.dtype)
      out.push_back({spec.target, it->second.dtype, v.dtype});
  }
  return out;
}

std::string describeWeightsOfOtherDtype(const std::vector<WeightOfOtherDtype>& weights) {
  constexpr std::size_t kNamed = 4;
  std::string s = std::to_string(weights.size()) + (weights.size() == 1 ? " weight has" : " weights have") +
                  " another dtype than the export:";
  for (std::size_t i = 0; i < weights.size() && i < kNamed; ++i)
    s += std::string(i ? "," : "") + " " + weights[i].name + " " + std::string(dtypeName(weights[i].given)) +
         " (export " + std::string(dtypeName(weights[i].exported)) + ")";
  if (weights.size() > kNamed) s += ", and " + std::to_string(weights.size() - kNamed) + " more";
  return s;
}

}  // namespace torchir
