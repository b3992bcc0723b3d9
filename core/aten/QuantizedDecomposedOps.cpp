// The quantized_decomposed ops (quantize_per_tensor, dequantize_per_channel, ...) are defined only in Python, by
// torch/ao/quantization/fx/_decomposed.py, so libtorch alone lacks them. They are registered here with the exact
// schemas and dispatch keys torch 2.14 declares, and kernels that make the same ATen calls in the same order and dtypes,
// so the engine, the IR converter and schema lookups treat them as any dispatcher op, with the same bits as Python.

#include <ATen/ATen.h>
#include <c10/core/DefaultDtype.h>
#include <torch/csrc/autograd/custom_function.h>
#include <torch/library.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>
#include <optional>
#include <sstream>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "OnePassQuantize.h"

namespace torchir {
namespace {

using at::ScalarType;
using at::Tensor;

// ---------------------------------------------------------------------------------------------------------------
// Python's spellings, for error messages that read as the Python ones do.

/// A dtype as Python prints it: torch.float32, torch.uint8.
std::string pyDtype(ScalarType t) { return "torch." + std::string(c10::getDtypeNames(t).first); }

/// A Python number as str() prints it: 3, 1.0, True.
std::string pyNumber(const at::Scalar& s) {
  if (s.isBoolean()) return s.toBool() ? "True" : "False";
  if (s.isIntegral(/*includeBool=*/false)) return std::to_string(s.toLong());
  const double d = s.toDouble();
  if (std::isnan(d)) return "nan";
  if (std::isinf(d)) return d > 0 ? "inf" : "-inf";
  std::string out;
  for (int precision = 1; precision <= 17; ++precision) {  // the shortest that reads back, as repr() does
    std::ostringstream os;
    os.precision(precision);
    os << d;
    out = os.str();
    if (std::stod(out) == d) break;
  }
  if (out.find_first_of(".e") == std::string::npos) out += ".0";
  return out;
}

/// A shape as Python prints it: torch.Size([2, 1]).
std::string pySize(at::IntArrayRef sizes) {
  std::string out = "torch.Size([";
  for (std::size_t i = 0; i < sizes.size(); ++i) out += (i ? ", " : "") + std::to_string(sizes[i]);
  return out + "])";
}

// ---------------------------------------------------------------------------------------------------------------
// Helpers of _decomposed.py and torch/ao/quantization/utils.py.

/// _DTYPE_TO_QVALUE_BOUNDS: iinfo of the integer dtypes, int(finfo) of the float8 ones.
std::optional<std::pair<int64_t, int64_t>> qvalueBounds(ScalarType dtype) {
  switch (dtype) {
    case ScalarType::Byte:
      return std::make_pair<int64_t, int64_t>(0, 255);
    case ScalarType::Char:
      return std::make_pair<int64_t, int64_t>(-128, 127);
    case ScalarType::UInt16:
      return std::make_pair<int64_t, int64_t>(0, 65535);
    case ScalarType::Short:
      return std::make_pair<int64_t, int64_t>(-32768, 32767);
    case ScalarType::Int:
      return std::make_pair<int64_t, int64_t>(-2147483648LL, 2147483647LL);
    case ScalarType::Float8_e5m2:
      return std::make_pair<int64_t, int64_t>(-57344, 57344);
    case ScalarType::Float8_e4m3fn:
      return std::make_pair<int64_t, int64_t>(-448, 448);
    default:
      return std::nullopt;
  }
}

constexpr const char* kQValueBoundsKeys =
    "dict_keys([torch.uint8, torch.int8, torch.uint16, torch.int16, torch.int32, torch.float8_e5m2, "
    "torch.float8_e4m3fn])";

/// Python's `a < b` for an int bound and a number that .item() may have made a float or a bool.
bool lessThan(const at::Scalar& a, int64_t b) {
  return a.isFloatingPoint() ? a.toDouble() < static_cast<double>(b) : a.toLong() < b;
}
bool greaterThan(const at::Scalar& a, int64_t b) {
  return a.isFloatingPoint() ? a.toDouble() > static_cast<double>(b) : a.toLong() > b;
}

/// _quant_min_max_bounds_check
void quantMinMaxBoundsCheck(const at::Scalar& quant_min, const at::Scalar& quant_max, ScalarType dtype) {
  const auto bounds = qvalueBounds(dtype);
  TORCH_CHECK_VALUE(bounds.has_value(), "Unsupported dtype: ", pyDtype(dtype));
  const auto [lower, upper] = *bounds;
  TORCH_CHECK(!lessThan(quant_min, lower), "quant_min out of bounds for dtype, quant_min_lower_bound: ", lower,
              " quant_min: ", pyNumber(quant_min));
  TORCH_CHECK(!greaterThan(quant_max, upper), "quant_max out of bounds for dtype, quant_max_upper_bound: ", upper,
              " quant_max: ", pyNumber(quant_max));
}

/// validate_qmin_qmax (torch/ao/quantization/utils.py)
void validateQminQmax(int64_t quant_min, int64_t quant_max) {
  TORCH_CHECK(quant_min <= 0 && 0 <= quant_max, "Used-specified quantization range must include 0.");
  TORCH_CHECK(quant_min < quant_max, "qmin must be strictly less than qmax for user-specified quantization range.");
}

/// `input.to(torch.float32)` for float16/bfloat16 inputs, then the float32 check, as the quantize ops begin.
Tensor float32Input(const Tensor& input) {
  Tensor in = input;
  if (in.scalar_type() == ScalarType::Half || in.scalar_type() == ScalarType::BFloat16) in = in.to(ScalarType::Float);
  TORCH_CHECK(in.scalar_type() == ScalarType::Float, "Expecting input to have dtype torch.float32, but got dtype: ",
              pyDtype(in.scalar_type()));
  return in;
}

/// Python's `1.0 / t` for a tensor t: Tensor.__rtruediv__ is `t.reciprocal() * 1.0`.
Tensor oneOver(const Tensor& t) { return t.reciprocal() * at::Scalar(1.0); }

/// _permute_to_axis_zero: swaps `axis` and 0 in list(range(dim)); a negative axis indexes the list from its end and
/// stays negative in it (permute wraps it).
std::pair<Tensor, std::vector<int64_t>> permuteToAxisZero(const Tensor& x, int64_t axis) {
  const int64_t n = x.dim();
  std::vector<int64_t> axes(static_cast<std::size_t>(n));
  std::iota(axes.begin(), axes.end(), int64_t{0});
  const int64_t pos = axis < 0 ? axis + n : axis;
  TORCH_CHECK_INDEX(pos >= 0 && pos < n, "list assignment index out of range");
  axes[static_cast<std::size_t>(pos)] = 0;
  axes[0] = axis;
  return {x.permute(axes), axes};
}

/// [1] * dim with scales.shape[0] first: the view that lines per-channel parameters up with axis 0.
std::vector<int64_t> channelShape(int64_t dim, const Tensor& scales) {
  TORCH_CHECK_INDEX(dim > 0, "list assignment index out of range");
  TORCH_CHECK_INDEX(scales.dim() > 0, "tuple index out of range");
  std::vector<int64_t> shape(static_cast<std::size_t>(dim), 1);
  shape[0] = scales.size(0);
  return shape;
}

/// check_min_max_valid (torch/ao/quantization/utils.py)
bool checkMinMaxValid(const Tensor& min_val, const Tensor& max_val) {
  constexpr const char* kNotObserved =
      "must run observer before calling calculate_qparams. Returning default values.";
  if (min_val.numel() == 0 || max_val.numel() == 0) {
    TORCH_WARN(kNotObserved);
    return false;
  }
  if (min_val.dim() == 0 || max_val.dim() == 0) {
    if (min_val.eq(INFINITY).item<bool>() && max_val.eq(-INFINITY).item<bool>()) {
      TORCH_WARN(kNotObserved);
      return false;
    }
    TORCH_CHECK(!min_val.gt(max_val).item<bool>(), "min ", min_val, " should be less than max ", max_val);
  } else {
    TORCH_CHECK(!at::any(min_val.gt(max_val)).item<bool>(), "min ", min_val, " should be less than max ", max_val);
  }
  return true;
}

/// determine_qparams (torch/ao/quantization/utils.py) with has_customized_qrange=False, for the per-tensor affine and
/// symmetric qschemes its two callers pass.
std::tuple<Tensor, Tensor> determineQparams(const Tensor& min_val, const Tensor& max_val, int64_t quant_min,
                                            int64_t quant_max, ScalarType dtype, Tensor eps, bool symmetric) {
  if (!checkMinMaxValid(min_val, max_val)) {
    // torch.tensor([1.0], device=...) and torch.tensor([0], ...): the default dtype and int64, on the device type
    const at::Device device(min_val.device().type());
    return {at::full({1}, 1.0, at::TensorOptions().dtype(c10::get_default_dtype_as_scalartype()).device(device)),
            at::full({1}, at::Scalar(int64_t{0}), at::TensorOptions().dtype(ScalarType::Long).device(device))};
  }
  const Tensor min_val_neg = at::min(min_val, at::zeros_like(min_val));
  Tensor max_val_pos = at::max(max_val, at::zeros_like(max_val));

  const at::Device device = min_val_neg.device();
  Tensor scale;
  Tensor zero_point = at::zeros(min_val_neg.sizes(), at::TensorOptions().dtype(ScalarType::Long).device(device));
  eps = eps.to(device);

  if (symmetric) {
    max_val_pos = at::max(-min_val_neg, max_val_pos);
    // a tensor divided by a Python float: the computation stays in the input's dtype until the max with eps
    scale = max_val_pos / at::Scalar(static_cast<double>(quant_max - quant_min) / 2);
    scale = at::max(scale, eps);
    if (dtype == ScalarType::Byte || dtype == ScalarType::QUInt8) {
      zero_point = zero_point.new_full(zero_point.sizes(), at::Scalar(int64_t{128}));
    }
  } else {
    scale = (max_val_pos - min_val_neg) / at::Scalar(static_cast<double>(quant_max - quant_min));
    scale = at::max(scale, eps);
    // `quant_min - t` is Tensor.__rsub__, i.e. rsub(t, quant_min), in int32
    zero_point = at::rsub(at::round(min_val_neg / scale).to(ScalarType::Int), at::Scalar(quant_min));
    zero_point = at::clamp(zero_point, at::Scalar(quant_min), at::Scalar(quant_max));
  }

  if (scale.dim() == 0) {
    scale = at::full({1}, scale.item<double>(), at::TensorOptions().dtype(scale.scalar_type()).device(device));
  }
  if (zero_point.dim() == 0) {
    zero_point = at::full({1}, at::Scalar(zero_point.item<int64_t>()),
                          at::TensorOptions().dtype(zero_point.scalar_type()).device(device));
  }
  return {scale.to(ScalarType::Double), zero_point.to(ScalarType::Long)};
}

/// _per_token_quant_qparam_dim_check
void perTokenQuantQparamDimCheck(const Tensor& input, const Tensor& scales, const Tensor& zero_points) {
  int64_t num_tokens = 1;
  for (int64_t d = 0; d + 1 < input.dim(); ++d) num_tokens *= input.size(d);
  TORCH_CHECK(num_tokens == scales.numel(), "num_tokens: ", num_tokens, " scales: ", pySize(scales.sizes()));
  TORCH_CHECK(num_tokens == zero_points.numel(), "num_tokens: ", num_tokens,
              " zero_points: ", pySize(zero_points.sizes()));
}

/// The group_size checks of the per-channel-group ops; returns the group size they use.
int64_t checkedGroupSize(const Tensor& input, const Tensor& scales, int64_t group_size, const char* name) {
  TORCH_CHECK(group_size > 1, "group_size must be > 1");
  TORCH_CHECK_INDEX(input.dim() > 0, "tuple index out of range");
  // needed for GPTQ single column (de)quantize
  if (group_size > input.size(-1)) {
    TORCH_CHECK_INDEX(scales.dim() > 0, "tuple index out of range");
    if (scales.size(-1) == 1) group_size = input.size(-1);
  }
  TORCH_CHECK(input.size(-1) % group_size == 0, name, ".shape[-1] must be divisible by group_size");
  TORCH_CHECK(input.dim() == 2, name, " must be 2-dimensional");
  return group_size;
}

void checkOneElement(const Tensor& scale, const Tensor& zero_point) {
  TORCH_CHECK(zero_point.numel() == 1, "Expecting zero_point tensor to be one element, but received : ",
              zero_point.numel());
  TORCH_CHECK(scale.numel() == 1, "Expecting scale tensor to be one element, but received : ", scale.numel());
}

// ---------------------------------------------------------------------------------------------------------------
// Per-tensor quantize / dequantize. The .tensor and .tensor2 overloads call the Python function of the default one
// with .item() values, which stay Python ints or floats as the tensors' dtypes make them: Scalars here.

Tensor quantizePerTensorImpl(const Tensor& input, const at::Scalar& scale, const at::Scalar& zero_point,
                             const at::Scalar& quant_min, const at::Scalar& quant_max, ScalarType dtype) {
  const Tensor in = float32Input(input);
  quantMinMaxBoundsCheck(quant_min, quant_max, dtype);
  // `1.0 / scale` on Python numbers: a double, and ZeroDivisionError for 0
  TORCH_CHECK(scale.toDouble() != 0.0, "float division by zero");
  const double inv_scale = 1.0 / scale.toDouble();
  if (zero_point.isIntegral(/*includeBool=*/true) && quant_min.isIntegral(true) && quant_max.isIntegral(true))
    if (auto fast = quantizeInOnePass(in, inv_scale, zero_point.toLong(), quant_min.toLong(), quant_max.toLong(), dtype))
      return *fast;
  // zero point added after rounding, as the Python does
  return at::clamp(at::round(in * at::Scalar(inv_scale)) + zero_point, quant_min, quant_max).to(dtype);
}

Tensor quantize_per_tensor(const Tensor& input, double scale, int64_t zero_point, int64_t quant_min,
                           int64_t quant_max, ScalarType dtype) {
  return quantizePerTensorImpl(input, at::Scalar(scale), at::Scalar(zero_point), at::Scalar(quant_min),
                               at::Scalar(quant_max), dtype);
}

Tensor quantize_per_tensor_tensor(const Tensor& input, const Tensor& scale, const Tensor& zero_point,
                                  int64_t quant_min, int64_t quant_max, ScalarType dtype) {
  checkOneElement(scale, zero_point);
  const at::Scalar s = scale.item();
  const at::Scalar zp = zero_point.item();
  return quantizePerTensorImpl(input, s, zp, at::Scalar(quant_min), at::Scalar(quant_max), dtype);
}

Tensor quantize_per_tensor_tensor2(const Tensor& input, const Tensor& scale, const Tensor& zero_point,
                                   const Tensor& quant_min, const Tensor& quant_max, ScalarType dtype) {
  checkOneElement(scale, zero_point);
  const at::Scalar s = scale.item();
  const at::Scalar zp = zero_point.item();
  const at::Scalar qmin = quant_min.item();
  const at::Scalar qmax = quant_max.item();
  return quantizePerTensorImpl(input, s, zp, qmin, qmax, dtype);
}

Tensor dequantizePerTensorImpl(const Tensor& input, const at::Scalar& scale, const at::Scalar& zero_point,
                               ScalarType dtype, std::optional<ScalarType> out_dtype) {
  TORCH_CHECK(input.scalar_type() == dtype, "Expecting input to have dtype: ", pyDtype(dtype), ", but got ",
              pyDtype(input.scalar_type()));
  const ScalarType out = out_dtype.value_or(ScalarType::Float);
  TORCH_CHECK_VALUE(qvalueBounds(dtype).has_value(), "Unsupported dtype in dequantize_per_tensor: ", pyDtype(dtype));
  if (out == ScalarType::Float && scale.isFloatingPoint() && zero_point.isIntegral(/*includeBool=*/false))
    if (auto fast = dequantizeInOnePass(input, scale.toDouble(), zero_point.toLong())) return *fast;
  // converted first, then the zero point subtracted, then scaled (a Python float scale: a double Scalar)
  return (input.to(out) - zero_point) * scale;
}

Tensor dequantize_per_tensor(const Tensor& input, double scale, int64_t zero_point, int64_t /*quant_min*/,
                             int64_t /*quant_max*/, ScalarType dtype, std::optional<ScalarType> out_dtype) {
  return dequantizePerTensorImpl(input, at::Scalar(scale), at::Scalar(zero_point), dtype, out_dtype);
}

Tensor dequantize_per_tensor_tensor(const Tensor& input, const Tensor& scale, const Tensor& zero_point,
                                    int64_t /*quant_min*/, int64_t /*quant_max*/, ScalarType dtype,
                                    std::optional<ScalarType> out_dtype) {
  checkOneElement(scale, zero_point);
  const at::Scalar s = scale.item();
  const at::Scalar zp = zero_point.item();
  return dequantizePerTensorImpl(input, s, zp, dtype, out_dtype);
}

Tensor dequantize_per_tensor_tensor2(const Tensor& input, const Tensor& scale, const Tensor& zero_point,
                                     const Tensor& quant_min, const Tensor& quant_max, ScalarType dtype,
                                     std::optional<ScalarType> out_dtype) {
  checkOneElement(scale, zero_point);
  const at::Scalar s = scale.item();
  const at::Scalar zp = zero_point.item();
  (void)quant_min.item();  // read (and so checked to be one element) as the Python does, then unused
  (void)quant_max.item();
  return dequantizePerTensorImpl(input, s, zp, dtype, out_dtype);
}

// ---------------------------------------------------------------------------------------------------------------
// choose_qparams

void checkChooseQparamsArgs(const Tensor& input, int64_t quant_min, int64_t quant_max, ScalarType dtype) {
  const ScalarType t = input.scalar_type();
  TORCH_CHECK(t == ScalarType::Float || t == ScalarType::Half || t == ScalarType::BFloat16,
              "Expecting input to have dtype torch.float32/16/b16, but got dtype: ", pyDtype(t));
  TORCH_CHECK(qvalueBounds(dtype).has_value(), "Expecting target dtype to be one of ", kQValueBoundsKeys,
              ", but got: ", pyDtype(dtype));
  validateQminQmax(quant_min, quant_max);
}

/// torch.Tensor([eps]): a tensor of the default dtype holding the Python float
Tensor epsTensor(double eps) {
  return at::full({1}, eps, at::TensorOptions().dtype(c10::get_default_dtype_as_scalartype()));
}

std::tuple<Tensor, Tensor> choose_qparams_tensor(const Tensor& input, int64_t quant_min, int64_t quant_max, double eps,
                                                 ScalarType dtype) {
  checkChooseQparamsArgs(input, quant_min, quant_max, dtype);
  auto [min_val, max_val] = at::aminmax(input);
  return determineQparams(min_val, max_val, quant_min, quant_max, dtype, epsTensor(eps), /*symmetric=*/false);
}

std::tuple<Tensor, Tensor> choose_qparams_symmetric_tensor(const Tensor& input, int64_t quant_min, int64_t quant_max,
                                                           double eps, ScalarType dtype) {
  checkChooseQparamsArgs(input, quant_min, quant_max, dtype);
  auto [min_val, max_val] = at::aminmax(input);
  return determineQparams(min_val, max_val, quant_min, quant_max, dtype, epsTensor(eps), /*symmetric=*/true);
}

// ---------------------------------------------------------------------------------------------------------------
// Per-channel quantize / dequantize

Tensor quantize_per_channel(const Tensor& input, const Tensor& scales, const Tensor& zero_points, int64_t axis,
                            int64_t quant_min, int64_t quant_max, ScalarType dtype) {
  const Tensor in = float32Input(input);
  TORCH_CHECK(axis < in.dim(), "Expecting axis to be < ", in.dim());
  quantMinMaxBoundsCheck(at::Scalar(quant_min), at::Scalar(quant_max), dtype);
  auto [permuted, axes] = permuteToAxisZero(in, axis);
  const std::vector<int64_t> shape = channelShape(permuted.dim(), scales);
  const Tensor s = scales.view(shape);
  const Tensor zp = zero_points.view(shape);
  // float64 scales promote the product (and all after it) to float64; zero points added after rounding
  const Tensor res = at::clamp(at::round(permuted * oneOver(s)) + zp, at::Scalar(quant_min), at::Scalar(quant_max));
  return res.permute(axes).to(dtype);
}

Tensor dequantize_per_channel(const Tensor& input, const Tensor& scales, const std::optional<Tensor>& zero_points,
                              int64_t axis, int64_t quant_min, int64_t quant_max, ScalarType dtype,
                              std::optional<ScalarType> out_dtype) {
  TORCH_CHECK(input.scalar_type() == dtype, "Expecting input to have dtype: ", pyDtype(dtype),
              ", but got dtype: ", pyDtype(input.scalar_type()));
  const ScalarType out = out_dtype.value_or(ScalarType::Float);
  TORCH_CHECK(axis < input.dim(), "Expecting axis to be < ", input.dim());
  quantMinMaxBoundsCheck(at::Scalar(quant_min), at::Scalar(quant_max), dtype);
  auto [permuted, axes] = permuteToAxisZero(input, axis);
  const std::vector<int64_t> shape = channelShape(permuted.dim(), scales);
  const Tensor s = scales.view(shape);
  // integer subtraction first (promoted with the zero points' dtype), then the scales' dtype, then out_dtype
  Tensor res = zero_points.has_value() ? (permuted - zero_points->view(shape)) * s : permuted * s;
  res = res.to(out);
  return res.permute(axes);
}

// ---------------------------------------------------------------------------------------------------------------
// Per-token ops

std::tuple<Tensor, Tensor> choose_qparams_per_token(const Tensor& input, ScalarType dtype) {
  Tensor scales = input.abs().amax(/*dim=*/{-1}, /*keepdim=*/true);
  // float scales to avoid overflows for fp16 (bf16 has wide enough range)
  if (scales.scalar_type() == ScalarType::Half) scales = scales.to(ScalarType::Float);
  TORCH_CHECK(dtype == ScalarType::Char, "unsupported dtype in choose_qparams_per_token: ", pyDtype(dtype));
  const int64_t quant_max = 127;  // 2 ** (n_bits - 1) - 1, a Python int
  scales = scales.clamp(at::Scalar(1e-5), std::nullopt).div(at::Scalar(quant_max));
  Tensor zero_points = at::zeros_like(scales);
  return {scales, zero_points};
}

std::tuple<Tensor, Tensor> _choose_qparams_per_token_asymmetric_impl(const Tensor& input, ScalarType /*dtype*/) {
  // Based on XNNPACK's quantization.h, as the Python is
  const int64_t qmin = -128;
  const int64_t qmax = 127;
  const Tensor min_val = at::amin(input, /*dim=*/{-1}, /*keepdim=*/true);
  const Tensor max_val = at::amax(input, /*dim=*/{-1}, /*keepdim=*/true);
  const Tensor min_val_neg = at::min(min_val, at::zeros_like(min_val));
  const Tensor max_val_pos = at::max(max_val, at::zeros_like(max_val));
  const double eps = static_cast<double>(std::numeric_limits<float>::epsilon());  // torch.finfo(torch.float32).eps

  // scale: divided by the Python float 255.0, then clamped to eps (a Python float)
  Tensor scale = (max_val_pos - min_val_neg) / at::Scalar(static_cast<double>(qmax - qmin));
  scale = scale.clamp(at::Scalar(eps), std::nullopt);

  // zero point: `int + t` is t + int; `int - t` is rsub(t, int)
  const Tensor descaled_min = min_val_neg / scale;
  const Tensor descaled_max = max_val_pos / scale;
  const Tensor zero_point_from_min_error = descaled_min + at::Scalar(qmin);
  const Tensor zero_point_from_max_error = descaled_max + at::Scalar(qmax);
  Tensor zero_point = at::where((zero_point_from_min_error + zero_point_from_max_error).gt(at::Scalar(int64_t{0})),
                                at::rsub(descaled_min, at::Scalar(qmin)), at::rsub(descaled_max, at::Scalar(qmax)));
  // clamped before rounding, as the Python does
  zero_point = at::clamp(zero_point, at::Scalar(qmin), at::Scalar(qmax)).round();

  return {scale.to(ScalarType::Double), zero_point.to(ScalarType::Long)};
}

std::tuple<Tensor, Tensor> choose_qparams_per_token_asymmetric(const Tensor& input, ScalarType dtype) {
  // the Python calls the Python function of the _impl op, not the op
  return _choose_qparams_per_token_asymmetric_impl(input, dtype);
}

Tensor quantize_per_token(const Tensor& input, const Tensor& scales, const Tensor& zero_points, int64_t quant_min,
                          int64_t quant_max, ScalarType dtype) {
  quantMinMaxBoundsCheck(at::Scalar(quant_min), at::Scalar(quant_max), dtype);
  perTokenQuantQparamDimCheck(input, scales, zero_points);
  // no float32 conversion of the input here; zero points added before rounding, as the Python does
  return input.mul(oneOver(scales))
      .add(zero_points)
      .round()
      .clamp(at::Scalar(quant_min), at::Scalar(quant_max))
      .to(dtype);
}

Tensor dequantize_per_token(const Tensor& input, const Tensor& scales, const Tensor& zero_points,
                            int64_t /*quant_min*/, int64_t /*quant_max*/, ScalarType /*dtype*/,
                            ScalarType output_dtype) {
  Tensor out = input - zero_points;
  out = out * scales;
  // scales are typically float64: cast to the output dtype at the end
  return out.to(output_dtype);
}

// ---------------------------------------------------------------------------------------------------------------
// Per-channel-group ops

Tensor quantize_per_channel_group(const Tensor& input, const Tensor& scales, const Tensor& zero_points,
                                  int64_t quant_min, int64_t quant_max, ScalarType dtype, int64_t group_size) {
  group_size = checkedGroupSize(input, scales, group_size, "input");
  const Tensor to_quant = input.reshape({-1, group_size});
  TORCH_CHECK(at::isnan(to_quant).sum().item<int64_t>() == 0, "to_quant must not contain NaNs");
  const Tensor s = scales.reshape({-1, 1});
  const Tensor zp = zero_points.reshape({-1, 1});
  // zero points added before rounding, as the Python does
  return to_quant.mul(oneOver(s))
      .add(zp)
      .round()
      .clamp_(at::Scalar(quant_min), at::Scalar(quant_max))
      .to(dtype)
      .reshape_as(input);
}

Tensor dequantize_per_channel_group(const Tensor& input, const Tensor& scales, const std::optional<Tensor>& zero_points,
                                    int64_t /*quant_min*/, int64_t /*quant_max*/, ScalarType /*dtype*/,
                                    int64_t group_size, ScalarType output_dtype) {
  group_size = checkedGroupSize(input, scales, group_size, "w_int8");
  const Tensor grouped = input.reshape({-1, group_size});
  const Tensor s = scales.reshape({-1, 1});
  const Tensor zp = zero_points.has_value()
                        ? zero_points->reshape({-1, 1})
                        : at::zeros({}, at::TensorOptions().dtype(ScalarType::Int).device(s.device()));
  return grouped.sub(zp).mul(s).reshape_as(input).to(output_dtype);
}

// ---------------------------------------------------------------------------------------------------------------
// fake_quant_per_channel: Python registers it for the Autograd key only, as an autograd.Function whose backward
// passes the gradient where the rounded value fell inside [quant_min, quant_max].

struct FakeQuantPerChannel : public torch::autograd::Function<FakeQuantPerChannel> {
  static Tensor forward(torch::autograd::AutogradContext* ctx, const Tensor& input, Tensor scales, Tensor zero_points,
                        int64_t axis, int64_t quant_min, int64_t quant_max) {
    if (scales.scalar_type() != ScalarType::Float) scales = scales.to(ScalarType::Float);
    if (zero_points.scalar_type() != ScalarType::Int) zero_points = zero_points.to(ScalarType::Int);
    TORCH_CHECK(input.scalar_type() == ScalarType::Float,
                "Expecting input to have dtype torch.float32, but got dtype: ", pyDtype(input.scalar_type()));
    TORCH_CHECK(axis < input.dim(), "Expecting axis to be < ", input.dim());
    // list(range(axis)) + list(range(axis + 1, input.ndim)), sorted, each unsqueezed in turn (_unsqueeze_multiple)
    std::vector<int64_t> broadcast_dims;
    for (int64_t d = 0; d < axis; ++d) broadcast_dims.push_back(d);
    for (int64_t d = axis + 1; d < input.dim(); ++d) broadcast_dims.push_back(d);
    std::sort(broadcast_dims.begin(), broadcast_dims.end());
    Tensor unsqueeze_scales = scales;
    Tensor unsqueeze_zero_points = zero_points;
    for (int64_t d : broadcast_dims) unsqueeze_scales = at::unsqueeze(unsqueeze_scales, d);
    for (int64_t d : broadcast_dims) unsqueeze_zero_points = at::unsqueeze(unsqueeze_zero_points, d);
    const Tensor temp = at::round(input * oneOver(unsqueeze_scales)) + unsqueeze_zero_points;
    Tensor out = (at::clamp(temp, at::Scalar(quant_min), at::Scalar(quant_max)) - unsqueeze_zero_points) *
                 unsqueeze_scales;
    const Tensor mask = at::logical_and(temp.ge(at::Scalar(quant_min)), temp.le(at::Scalar(quant_max)));
    ctx->save_for_backward({mask});
    return out;
  }

