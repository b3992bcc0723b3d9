#include "TensorData.h"

#include <cstring>
#include <stdexcept>

#include "OneLine.h"

namespace torchir {

std::string sizesText(const std::vector<int64_t>& sizes) {
  std::string s = "[";
  for (std::size_t i = 0; i < sizes.size(); ++i) s += (i ? ", " : "") + std::to_string(sizes[i]);
  return s + "]";
}

int64_t TensorData::numel() const {
  int64_t n = 1;
  for (auto s : sizes) n *= s;
  return n;
}

std::size_t TensorData::bytesSpanned() const {
  if (numel() == 0) return 0;
  int64_t last = storageOffset;
  for (std::size_t i = 0; i < sizes.size(); ++i) last += (sizes[i] - 1) * strides[i];
  return static_cast<std::size_t>(last + 1) * dtypeItemSize(dtype);
}

std::string TensorData::layoutProblem() const {
  const auto item = static_cast<int64_t>(dtypeItemSize(dtype));
  if (item <= 0) return "has an unknown dtype";
  if (sizes.size() > kMaxRank) return "has " + std::to_string(sizes.size()) + " dimensions (at most " +
                                      std::to_string(kMaxRank) + ")";
  if (strides.size() != sizes.size())
    return "has " + std::to_string(sizes.size()) + " sizes but " + std::to_string(strides.size()) + " strides";
  if (storageOffset < 0) return "has a negative storage offset";
  int64_t count = 1;
  for (std::size_t d = 0; d < sizes.size(); ++d) {
    if (sizes[d] < 0) return "has a negative size";
    if (strides[d] < 0) return "has a negative stride";
    if (__builtin_mul_overflow(count, sizes[d], &count)) return "has sizes whose product overflows";
  }
  int64_t bytes = 0;
  if (__builtin_mul_overflow(count, item, &bytes)) return "has more bytes than a 64-bit size can count";
  if (count == 0) return {};
  int64_t last = storageOffset;
  for (std::size_t d = 0; d < sizes.size(); ++d) {
    int64_t step = 0;
    if (__builtin_mul_overflow(sizes[d] - 1, strides[d], &step) || __builtin_add_overflow(last, step, &last))
      return "has strides that reach past a 64-bit offset";
  }
  int64_t span = 0;
  if (__builtin_add_overflow(last, 1, &span) || __builtin_mul_overflow(span, item, &span))
    return "has strides that reach past a 64-bit offset";
  if (storage && storage->data && static_cast<uint64_t>(span) > storage->nbytes)
    return "needs " + std::to_string(span) + " bytes of a storage of " + std::to_string(storage->nbytes);
  // Overlapping strides let a few bytes describe terabytes; whoever copies or scans it would not finish.
  if (bytes > span && bytes > kMaxRepeatedBytes)
    return "repeats " + std::to_string(span) + " bytes of storage as " + std::to_string(bytes) +
           " (overlapping strides; at most " + std::to_string(kMaxRepeatedBytes) + ")";
  return {};
}

std::vector<int64_t> TensorData::contiguousStrides(const std::vector<int64_t>& sizes) {
  std::vector<int64_t> strides(sizes.size(), 1);
  for (std::size_t i = sizes.size(); i-- > 1;) strides[i - 1] = strides[i] * std::max<int64_t>(sizes[i], 1);
  return strides;
}

bool TensorData::runnable() const {
  if (!subclass) return hasData();
  for (const auto& [name, t] : subclass->inner)
    if (!t.runnable()) return false;
  return true;
}

const TensorData* TensorSubclass::innerTensor(const std::string& attribute) const {
  for (const auto& [name, t] : inner)
    if (name == attribute) return &t;
  return nullptr;
}

std::string TensorSubclass::summary() const {
  std::string s = className + "(";
  for (std::size_t i = 0; i < inner.size(); ++i)
    s += (i ? ", " : "") + oneLine(inner[i].first, 64) + " " + std::string(dtypeName(inner[i].second.dtype)) + " " +
         sizesText(inner[i].second.sizes);
  return s + ")";
}

bool TensorData::isContiguous() const {
  int64_t expected = 1;
  for (std::size_t i = sizes.size(); i-- > 0;) {
    if (sizes[i] == 1) continue;
    if (strides[i] != expected) return false;
    expected *= sizes[i];
  }
  return true;
}

std::vector<std::byte> TensorData::contiguousBytes() const {
  if (!hasData()) throw std::logic_error("tensor has no data");
  const std::size_t item = dtypeItemSize(dtype);
  const auto n = static_cast<std::size_t>(numel());
  std::vector<std::byte> out(n * item);
  if (out.empty()) return out;
  const std::byte* base = storage->data + storageOffset * item;
  if (isContiguous()) {
    std::memcpy(out.data(), base, out.size());
    return out;
  }
  std::vector<int64_t> index(sizes.size(), 0);
  for (std::size_t k = 0; k < n; ++k) {
    int64_t off = 0;
    for (std::size_t d = 0; d < sizes.size(); ++d) off += index[d] * strides[d];
    std::memcpy(out.data() + k * item, base + off * item, item);
    for (std::size_t d = sizes.size(); d-- > 0;) {
      if (++index[d] < sizes[d]) break;
      index[d] = 0;
    }
  }
  return out;
}

}  // namespace torchir
