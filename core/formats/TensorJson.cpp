#include "TensorJson.h"

#include <cfloat>
#include <cmath>
#include <functional>
#include <stdexcept>

#include "LenientJson.h"
#include "program/TensorValues.h"

namespace torchir {

nlohmann::ordered_json tensorToNestedList(const TensorData& t) {
  int64_t flat = 0;
  auto element = [&](int64_t i) -> nlohmann::ordered_json {
    if (t.dtype == DType::Int64) {  // exact beyond 2^53
      int64_t off = t.storageOffset, rest = i;
      for (std::size_t d = t.sizes.size(); d-- > 0;) off += (rest % t.sizes[d]) * t.strides[d], rest /= t.sizes[d];
      return loadUnaligned<int64_t>(t.storage->data + off * 8);
    }
    const double v = elementAsDouble(t, i);
    if (t.dtype == DType::Bool) return v != 0.0;
    if (isIntegral(t.dtype)) return static_cast<int64_t>(v);
    return v;
  };
  std::function<nlohmann::ordered_json(std::size_t)> build = [&](std::size_t dim) -> nlohmann::ordered_json {
    if (dim == t.sizes.size()) return element(flat++);
    auto out = nlohmann::ordered_json::array();
    for (int64_t i = 0; i < t.sizes[dim]; ++i) out.push_back(build(dim + 1));
    return out;
  };
  return build(0);
}

namespace {

/// `v` as an integer of [lo, hi], or an error: casting a NaN or an out-of-range double is undefined.
int64_t integerElement(const nlohmann::ordered_json& j, double v, int64_t lo, int64_t hi, DType dtype) {
  if (j.is_number_integer()) {
    const auto exact = exactInt64(j);
    if (exact && *exact >= lo && *exact <= hi) return *exact;
  } else if (std::isfinite(v) && v >= static_cast<double>(lo) && v <= static_cast<double>(hi)) {
    return static_cast<int64_t>(v);
  }
  throw std::runtime_error("element " + j.dump() + " does not fit " + std::string(dtypeName(dtype)));
}

}  // namespace

TensorData tensorFromNestedList(const nlohmann::ordered_json& data, DType dtype) {
  TensorData t;
  t.dtype = dtype;
  const nlohmann::ordered_json* level = &data;
  while (level->is_array()) {
    if (t.sizes.size() == TensorData::kMaxRank) throw std::runtime_error("nested lists are deeper than a tensor's rank");
    t.sizes.push_back(static_cast<int64_t>(level->size()));
    if (level->empty()) break;
    level = &level->front();
  }
  t.strides = TensorData::contiguousStrides(t.sizes);
  if (const auto problem = t.layoutProblem(); !problem.empty()) throw std::runtime_error(problem);
  // The whole structure is checked before anything is allocated: every list as long as the first
  // one at its depth, so the element count is what the JSON holds, not what its first lists claim.
  std::function<void(const nlohmann::ordered_json&, std::size_t)> check = [&](const nlohmann::ordered_json& j,
                                                                               std::size_t dim) {
    if (dim < t.sizes.size()) {
      if (!j.is_array() || static_cast<int64_t>(j.size()) != t.sizes[dim]) throw std::runtime_error("nested lists are ragged");
      for (const auto& e : j) check(e, dim + 1);
    } else if (!j.is_number() && !j.is_boolean()) {
      throw std::runtime_error("element is not a number");
    }
  };
  check(data, 0);
  const std::size_t item = dtypeItemSize(dtype);
  auto bytes = std::make_shared<std::vector<std::byte>>(static_cast<std::size_t>(t.numel()) * item);
  std::size_t k = 0;
  std::function<void(const nlohmann::ordered_json&, std::size_t)> fill = [&](const nlohmann::ordered_json& j, std::size_t dim) {
    if (dim < t.sizes.size()) {
      for (const auto& e : j) fill(e, dim + 1);
      return;
    }
    std::byte* p = bytes->data() + k++ * item;
    const double v = j.is_boolean() ? (j.get<bool>() ? 1.0 : 0.0) : j.get<double>();
    auto store = [&](auto x) { std::memcpy(p, &x, sizeof x); };
    switch (dtype) {
      case DType::Float32:
        // out of float's range is undefined for a cast; Python's torch.tensor gives an infinity
        store(std::isfinite(v) && std::fabs(v) > FLT_MAX ? std::copysign(INFINITY, static_cast<float>(v)) : static_cast<float>(v));
        break;
      case DType::Float64: store(v); break;
      case DType::Int64: store(integerElement(j, v, INT64_MIN, INT64_MAX, dtype)); break;
      case DType::Int32: store(static_cast<int32_t>(integerElement(j, v, INT32_MIN, INT32_MAX, dtype))); break;
      case DType::Int16: store(static_cast<int16_t>(integerElement(j, v, INT16_MIN, INT16_MAX, dtype))); break;
      case DType::Int8: store(static_cast<int8_t>(integerElement(j, v, INT8_MIN, INT8_MAX, dtype))); break;
      case DType::UInt8: store(static_cast<uint8_t>(integerElement(j, v, 0, UINT8_MAX, dtype))); break;
      case DType::Bool: store(static_cast<uint8_t>(v != 0.0)); break;
      default: throw std::runtime_error("constants of dtype " + std::string(dtypeName(dtype)) + " are not supported");
    }
  };
  fill(data, 0);
  t.storage = std::make_shared<Storage>(Storage{bytes->data(), bytes->size(), bytes, "IR JSON constants"});
  return t;
}

}  // namespace torchir