  static torch::autograd::variable_list backward(torch::autograd::AutogradContext* ctx,
                                                 torch::autograd::variable_list grad_outputs) {
    const Tensor mask = ctx->get_saved_variables()[0];
    return {grad_outputs[0] * mask, Tensor(), Tensor(), Tensor(), Tensor(), Tensor()};
  }
};

Tensor fake_quant_per_channel(const Tensor& input, const Tensor& scales, const Tensor& zero_points, int64_t axis,
                              int64_t quant_min, int64_t quant_max) {
  return FakeQuantPerChannel::apply(input, scales, zero_points, axis, quant_min, quant_max);
}

// ---------------------------------------------------------------------------------------------------------------
// convert_element_type.no_fuse: prims.convert_element_type, i.e. empty_like in the new dtype, then copy_ (no grad).

Tensor convert_element_type_no_fuse(const Tensor& input, ScalarType dtype) {
  Tensor result = at::empty_like(input, input.options().dtype(dtype));
  at::NoGradGuard no_grad;
  return result.copy_(input);
}

// ---------------------------------------------------------------------------------------------------------------
// Meta kernels: what _decomposed.py registers for "Meta", check for check.

Tensor quantize_per_tensor_meta(const Tensor& input, double /*scale*/, int64_t /*zero_point*/, int64_t /*quant_min*/,
                                int64_t /*quant_max*/, ScalarType dtype) {
  const Tensor in = float32Input(input);
  return at::empty_like(in, in.options().dtype(dtype));
}

Tensor quantizePerTensorTensorMeta(const Tensor& input, const Tensor& scale, const Tensor& zero_point,
                                   ScalarType dtype) {
  Tensor in = input;
  if (in.scalar_type() == ScalarType::Half || in.scalar_type() == ScalarType::BFloat16) in = in.to(ScalarType::Float);
  checkOneElement(scale, zero_point);
  TORCH_CHECK(in.scalar_type() == ScalarType::Float, "Expecting input to have dtype torch.float32, but got dtype: ",
              pyDtype(in.scalar_type()));
  return at::empty_like(in, in.options().dtype(dtype));
}

Tensor quantize_per_tensor_tensor_meta(const Tensor& input, const Tensor& scale, const Tensor& zero_point,
                                       int64_t /*quant_min*/, int64_t /*quant_max*/, ScalarType dtype) {
  return quantizePerTensorTensorMeta(input, scale, zero_point, dtype);
}

Tensor quantize_per_tensor_tensor2_meta(const Tensor& input, const Tensor& scale, const Tensor& zero_point,
                                        const Tensor& /*quant_min*/, const Tensor& /*quant_max*/, ScalarType dtype) {
  return quantizePerTensorTensorMeta(input, scale, zero_point, dtype);
}

Tensor dequantize_per_tensor_meta(const Tensor& input, double /*scale*/, int64_t /*zero_point*/,
                                  int64_t /*quant_min*/, int64_t /*quant_max*/, ScalarType /*dtype*/,
                                  std::optional<ScalarType> out_dtype) {
  return at::empty_like(input, input.options().dtype(out_dtype.value_or(ScalarType::Float)));
}

Tensor dequantizePerTensorTensorMeta(const Tensor& input, const Tensor& scale, const Tensor& zero_point,
                                     ScalarType dtype, std::optional<ScalarType> out_dtype) {
  const ScalarType out = out_dtype.value_or(ScalarType::Float);
  checkOneElement(scale, zero_point);
  TORCH_CHECK(input.scalar_type() == dtype, "Expecting input to have dtype: ", pyDtype(dtype), ", but got ",
              pyDtype(input.scalar_type()));
  TORCH_CHECK_VALUE(qvalueBounds(dtype).has_value(), "Unsupported dtype in dequantize_per_tensor: ", pyDtype(dtype));
  return at::empty_like(input, input.options().dtype(out));
}

Tensor dequantize_per_tensor_tensor_meta(const Tensor& input, const Tensor& scale, const Tensor& zero_point,
                                         int64_t /*quant_min*/, int64_t /*quant_max*/, ScalarType dtype,
                                         std::optional<ScalarType> out_dtype) {
  return dequantizePerTensorTensorMeta(input, scale, zero_point, dtype, out_dtype);
}

Tensor dequantize_per_tensor_tensor2_meta(const Tensor& input, const Tensor& scale, const Tensor& zero_point,
                                          const Tensor& /*quant_min*/, const Tensor& /*quant_max*/, ScalarType dtype,
                                          std::optional<ScalarType> out_dtype) {
  return dequantizePerTensorTensorMeta(input, scale, zero_point, dtype, out_dtype);
}

std::tuple<Tensor, Tensor> doubleAndLongQparams(const Tensor& input, at::IntArrayRef size) {
  return {at::empty(size, at::TensorOptions().dtype(ScalarType::Double).device(input.device())),
          at::empty(size, at::TensorOptions().dtype(ScalarType::Long).device(input.device()))};
}

std::tuple<Tensor, Tensor> choose_qparams_tensor_meta(const Tensor& input, int64_t quant_min, int64_t quant_max,
                                                      double /*eps*/, ScalarType /*dtype*/) {
  const ScalarType t = input.scalar_type();
  TORCH_CHECK(t == ScalarType::Float || t == ScalarType::Half || t == ScalarType::BFloat16,
              "Expecting input to have dtype torch.float32/16/b16, but got dtype: ", pyDtype(t));
  TORCH_CHECK(quant_min < quant_max, "Expecting quant_min to be smaller than quant_max but received min: ", quant_min,
              " max: ", quant_max);
  return doubleAndLongQparams(input, {1});
}

std::tuple<Tensor, Tensor> choose_qparams_symmetric_tensor_meta(const Tensor& input, int64_t /*quant_min*/,
                                                                int64_t /*quant_max*/, double /*eps*/,
                                                                ScalarType /*dtype*/) {
  return doubleAndLongQparams(input, {1});
}

Tensor quantize_per_channel_meta(const Tensor& input, const Tensor& /*scales*/, const Tensor& /*zero_points*/,
                                 int64_t axis, int64_t quant_min, int64_t quant_max, ScalarType dtype) {
  const Tensor in = float32Input(input);
  TORCH_CHECK(axis < in.dim(), "Expecting axis to be < ", in.dim());
  quantMinMaxBoundsCheck(at::Scalar(quant_min), at::Scalar(quant_max), dtype);
  return at::empty_like(in, in.options().dtype(dtype));
}

Tensor dequantize_per_channel_meta(const Tensor& input, const Tensor& /*scales*/,
                                   const std::optional<Tensor>& /*zero_points*/, int64_t axis, int64_t quant_min,
                                   int64_t quant_max, ScalarType dtype, std::optional<ScalarType> out_dtype) {
  TORCH_CHECK(input.scalar_type() == dtype, "Expecting input to have dtype ", pyDtype(dtype),
              ", but got dtype: ", pyDtype(input.scalar_type()));
  const ScalarType out = out_dtype.value_or(ScalarType::Float);
  TORCH_CHECK(axis < input.dim(), "Expecting axis to be < ", input.dim());
  quantMinMaxBoundsCheck(at::Scalar(quant_min), at::Scalar(quant_max), dtype);
  return at::empty_like(input, input.options().dtype(out));
}

/// list(input.shape[:-1]) + [1]
std::vector<int64_t> perTokenQparamShape(const Tensor& input) {
  std::vector<int64_t> size(input.sizes().begin(), input.sizes().end());
  if (!size.empty()) size.pop_back();
  size.push_back(1);
  return size;
}

std::tuple<Tensor, Tensor> choose_qparams_per_token_meta(const Tensor& input, ScalarType /*dtype*/) {
  return doubleAndLongQparams(input, perTokenQparamShape(input));
}

std::tuple<Tensor, Tensor> choose_qparams_per_token_asymmetric_meta(const Tensor& input, ScalarType /*dtype*/) {
  return doubleAndLongQparams(input, perTokenQparamShape(input));
}

Tensor quantize_per_token_meta(const Tensor& input, const Tensor& /*scales*/, const Tensor& /*zero_points*/,
                               int64_t quant_min, int64_t quant_max, ScalarType dtype) {
  quantMinMaxBoundsCheck(at::Scalar(quant_min), at::Scalar(quant_max), dtype);
  return at::empty_like(input, input.options().dtype(dtype));
}

Tensor dequantize_per_token_meta(const Tensor& input, const Tensor& /*scales*/, const Tensor& /*zero_points*/,
                                 int64_t quant_min, int64_t quant_max, ScalarType dtype, ScalarType output_dtype) {
  quantMinMaxBoundsCheck(at::Scalar(quant_min), at::Scalar(quant_max), dtype);
  return at::empty_like(input, input.options().dtype(output_dtype));
}

Tensor quantize_per_channel_group_meta(const Tensor& input, const Tensor& scales, const Tensor& /*zero_points*/,
                                       int64_t /*quant_min*/, int64_t /*quant_max*/, ScalarType dtype,
                                       int64_t group_size) {
  checkedGroupSize(input, scales, group_size, "input");
  return at::empty_like(input, input.options().dtype(dtype));
}

Tensor fake_quant_per_channel_meta(const Tensor& input, const Tensor& /*scales*/, const Tensor& /*zero_points*/,
                                   int64_t /*axis*/, int64_t /*quant_min*/, int64_t /*quant_max*/) {
  return at::empty_like(input);
}

Tensor convert_element_type_no_fuse_meta(const Tensor& input, ScalarType dtype) {
  return at::empty_like(input, input.options().dtype(dtype));
}

}  // namespace

// Schemas exactly as str(op._schema) prints them in torch 2.14.1, less the namespace.
TORCH_LIBRARY(quantized_decomposed, m) {
  m.def(
      "quantize_per_tensor(Tensor input, float scale, int zero_point, int quant_min, int quant_max, "
      "ScalarType dtype) -> Tensor");
  m.def(
      "quantize_per_tensor.tensor(Tensor input, Tensor scale, Tensor zero_point, int quant_min, int quant_max, "
      "ScalarType dtype) -> Tensor");
  m.def(
      "quantize_per_tensor.tensor2(Tensor input, Tensor scale, Tensor zero_point, Tensor quant_min, "
      "Tensor quant_max, ScalarType dtype) -> Tensor");
  m.def(
      "dequantize_per_tensor(Tensor input, float scale, int zero_point, int quant_min, int quant_max, "
      "ScalarType dtype, *, ScalarType? out_dtype=None) -> Tensor");
  m.def(
      "dequantize_per_tensor.tensor(Tensor input, Tensor scale, Tensor zero_point, int quant_min, int quant_max, "
      "ScalarType dtype, *, ScalarType? out_dtype=None) -> Tensor");
  m.def(
      "dequantize_per_tensor.tensor2(Tensor input, Tensor scale, Tensor zero_point, Tensor quant_min, "
      "Tensor quant_max, ScalarType dtype, *, ScalarType? out_dtype=None) -> Tensor");
  m.def(
      "choose_qparams.tensor(Tensor input, int quant_min, int quant_max, float eps, ScalarType dtype) -> "
      "(Tensor, Tensor)");
  m.def(
      "choose_qparams_symmetric.tensor(Tensor input, int quant_min, int quant_max, float eps, ScalarType dtype) -> "
      "(Tensor, Tensor)");
  m.def(
      "quantize_per_channel(Tensor input, Tensor scales, Tensor zero_points, int axis, int quant_min, "
      "int quant_max, ScalarType dtype) -> Tensor");
  m.def(
      "dequantize_per_channel(Tensor input, Tensor scales, Tensor? zero_points, int axis, int quant_min, "
      "int quant_max, ScalarType dtype, *, ScalarType? out_dtype=None) -> Tensor");
  m.def("choose_qparams_per_token(Tensor input, ScalarType dtype) -> (Tensor, Tensor)");
  m.def("_choose_qparams_per_token_asymmetric_impl(Tensor input, ScalarType dtype) -> (Tensor, Tensor)");
  m.def("choose_qparams_per_token_asymmetric(Tensor input, ScalarType dtype) -> (Tensor, Tensor)");
  m.def(
      "quantize_per_token(Tensor input, Tensor scales, Tensor zero_points, int quant_min, int quant_max, "
      "ScalarType dtype) -> Tensor");
  m.def(
      "dequantize_per_token(Tensor input, Tensor scales, Tensor zero_points, int quant_min, int quant_max, "
      "ScalarType dtype, ScalarType output_dtype) -> Tensor");
  m.def(
      "quantize_per_channel_group(Tensor input, Tensor scales, Tensor zero_points, int quant_min, int quant_max, "
      "ScalarType dtype, int group_size) -> Tensor");
  m.def(
      "dequantize_per_channel_group(Tensor input, Tensor scales, Tensor? zero_points, int quant_min, "
      "int quant_max, ScalarType dtype, int group_size, ScalarType output_dtype) -> Tensor");
  m.def(
      "fake_quant_per_channel(Tensor input, Tensor scales, Tensor zero_points, int axis, int quant_min, "
      "int quant_max) -> Tensor");
  m.def("convert_element_type.no_fuse(Tensor input, ScalarType dtype) -> Tensor");
}

TORCH_LIBRARY_IMPL(quantized_decomposed, CompositeExplicitAutograd, m) {
  m.impl("quantize_per_tensor", TORCH_FN(quantize_per_tensor));
  m.impl("quantize_per_tensor.tensor", TORCH_FN(quantize_per_tensor_tensor));
  m.impl("quantize_per_tensor.tensor2", TORCH_FN(quantize_per_tensor_tensor2));
  m.impl("dequantize_per_tensor", TORCH_FN(dequantize_per_tensor));
  m.impl("dequantize_per_tensor.tensor", TORCH_FN(dequantize_per_tensor_tensor));
  m.impl("dequantize_per_tensor.tensor2", TORCH_FN(dequantize_per_tensor_tensor2));
  m.impl("choose_qparams.tensor", TORCH_FN(choose_qparams_tensor));
  m.impl("choose_qparams_symmetric.tensor", TORCH_FN(choose_qparams_symmetric_tensor));
  m.impl("quantize_per_channel", TORCH_FN(quantize_per_channel));
  m.impl("dequantize_per_channel", TORCH_FN(dequantize_per_channel));
  m.impl("choose_qparams_per_token", TORCH_FN(choose_qparams_per_token));
  m.impl("choose_qparams_per_token_asymmetric", TORCH_FN(choose_qparams_per_token_asymmetric));
  m.impl("quantize_per_token", TORCH_FN(quantize_per_token));
  m.impl("dequantize_per_token", TORCH_FN(dequantize_per_token));
  m.impl("quantize_per_channel_group", TORCH_FN(quantize_per_channel_group));
  m.impl("dequantize_per_channel_group", TORCH_FN(dequantize_per_channel_group));
  m.impl("convert_element_type.no_fuse", TORCH_FN(convert_element_type_no_fuse));
}

TORCH_LIBRARY_IMPL(quantized_decomposed, CompositeImplicitAutograd, m) {
  m.impl("_choose_qparams_per_token_asymmetric_impl", TORCH_FN(_choose_qparams_per_token_asymmetric_impl));
}

TORCH_LIBRARY_IMPL(quantized_decomposed, Autograd, m) {
  m.impl("fake_quant_per_channel", TORCH_FN(fake_quant_per_channel));
}

// dequantize_per_channel_group and _choose_qparams_per_token_asymmetric_impl have none in Python either.
TORCH_LIBRARY_IMPL(quantized_decomposed, Meta, m) {
  m.impl("quantize_per_tensor", TORCH_FN(quantize_per_tensor_meta));
  m.impl("quantize_per_tensor.tensor", TORCH_FN(quantize_per_tensor_tensor_meta));
  m.impl("quantize_per_tensor.tensor2", TORCH_FN(quantize_per_tensor_tensor2_meta));
  m.impl("dequantize_per_tensor", TORCH_FN(dequantize_per_tensor_meta));
  m.impl("dequantize_per_tensor.tensor", TORCH_FN(dequantize_per_tensor_tensor_meta));
  m.impl("dequantize_per_tensor.tensor2", TORCH_FN(dequantize_per_tensor_tensor2_meta));
  m.impl("choose_qparams.tensor", TORCH_FN(choose_qparams_tensor_meta));
  m.impl("choose_qparams_symmetric.tensor", TORCH_FN(choose_qparams_symmetric_tensor_meta));
  m.impl("quantize_per_channel", TORCH_FN(quantize_per_channel_meta));
  m.impl("dequantize_per_channel", TORCH_FN(dequantize_per_channel_meta));
  m.impl("choose_qparams_per_token", TORCH_FN(choose_qparams_per_token_meta));
  m.impl("choose_qparams_per_token_asymmetric", TORCH_FN(choose_qparams_per_token_asymmetric_meta));
  m.impl("quantize_per_token", TORCH_FN(quantize_per_token_meta));
  m.impl("dequantize_per_token", TORCH_FN(dequantize_per_token_meta));
  m.impl("quantize_per_channel_group", TORCH_FN(quantize_per_channel_group_meta));
  m.impl("fake_quant_per_channel", TORCH_FN(fake_quant_per_channel_meta));
  m.impl("convert_element_type.no_fuse", TORCH_FN(convert_element_type_no_fuse_meta));
}

}  // namespace torchir
