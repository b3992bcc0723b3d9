#include "panels/TensorStats.h"

#include <cmath>
#include <cstring>
#include <limits>
#include <memory>
#include <stdexcept>
#include <string>

#include "program/TensorValues.h"

namespace torchir::ui {

namespace {


// Calls f(double) for every element in row-major order. The storage offset of each element is
// kept by an odometer over the dims, so strided views cost no more than contiguous ones.
template <class T, class Convert, class F>
void visitTyped(const torchir::TensorData& t, Convert convert, F&& f) {
  const std::byte* base = t.storage->data;
  const int64_t n = t.numel();
  if (n == 0) return;
  if (t.isContiguous()) {
    const std::byte* p = base + t.storageOffset * static_cast<int64_t>(sizeof(T));
    for (int64_t i = 0; i < n; ++i) f(convert(loadUnaligned<T>(p + i * static_cast<int64_t>(sizeof(T)))));
    return;
  }
  const std::size_t rank = t.sizes.size();
  // Not a std::vector: GCC 12 warns (falsely) about freeing it when inlined here.
  const std::unique_ptr<int64_t[]> idx(new int64_t[rank]());
  int64_t off = t.storageOffset;
  for (int64_t i = 0; i < n; ++i) {
    f(convert(loadUnaligned<T>(base + off * static_cast<int64_t>(sizeof(T)))));
    for (std::size_t d = rank; d-- > 0;) {
      if (++idx[d] < t.sizes[d]) {
        off += t.strides[d];
        break;
      }
      off -= (t.sizes[d] - 1) * t.strides[d];
      idx[d] = 0;
    }
  }
}

template <class F>
void visitElements(const torchir::TensorData& t, F&& f) {
  if (t.numel() > 0 && !t.hasData()) throw std::runtime_error("the tensor has no data");
  auto same = [](auto v) { return static_cast<double>(v); };
  switch (t.dtype) {
    case torchir::DType::Float32: return visitTyped<float>(t, same, f);
    case torchir::DType::Float64: return visitTyped<double>(t, same, f);
    case torchir::DType::Float16: return visitTyped<uint16_t>(t, [](uint16_t v) { return double(torchir::halfToFloat(v)); }, f);
    case torchir::DType::BFloat16:
      return visitTyped<uint16_t>(t, [](uint16_t v) { return double(torchir::bfloat16ToFloat(v)); }, f);
    case torchir::DType::Int64: return visitTyped<int64_t>(t, same, f);
    case torchir::DType::Int32: return visitTyped<int32_t>(t, same, f);
    case torchir::DType::Int16: return visitTyped<int16_t>(t, same, f);
    case torchir::DType::Int8: return visitTyped<int8_t>(t, same, f);
    case torchir::DType::UInt8: return visitTyped<uint8_t>(t, same, f);
    case torchir::DType::UInt16: return visitTyped<uint16_t>(t, same, f);
    case torchir::DType::Bool: return visitTyped<uint8_t>(t, [](uint8_t v) { return v ? 1.0 : 0.0; }, f);
    default:
      // elementAsDouble knows what it can read and throws a named error for the rest.
      for (int64_t i = 0; i < t.numel(); ++i) f(torchir::elementAsDouble(t, i));
  }
}

}  // namespace

TensorStats computeTensorStats(const torchir::TensorData& tensor) {
  TensorStats s;
  s.numel = tensor.numel();
  double lo = std::numeric_limits<double>::infinity(), hi = -lo;
  double mean = 0, m2 = 0;  // Welford: stable for large tensors of similar values
  visitElements(tensor, [&](double v) {
    if (std::isnan(v)) {
      ++s.nanCount;
      return;
    }
    if (std::isinf(v)) {
      ++s.infCount;
      return;
    }
    if (v == 0) ++s.zeroCount;
    ++s.finiteCount;
    lo = v < lo ? v : lo;
    hi = v > hi ? v : hi;
    const double delta = v - mean;
    mean += delta / static_cast<double>(s.finiteCount);
    m2 += delta * (v - mean);
  });
  if (s.finiteCount == 0) {
    s.min = s.max = s.mean = s.std = std::numeric_limits<double>::quiet_NaN();
    return s;
  }
  s.min = lo;
  s.max = hi;
  s.mean = mean;
  s.std = s.finiteCount > 1 ? std::sqrt(m2 / static_cast<double>(s.finiteCount - 1))
                            : std::numeric_limits<double>::quiet_NaN();
  return s;
}

int64_t tensorCount(const torchir::TensorData& tensor, double value) {
  int64_t n = 0;
  visitElements(tensor, [&](double v) { n += v == value; });
  return n;
}

std::vector<int64_t> tensorHistogram(const torchir::TensorData& tensor, int bins, double lo, double hi) {
  std::vector<int64_t> counts(static_cast<std::size_t>(std::max(bins, 1)), 0);
  const double width = hi > lo ? (hi - lo) / static_cast<double>(counts.size()) : 0;
  visitElements(tensor, [&](double v) {
    if (!std::isfinite(v) || v < lo || v > hi) return;
    std::size_t bin = width > 0 ? static_cast<std::size_t>((v - lo) / width) : 0;
    if (bin >= counts.size()) bin = counts.size() - 1;
    ++counts[bin];
  });
  return counts;
}

}  // namespace torchir::ui
