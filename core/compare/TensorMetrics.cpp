#include "TensorMetrics.h"

#include <cmath>
#include <limits>
#include <vector>

#include "program/TensorValues.h"

namespace torchir {
namespace {

using ReadElement = double (*)(const std::byte*);

ReadElement readerFor(DType d) {
  switch (d) {
    case DType::Float32: return [](const std::byte* p) { return static_cast<double>(loadUnaligned<float>(p)); };
    case DType::Float64: return [](const std::byte* p) { return loadUnaligned<double>(p); };
    case DType::Float16: return [](const std::byte* p) { return static_cast<double>(halfToFloat(loadUnaligned<uint16_t>(p))); };
    case DType::BFloat16: return [](const std::byte* p) { return static_cast<double>(bfloat16ToFloat(loadUnaligned<uint16_t>(p))); };
    case DType::Int64: return [](const std::byte* p) { return static_cast<double>(loadUnaligned<int64_t>(p)); };
    case DType::Int32: return [](const std::byte* p) { return static_cast<double>(loadUnaligned<int32_t>(p)); };
    case DType::Int16: return [](const std::byte* p) { return static_cast<double>(loadUnaligned<int16_t>(p)); };
    case DType::Int8: return [](const std::byte* p) { return static_cast<double>(loadUnaligned<int8_t>(p)); };
    case DType::UInt8: return [](const std::byte* p) { return static_cast<double>(loadUnaligned<uint8_t>(p)); };
    case DType::UInt16: return [](const std::byte* p) { return static_cast<double>(loadUnaligned<uint16_t>(p)); };
    case DType::Bool: return [](const std::byte* p) { return loadUnaligned<uint8_t>(p) ? 1.0 : 0.0; };
    default: return nullptr;
  }
}

/// The elements in row-major order, in place when the view is contiguous.
struct Elements {
  const std::byte* data = nullptr;
  std::vector<std::byte> copy;
  std::size_t itemSize = 0;
  ReadElement read = nullptr;

  explicit Elements(const TensorData& t) : itemSize(dtypeItemSize(t.dtype)), read(readerFor(t.dtype)) {
    if (!read || !t.hasData() || t.numel() == 0) return;
    if (t.isContiguous()) {
      data = t.storage->data + t.storageOffset * static_cast<int64_t>(itemSize);
    } else {
      copy = t.contiguousBytes();
      data = copy.data();
    }
  }
  double operator[](int64_t i) const { return read(data + static_cast<std::size_t>(i) * itemSize); }
};

std::string shapeText(const std::vector<int64_t>& sizes) {
  std::string s = "[";
  for (std::size_t i = 0; i < sizes.size(); ++i) s += (i ? ", " : "") + std::to_string(sizes[i]);
  return s + "]";
}

}  // namespace

int64_t countNonfinite(const TensorData& t) {
  if (!isFloating(t.dtype)) return 0;
  const Elements e(t);
  if (!e.read || (!e.data && t.numel() > 0)) return 0;
  int64_t n = 0;
  for (int64_t i = 0; i < t.numel(); ++i) n += !std::isfinite(e[i]);
  return n;
}

TensorMetrics compareTensors(const TensorData& a, const TensorData& b) {
  TensorMetrics m;
  if (a.sizes != b.sizes) {
    m.problem = "shapes differ: " + shapeText(a.sizes) + " and " + shapeText(b.sizes);
    return m;
  }
  const Elements x(a), y(b);
  if (!x.read || !y.read) {
    m.problem = "cannot compare " + std::string(dtypeName(a.dtype)) + " with " + std::string(dtypeName(b.dtype));
    return m;
  }
  const int64_t n = a.numel();
  if (n > 0 && (!x.data || !y.data)) {
    m.problem = "a side has no data";
    return m;
  }
  double sumAbs = 0, dot = 0, normA = 0, normB = 0, noise = 0, maxB = 0;
  for (int64_t i = 0; i < n; ++i) {
    const double u = x[i], v = y[i];
    const bool fu = std::isfinite(u), fv = std::isfinite(v);
    m.nonfiniteA += !fu;
    m.nonfiniteB += !fv;
    if (!fu || !fv) {
      const bool same = (std::isnan(u) && std::isnan(v)) || u == v;  // inf == inf of one sign
      m.nonfiniteApart += !same;
      continue;
    }
    const double d = std::abs(u - v);
    m.maxAbs = std::max(m.maxAbs, d);
    maxB = std::max(maxB, std::abs(v));
    sumAbs += d;
    dot += u * v;
    normA += u * u;
    normB += v * v;
    noise += d * d;
    ++m.compared;
  }
  constexpr double kInf = std::numeric_limits<double>::infinity();
  m.maxRel = maxB > 0 ? m.maxAbs / maxB : m.maxAbs > 0 ? kInf : 0;
  m.meanAbs = m.compared ? sumAbs / static_cast<double>(m.compared) : 0;
  m.cosine = normA == 0 && normB == 0 ? 1 : normA == 0 || normB == 0 ? 0 : dot / std::sqrt(normA * normB);
  m.sqnrDb = noise == 0 ? kInf : normB == 0 ? -kInf : 10 * std::log10(normB / noise);
  return m;
}

}  // namespace torchir
