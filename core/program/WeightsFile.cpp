#include "WeightsFile.h"

#include <algorithm>
#include <cstring>

#include "LoadError.h"
#include "MappedFile.h"
#include "Program.h"
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
std::string describe(DType dtype, const std::vector<int64_t>& shape) {
  std::string s = std::string(dtypeName(dtype)) + "[";
  for (std::size_t i = 0; i < shape.size(); ++i) s += (i ? ", " : "") + std::to_string(shape[i]);
  return s + "]";
}
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
    if (it->second.sizes != shape || it->second.dtype != v.dtype)
      throw LoadError(path, "weight '" + spec.target + "' is " + describe(it->second.dtype, it->second.sizes) +
                                ", the program records " + describe(v.dtype, shape));
    p.weights[spec.target] = it->second;
  }
}

}  // namespace torchir
