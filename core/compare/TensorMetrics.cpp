#include "TensorMetrics.h"

#include <cmath>
#include <cstdio>
#include <limits>
#include <memory>
#include <stdexcept>
#include <vector>

#include "program/TensorValues.h"

namespace torchir {
namespace {

/// Element readers, each a type of its own so that the loop over a pair of them is compiled for it.
template <class T>
struct Plain {
  static double at(const std::byte* p, int64_t i) { return static_cast<double>(loadUnaligned<T>(p + i * sizeof(T))); }
};
struct Half {
  static double at(const std::byte* p, int64_t i) { return halfToFloat(loadUnaligned<uint16_t>(p + i * 2)); }
};
struct BFloat {
  static double at(const std::byte* p, int64_t i) { return bfloat16ToFloat(loadUnaligned<uint16_t>(p + i * 2)); }
};
struct Boolean {
  static double at(const std::byte* p, int64_t i) { return loadUnaligned<uint8_t>(p + i) ? 1.0 : 0.0; }
};

/// Calls `f(Reader{})` with the reader of dtype `d`; false for a dtype without one.
template <class F>
bool withReader(DType d, F&& f) {
  switch (d) {
    case DType::Float32: return f(Plain<float>{}), true;
    case DType::Float64: return f(Plain<double>{}), true;
    case DType::Float16: return f(Half{}), true;
    case DType::BFloat16: return f(BFloat{}), true;
    case DType::Int64: return f(Plain<int64_t>{}), true;
    case DType::Int32: return f(Plain<int32_t>{}), true;
    case DType::Int16: return f(Plain<int16_t>{}), true;
    case DType::Int8: return f(Plain<int8_t>{}), true;
    case DType::UInt8: return f(Plain<uint8_t>{}), true;
    case DType::UInt16: return f(Plain<uint16_t>{}), true;
    case DType::Bool: return f(Boolean{}), true;
    default: return false;
  }
}

/// The elements in row-major order, in place when the view is contiguous.
struct Elements {
  const std::byte* data = nullptr;
  std::vector<std::byte> copy;

  explicit Elements(const TensorData& t) {
    if (!t.hasData() || t.numel() == 0) return;
    if (t.isContiguous()) {
      data = t.storage->data + t.storageOffset * static_cast<int64_t>(dtypeItemSize(t.dtype));
    } else {
      copy = t.contiguousBytes();
      data = copy.data();
    }
  }
};

/// What the comparison sums, over the elements finite on both sides.
struct Sums {
  double sumAbs = 0, dot = 0, normA = 0, normB = 0, noise = 0, maxB = 0;
};

template <class RA, class RB>
void accumulate(const std::byte* x, const std::byte* y, int64_t n, TensorMetrics& m, Sums& s) {
  for (int64_t i = 0; i < n; ++i) {
    const double u = RA::at(x, i), v = RB::at(y, i);
    const bool fu = std::isfinite(u), fv = std::isfinite(v);
    if (!fu || !fv) {
      m.nonfiniteA += !fu;
      m.nonfiniteB += !fv;
      const bool same = (std::isnan(u) && std::isnan(v)) || u == v;  // inf == inf of one sign
      m.nonfiniteApart += !same;
      continue;
    }
    const double d = std::abs(u - v);
    m.maxAbs = std::max(m.maxAbs, d);
    s.maxB = std::max(s.maxB, std::abs(v));
    s.sumAbs += d;
    s.dot += u * v;
    s.normA += u * u;
    s.normB += v * v;
    s.noise += d * d;
    ++m.compared;
  }
}

}  // namespace

double TensorMetrics::distance() const {
  return comparable() && nonfiniteApart == 0 ? maxRel : std::numeric_limits<double>::infinity();
}

std::string metricText(double x) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.3g", x);  // inf and nan as such
  return buf;
}

TensorData differenceOf(const TensorData& a, const TensorData& b) {
  if (a.sizes != b.sizes) throw std::invalid_argument("shapes differ: " + sizesText(a.sizes) + " and " + sizesText(b.sizes));
  if (!withReader(a.dtype, [](auto) {}) || !withReader(b.dtype, [](auto) {}))
    throw std::invalid_argument("cannot subtract " + std::string(dtypeName(b.dtype)) + " from " + std::string(dtypeName(a.dtype)));
  const Elements x(a), y(b);
  const int64_t n = a.numel();
  if (n > 0 && (!x.data || !y.data)) throw std::invalid_argument("a side has no data");
  auto bytes = std::make_shared<std::vector<std::byte>>(static_cast<std::size_t>(n) * sizeof(double));
  auto* out = reinterpret_cast<double*>(bytes->data());
  withReader(a.dtype, [&](auto ra) {
    withReader(b.dtype, [&](auto rb) {
      for (int64_t i = 0; i < n; ++i) out[i] = decltype(ra)::at(x.data, i) - decltype(rb)::at(y.data, i);
    });
  });
  TensorData d;
  d.dtype = DType::Float64;
  d.sizes = a.sizes;
  d.strides = TensorData::contiguousStrides(d.sizes);
  d.storage = std::make_shared<Storage>(Storage{bytes->data(), bytes->size(), bytes, "difference"});
  return d;
}

int64_t countNonfinite(const TensorData& t) {
  if (!isFloating(t.dtype)) return 0;
  const Elements e(t);
  if (!e.data) return 0;
  int64_t n = 0;
  withReader(t.dtype, [&](auto r) {
    for (int64_t i = 0; i < t.numel(); ++i) n += !std::isfinite(decltype(r)::at(e.data, i));
  });
  return n;
}

TensorMetrics compareTensors(const TensorData& a, const TensorData& b) {
  TensorMetrics m;
  if (a.sizes != b.sizes) {
    m.problem = "shapes differ: " + sizesText(a.sizes) + " and " + sizesText(b.sizes);
    return m;
  }
  const int64_t n = a.numel();
  const Elements x(a), y(b);
  if (n > 0 && (!x.data || !y.data)) {
    m.problem = "a side has no data";
    return m;
  }
  if (!withReader(a.dtype, [](auto) {}) || !withReader(b.dtype, [](auto) {})) {
    m.problem = "cannot compare " + std::string(dtypeName(a.dtype)) + " with " + std::string(dtypeName(b.dtype));
    return m;
  }
  Sums s;
  withReader(a.dtype, [&](auto ra) {
    withReader(b.dtype, [&](auto rb) { accumulate<decltype(ra), decltype(rb)>(x.data, y.data, n, m, s); });
  });
  constexpr double kInf = std::numeric_limits<double>::infinity();
  m.maxRef = s.maxB;
  m.maxRel = s.maxB > 0 ? m.maxAbs / s.maxB : m.maxAbs > 0 ? kInf : 0;
  m.meanAbs = m.compared ? s.sumAbs / static_cast<double>(m.compared) : 0;
  m.cosine = s.normA == 0 && s.normB == 0 ? 1 : s.normA == 0 || s.normB == 0 ? 0 : s.dot / std::sqrt(s.normA * s.normB);
  m.l1 = s.sumAbs;
  m.mse = m.compared ? s.noise / static_cast<double>(m.compared) : 0;
  auto decibels = [&](double signal) { return s.noise == 0 ? kInf : signal == 0 ? -kInf : 10 * std::log10(signal / s.noise); };
  m.sqnrDb = decibels(s.normA);
  m.snrDb = decibels(s.normB);
  return m;
}

}  // namespace torchir
