#pragma once
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "DType.h"

namespace torchir {

/// Bytes of one untyped storage. `owner` keeps them alive (a MappedFile, a buffer, ...).
/// A storage with no bytes but a non-zero declared size is "no data" (a meta/fake export).
struct Storage {
  const std::byte* data = nullptr;
  std::size_t nbytes = 0;
  std::shared_ptr<const void> owner;
  std::string origin;  // where the bytes come from, e.g. "model.pt2:data/weights/weight_0"
  /// When the bytes are the mapped pages of a file: a descriptor of it, open while `owner` lives,
  /// and their offset in it, so another process (the Python worker) maps them instead of a copy.
  int fileDescriptor = -1;
  std::size_t fileOffset = 0;
};

/// A strided view on a storage, torch's model without torch: weights and sample inputs.
/// "[2, 3]": sizes as messages and tables show them.
std::string sizesText(const std::vector<int64_t>& sizes);

struct TensorSubclass;

struct TensorData {
  DType dtype = DType::Unknown;
  std::vector<int64_t> sizes;
  std::vector<int64_t> strides;
  int64_t storageOffset = 0;  // in elements
  std::shared_ptr<const Storage> storage;
  /// Set for a tensor subclass (a torchao quantized weight): the view above is its outer dtype and
  /// shape, with no storage of its own; its data is the subclass's inner tensors.
  std::shared_ptr<const TensorSubclass> subclass;

  int64_t numel() const;
  /// Bytes the view reaches into its storage, from storageOffset to the last element.
  /// Valid only for a view that layoutProblem() accepts (no overflow).
  std::size_t bytesSpanned() const;
  /// Why a view read from a file cannot be used, or "" when it can: an unknown dtype, a rank past
  /// kMaxRank, sizes and strides of different lengths, a negative size, stride or offset, an element
  /// count or byte span past int64, a span past the storage's bytes (when it has data), or a view
  /// that repeats its storage (stride 0) into more than kMaxRepeatedBytes. Every reader calls it
  /// before anything else reads the view, so numel() and bytesSpanned() cannot overflow.
  std::string layoutProblem() const;
  static constexpr std::size_t kMaxRank = 64;
  static constexpr int64_t kMaxRepeatedBytes = int64_t{1} << 30;
  bool hasData() const {
    return numel() == 0 || (storage && storage->data && storage->nbytes >= bytesSpanned());
  }
  bool isContiguous() const;
  /// The elements in row-major order (copies only when the view is not contiguous).
  std::vector<std::byte> contiguousBytes() const;
  static std::vector<int64_t> contiguousStrides(const std::vector<int64_t>& sizes);
  /// Data to run on: the bytes of a plain tensor, or every inner tensor of a subclass.
  bool runnable() const;
};

/// A traceable wrapper subclass as its pickle describes it, read as data and never constructed:
/// the class by name (shown, not resolved), the inner tensors its state names (`qdata`, `scale`)
/// and the rest of the state as Python would print it (`block_size: [1, 16]`).
struct TensorSubclass {
  std::string className;  // "torchao.quantization.Int8Tensor"
  std::vector<std::pair<std::string, TensorData>> inner;
  std::vector<std::pair<std::string, std::string>> fields;
  /// The inner tensor of that attribute, or null.
  const TensorData* innerTensor(const std::string& attribute) const;
  /// "torchao.quantization.Int8Tensor(qdata int8 [8, 16], scale float32 [8, 1])"
  std::string summary() const;
};

}  // namespace torchir
