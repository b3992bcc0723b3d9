#include "OnePassQuantize.h"

#include <ATen/ATen.h>
#include <ATen/Parallel.h>

#include <atomic>
#include <cmath>
#include <cstdint>

namespace torchir {

namespace {

constexpr int64_t kGrain = 1 << 15;

/// Integers a float32 holds exactly, so an int Scalar cast to float (as ATen's kernels cast
/// their scalars to the tensor's dtype) is the same number.
bool exactInFloat(int64_t v) { return v >= -(int64_t{1} << 24) && v <= (int64_t{1} << 24); }

/// nearbyint in the default rounding mode (half to even), as at::round computes it: adding and
/// taking away 2^23 leaves the nearest integer of a float below 2^23, and a larger one is one.
inline float roundHalfEven(float v) {
  constexpr float kShift = 8388608.0f;  // 2^23
  const float magnitude = std::fabs(v);
  if (!(magnitude < kShift)) return v;
  return std::copysign((magnitude + kShift) - kShift, v);
}

template <class Code>
bool quantizeInto(const float* in, Code* out, int64_t n, float inverse, float zero, float low, float high) {
  std::atomic<bool> nan{false};
  at::parallel_for(0, n, kGrain, [&](int64_t begin, int64_t end) {
    bool sawNan = false;
    for (int64_t i = begin; i < end; ++i) {
      float v = roundHalfEven(in[i] * inverse) + zero;
      if (v != v) {  // converting a NaN is undefined here: the composition decides what it makes
        sawNan = true;
        v = 0;
      }
      v = v < low ? low : v;
      v = v > high ? high : v;
      out[i] = static_cast<Code>(v);
    }
    if (sawNan) nan = true;
  });
  return !nan;
}

template <class Code>
void dequantizeInto(const Code* in, float* out, int64_t n, float zero, float scale) {
  at::parallel_for(0, n, kGrain, [&](int64_t begin, int64_t end) {
    for (int64_t i = begin; i < end; ++i) out[i] = (static_cast<float>(in[i]) - zero) * scale;
  });
}

}  // namespace

std::optional<at::Tensor> quantizeInOnePass(const at::Tensor& input, double inverseScale, int64_t zeroPoint,
                                            int64_t quantMin, int64_t quantMax, at::ScalarType dtype) {
  if (input.scalar_type() != at::kFloat || !input.is_cpu() || !input.is_contiguous() || input.is_conj() ||
      input.is_neg())
    return std::nullopt;
  if (!exactInFloat(zeroPoint) || !exactInFloat(quantMin) || !exactInFloat(quantMax)) return std::nullopt;
  const auto inverse = static_cast<float>(inverseScale);
  const auto zero = static_cast<float>(zeroPoint), low = static_cast<float>(quantMin), high = static_cast<float>(quantMax);
  at::Tensor out = at::empty(input.sizes(), input.options().dtype(dtype));
  const float* in = input.const_data_ptr<float>();
  const int64_t n = input.numel();
  bool done = false;
  switch (dtype) {
    case at::kChar: done = quantizeInto(in, out.mutable_data_ptr<int8_t>(), n, inverse, zero, low, high); break;
    case at::kByte: done = quantizeInto(in, out.mutable_data_ptr<uint8_t>(), n, inverse, zero, low, high); break;
    case at::kShort: done = quantizeInto(in, out.mutable_data_ptr<int16_t>(), n, inverse, zero, low, high); break;
    case at::kInt: done = quantizeInto(in, out.mutable_data_ptr<int32_t>(), n, inverse, zero, low, high); break;
    default: return std::nullopt;
  }
  if (!done) return std::nullopt;
  return out;
}

std::optional<at::Tensor> dequantizeInOnePass(const at::Tensor& input, double scale, int64_t zeroPoint) {
  if (!input.is_cpu() || !input.is_contiguous() || !exactInFloat(zeroPoint)) return std::nullopt;
  at::Tensor out = at::empty(input.sizes(), input.options().dtype(at::kFloat));
  const auto zero = static_cast<float>(zeroPoint);
  const auto s = static_cast<float>(scale);
  float* o = out.mutable_data_ptr<float>();
  const int64_t n = input.numel();
  switch (input.scalar_type()) {
    case at::kChar: dequantizeInto(input.const_data_ptr<int8_t>(), o, n, zero, s); break;
    case at::kByte: dequantizeInto(input.const_data_ptr<uint8_t>(), o, n, zero, s); break;
    case at::kShort: dequantizeInto(input.const_data_ptr<int16_t>(), o, n, zero, s); break;
    case at::kInt:
      // an int32 code beyond 2^24 converts to float with rounding, as .to(float32) does
      dequantizeInto(input.const_data_ptr<int32_t>(), o, n, zero, s);
      break;
    default: return std::nullopt;
  }
  return out;
}

}  // namespace torchir
