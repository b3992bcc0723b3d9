#pragma once
// Per-tensor quantize and dequantize in one pass over the elements. The Python ops they stand
// for are compositions (mul, round, add, clamp, to), and run as such they make and free four
// tensors the size of the input, which costs more than the arithmetic. These loops do each
// element's arithmetic in the same float32 steps, so they give the composition's bits; where
// that cannot be promised they decline and the composition runs. Only inside libtorchir_aten.
#include <ATen/Tensor.h>

#include <optional>

namespace torchir {

/// clamp(round(input * float(1 / scale)) + zero_point, quant_min, quant_max).to(dtype), for a
/// contiguous float32 input, an integer dtype of up to 32 bits and bounds a float holds exactly;
/// nullopt otherwise, and for an input holding a NaN.
std::optional<at::Tensor> quantizeInOnePass(const at::Tensor& input, double inverseScale, int64_t zeroPoint,
                                            int64_t quantMin, int64_t quantMax, at::ScalarType dtype);

/// (input.to(float32) - zero_point) * float(scale), for a contiguous input of an integer dtype
/// of up to 32 bits and a zero point a float holds exactly; nullopt otherwise.
std::optional<at::Tensor> dequantizeInOnePass(const at::Tensor& input, double scale, int64_t zeroPoint);

}  // namespace torchir
