#pragma once
#include <string>
#include <utility>
#include <vector>

#include "Safetensors.h"

namespace torchir {

class Pt2Archive;

/// Reading `torch.save` zip files without Python and without running their pickle: a restricted
/// unpickler (Unpickler.h) accepts only tensors and plain containers, so files from strangers are
/// safe. Tensors are views into the memory-mapped storage records (no copies); tensors that share
/// a storage in the file (tied weights) share one Storage here. All failures throw LoadError.

/// Tensors of a `torch.save(model.state_dict())` file (.pt/.pth/.bin) by key. Nested dicts and
/// lists (a checkpoint like {"model": ..., "step": 3}) are flattened with '.'; non-tensor values are
/// left out.
TensorMap readTorchSaveStateDict(const std::string& path);

/// Every tensor of an opened torch.save archive with its flattened key, in pickle order.
std::vector<std::pair<std::string, TensorData>> readTorchSave(const Pt2Archive& archive);

/// The tensors of a torch.save file stored (uncompressed) as `record` of `archive`, read in place,
/// in order: for the `(args, kwargs)` of a .pt2's `data/sample_inputs/model.pt`, the tensors of args,
/// then those of kwargs' values.
std::vector<TensorData> readTorchSaveTensors(const Pt2Archive& archive, const std::string& record);

/// The one tensor a .pt2 stores pickled in `record` (`use_pickle`: a tensor subclass such as
/// torchao's quantized weights, torch.save'd alone), read as data: a subclass keeps its class by
/// name, its inner tensors and its other state as text (TensorData::subclass).
TensorData readPickledTensor(const Pt2Archive& archive, const std::string& record);

/// The sample inputs of a .pt2 (its `data/sample_inputs/model.pt`); empty when it has none.
std::vector<TensorData> readSampleInputs(const Pt2Archive& pt2);

}  // namespace torchir
