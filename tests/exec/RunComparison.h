#pragma once
// What the engine tests share: inputs from a fixture file, and how far an output is from eager's.
#include <cmath>
#include <string>
#include <vector>

#include "program/Safetensors.h"
#include "program/TensorValues.h"

namespace torchir::test {

/// `input_0`, `input_1`, ... of a safetensors file, in order.
inline std::vector<TensorData> inputsOf(const std::string& path) {
  const TensorMap m = readSafetensors(path);
  std::vector<TensorData> out;
  for (std::size_t i = 0; m.count("input_" + std::to_string(i)); ++i) out.push_back(m.at("input_" + std::to_string(i)));
  return out;
}

/// max |a - b| / max(1, max |b|): 0 when bit-identical; NaN matches NaN, infinities match themselves.
inline double relativeError(const TensorData& a, const TensorData& b) {
  if (a.sizes != b.sizes || a.dtype != b.dtype) return INFINITY;
  double worst = 0, scale = 1;
  for (int64_t i = 0; i < b.numel(); ++i) scale = std::max(scale, std::abs(elementAsDouble(b, i)));
  for (int64_t i = 0; i < b.numel(); ++i) {
    const double x = elementAsDouble(a, i), y = elementAsDouble(b, i);
    if ((std::isnan(x) && std::isnan(y)) || x == y) continue;
    worst = std::max(worst, std::abs(x - y));
  }
  return worst / scale;
}

}  // namespace torchir::test
