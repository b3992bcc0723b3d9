// torchao registers its quantization primitives (torchao::quantize_affine & co.) from Python, so libtorch
// alone lacks them and exported graphs that keep them could not run. They are registered here with torchao
// 0.18's exact schemas, each kernel the same ATen calls in the same dtypes and order as the Python body, so
// the engine treats them as any dispatcher op and results match torchao bit for bit.

#include <ATen/ATen.h>
#include <torch/library.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <limits>
#include <optional>
#include <string>
#include <tuple>
#include <vector>

namespace torchir {
namespace {

// ---- Python-style formatting for the assertion messages ----------------------------------------

// str(torch.dtype) for the dtypes these ops meet.
std::string pyDtype(at::ScalarType t) {
  switch (t) {
    case at::ScalarType::Byte: return "torch.uint8";
    case at::ScalarType::Char: return "torch.int8";
    case at::ScalarType::Short: return "torch.int16";
    case at::ScalarType::Int: return "torch.int32";
    case at::ScalarType::Long: return "torch.int64";
    case at::ScalarType::Half: return "torch.float16";
    case at::ScalarType::Float: return "torch.float32";
    case at::ScalarType::Double: return "torch.float64";
    case at::ScalarType::ComplexHalf: return "torch.complex32";
    case at::ScalarType::ComplexFloat: return "torch.complex64";
    case at::ScalarType::ComplexDouble: return "torch.complex128";
    case at::ScalarType::Bool: return "torch.bool";
    case at::ScalarType::BFloat16: return "torch.bfloat16";
    case at::ScalarType::Float8_e5m2: return "torch.float8_e5m2";
    case at::ScalarType::Float8_e4m3fn: return "torch.float8_e4m3fn";
    case at::ScalarType::Float8_e5m2fnuz: return "torch.float8_e5m2fnuz";
    case at::ScalarType::Float8_e4m3fnuz: return "torch.float8_e4m3fnuz";
    case at::ScalarType::Float8_e8m0fnu: return "torch.float8_e8m0fnu";
    case at::ScalarType::Float4_e2m1fn_x2: return "torch.float4_e2m1fn_x2";
    case at::ScalarType::UInt16: return "torch.uint16";
    case at::ScalarType::UInt32: return "torch.uint32";
    case at::ScalarType::UInt64: return "torch.uint64";
    case at::ScalarType::UInt1: return "torch.uint1";
    case at::ScalarType::UInt2: return "torch.uint2";
    case at::ScalarType::UInt3: return "torch.uint3";
    case at::ScalarType::UInt4: return "torch.uint4";
    case at::ScalarType::UInt5: return "torch.uint5";
    case at::ScalarType::UInt6: return "torch.uint6";
    case at::ScalarType::UInt7: return "torch.uint7";
    case at::ScalarType::Int1: return "torch.int1";
    case at::ScalarType::Int2: return "torch.int2";
    case at::ScalarType::Int3: return "torch.int3";
    case at::ScalarType::Int4: return "torch.int4";
    case at::ScalarType::Int5: return "torch.int5";
    case at::ScalarType::Int6: return "torch.int6";
    case at::ScalarType::Int7: return "torch.int7";
    default: return std::string("torch.") + c10::toString(t);
  }
}

// repr(float): shortest round-trip digits, fixed notation for exponents in [-4, 16), else scientific.
std::string pyFloat(double v) {
  if (std::isnan(v)) return "nan";
  if (std::isinf(v)) return v > 0 ? "inf" : "-inf";
  if (v == 0) return std::signbit(v) ? "-0.0" : "0.0";
  char buf[64];
  for (int p = 1; p <= 17; ++p) {
    std::snprintf(buf, sizeof buf, "%.*e", p - 1, v);
    if (std::strtod(buf, nullptr) == v) break;
  }
  std::string s(buf);
  const std::size_t e = s.find('e');
  const int exp = std::atoi(s.c_str() + e + 1);
  std::string mant = s.substr(0, e);
  const bool neg = mant[0] == '-';
  if (neg) mant.erase(0, 1);
  std::string digits;
  for (char c : mant)
    if (c != '.') digits += c;
  while (digits.size() > 1 && digits.back() == '0') digits.pop_back();
  std::string out;
  if (exp >= -4 && exp < 16) {
    if (exp >= 0) {
      std::string ip = digits.substr(0, std::min<std::size_t>(digits.size(), exp + 1));
      ip.append(exp + 1 - ip.size(), '0');
      std::string fp = digits.size() > static_cast<std::size_t>(exp + 1) ? digits.substr(exp + 1) : "0";
      out = ip + "." + fp;
    } else {
      out = "0." + std::string(-exp - 1, '0') + digits;
    }
  } else {
    out = digits.substr(0, 1);
    if (digits.size() > 1) out += "." + digits.substr(1);
    char eb[16];
    std::snprintf(eb, sizeof eb, "e%c%02d", exp < 0 ? '-' : '+', std::abs(exp));
    out += eb;
  }
  return neg ? "-" + out : out;
}

// str() of the Python number a Scalar arrives as in torchao's Python kernel (bool, int or float).
std::string pyNumber(const at::Scalar& s) {
  if (s.isBoolean()) return s.toBool() ? "True" : "False";
  if (s.isIntegral(/*includeBool=*/false)) return std::to_string(s.toLong());
  return pyFloat(s.toDouble());
}

std::string pyList(at::IntArrayRef v) {
  std::string out = "[";
  for (std::size_t i = 0; i < v.size(); ++i) out += (i ? ", " : "") + std::to_string(v[i]);
  return out + "]";
}

// ---- Python number semantics for quant_min / quant_max ------------------------------------------
// A Python int (or bool) keeps integer arithmetic; anything with a float becomes a float.

bool isPyInt(const at::Scalar& s) { return s.isIntegral(/*includeBool=*/true); }

// a >= b
bool pyGe(const at::Scalar& a, const at::Scalar& b) {
  if (isPyInt(a) && isPyInt(b)) return a.toLong() >= b.toLong();
  return a.toDouble() >= b.toDouble();
}

// float(a - b)
double pySubToFloat(const at::Scalar& a, const at::Scalar& b) {
  if (isPyInt(a) && isPyInt(b)) return static_cast<double>(a.toLong() - b.toLong());
  return a.toDouble() - b.toDouble();
}

// int((a + b + 1) / 2)
int64_t pyHalfSumPlusOneToInt(const at::Scalar& a, const at::Scalar& b) {
  if (isPyInt(a) && isPyInt(b)) {
    const int64_t s = a.toLong() + b.toLong() + 1;
    return static_cast<int64_t>(std::trunc(static_cast<double>(s) / 2.0));
  }
  const double s = (a.toDouble() + b.toDouble()) + 1.0;
  return static_cast<int64_t>(std::trunc(s / 2.0));
}

// Python floor division for the positive sizes involved.
int64_t floorDiv(int64_t a, int64_t b) {
  TORCH_CHECK(b != 0, "integer division or modulo by zero");
  int64_t q = a / b;
  if ((a % b != 0) && ((a < 0) != (b < 0))) --q;
  return q;
}

// ---- torch.finfo -------------------------------------------------------------------------------

struct FInfo {
  double min, max, smallestNormal;
};

template <typename T>
FInfo finfoOf() {
  return {static_cast<double>(std::numeric_limits<T>::lowest()), static_cast<double>(std::numeric_limits<T>::max()),
          static_cast<double>(std::numeric_limits<T>::min())};
}

FInfo finfo(at::ScalarType t) {
  switch (t) {
    case at::ScalarType::Float: return finfoOf<float>();
    case at::ScalarType::Double: return finfoOf<double>();
    case at::ScalarType::Half: return finfoOf<c10::Half>();
    case at::ScalarType::BFloat16: return finfoOf<c10::BFloat16>();
    case at::ScalarType::Float8_e5m2: return finfoOf<c10::Float8_e5m2>();
    case at::ScalarType::Float8_e4m3fn: return finfoOf<c10::Float8_e4m3fn>();
    case at::ScalarType::Float8_e5m2fnuz: return finfoOf<c10::Float8_e5m2fnuz>();
    case at::ScalarType::Float8_e4m3fnuz: return finfoOf<c10::Float8_e4m3fnuz>();
    case at::ScalarType::Float8_e8m0fnu: return finfoOf<c10::Float8_e8m0fnu>();
    default: TORCH_CHECK_TYPE(false, "torch.finfo() requires a floating point input type. Use torch.iinfo to handle '",
                              pyDtype(t), "'");
  }
}

// ---- quant_primitives.py helpers ---------------------------------------------------------------

// FP8_TYPES
bool isFp8(at::ScalarType t) {
  return t == at::ScalarType::Float8_e4m3fn || t == at::ScalarType::Float8_e5m2 ||
         t == at::ScalarType::Float8_e4m3fnuz || t == at::ScalarType::Float8_e5m2fnuz;
}

// _SUB_BYTE_UINT_BOUNDS: torch.uint1 .. torch.uint7
bool isSubByteUint(at::ScalarType t) {
  switch (t) {
    case at::ScalarType::UInt1:
    case at::ScalarType::UInt2:
    case at::ScalarType::UInt3:
    case at::ScalarType::UInt4:
    case at::ScalarType::UInt5:
    case at::ScalarType::UInt6:
    case at::ScalarType::UInt7: return true;
    default: return false;
  }
}

// _DTYPE_TO_QVALUE_BOUNDS (uint8, int8, int16, int32, uint1..uint7, int1..int7)
std::optional<std::pair<int64_t, int64_t>> qvalueBounds(at::ScalarType t) {
  switch (t) {
    case at::ScalarType::Byte: return std::make_pair<int64_t, int64_t>(0, 255);
    case at::ScalarType::Char: return std::make_pair<int64_t, int64_t>(-128, 127);
    case at::ScalarType::Short: return std::make_pair<int64_t, int64_t>(-(int64_t{1} << 15), (int64_t{1} << 15) - 1);
    case at::ScalarType::Int: return std::make_pair<int64_t, int64_t>(-(int64_t{1} << 31), (int64_t{1} << 31) - 1);
    case at::ScalarType::UInt1: return std::make_pair<int64_t, int64_t>(0, 1);
    case at::ScalarType::UInt2: return std::make_pair<int64_t, int64_t>(0, 3);
    case at::ScalarType::UInt3: return std::make_pair<int64_t, int64_t>(0, 7);
    case at::ScalarType::UInt4: return std::make_pair<int64_t, int64_t>(0, 15);
    case at::ScalarType::UInt5: return std::make_pair<int64_t, int64_t>(0, 31);
    case at::ScalarType::UInt6: return std::make_pair<int64_t, int64_t>(0, 63);
    case at::ScalarType::UInt7: return std::make_pair<int64_t, int64_t>(0, 127);
    case at::ScalarType::Int1: return std::make_pair<int64_t, int64_t>(-1, 0);
    case at::ScalarType::Int2: return std::make_pair<int64_t, int64_t>(-2, 1);
    case at::ScalarType::Int3: return std::make_pair<int64_t, int64_t>(-4, 3);
    case at::ScalarType::Int4: return std::make_pair<int64_t, int64_t>(-8, 7);
    case at::ScalarType::Int5: return std::make_pair<int64_t, int64_t>(-16, 15);
    case at::ScalarType::Int6: return std::make_pair<int64_t, int64_t>(-32, 31);
    case at::ScalarType::Int7: return std::make_pair<int64_t, int64_t>(-64, 63);
    default: return std::nullopt;
  }
}

// _get_and_check_qmin_qmax: FP8 bounds are Python floats (finfo), table bounds Python ints.
std::pair<at::Scalar, at::Scalar> getAndCheckQminQmax(at::ScalarType dtype, const std::optional<at::Scalar>& quantMin,
                                                      const std::optional<at::Scalar>& quantMax) {
  at::Scalar lower, upper;
  if (isFp8(dtype)) {
    const FInfo fi = finfo(dtype);
    lower = at::Scalar(fi.min);
    upper = at::Scalar(fi.max);
  } else {
    const auto bounds = qvalueBounds(dtype);
    TORCH_CHECK_VALUE(bounds.has_value(), "Unsupported dtype: ", pyDtype(dtype));
    lower = at::Scalar(bounds->first);
    upper = at::Scalar(bounds->second);
  }
  at::Scalar qmin = quantMin.has_value() ? *quantMin : lower;
  at::Scalar qmax = quantMax.has_value() ? *quantMax : upper;
  TORCH_CHECK(pyGe(qmin, lower), "quant_min out of bound for dtype, quant_min_lower_bound: ", pyNumber(lower),
              " quant_min: ", pyNumber(qmin));
  TORCH_CHECK(pyGe(upper, qmax), "quant_max out of bound for dtype, quant_max_upper_bound: ", pyNumber(upper),
              " quant_max: ", pyNumber(qmax));
  return {qmin, qmax};
}

// _get_reduction_params -> (shape_for_reduction, reduction_dims)
std::pair<std::vector<int64_t>, std::vector<int64_t>> getReductionParams(at::IntArrayRef blockSize,
                                                                         at::IntArrayRef inputSize) {
  TORCH_CHECK(blockSize.size() == inputSize.size());
  std::vector<int64_t> shapeForReduction;
  std::vector<int64_t> reductionDims;
  int64_t curDim = 0;
  for (std::size_t i = 0; i < blockSize.size(); ++i) {
    if (blockSize[i] != inputSize[i] && blockSize[i] > 1) {
      TORCH_CHECK(inputSize[i] % blockSize[i] == 0, "Expecting input size at ", i, " dimension: ", inputSize[i],
                  " to be divisible by block_size at ", i, " dimension: ", blockSize[i]);
      shapeForReduction.push_back(floorDiv(inputSize[i], blockSize[i]));
      shapeForReduction.push_back(blockSize[i]);
      reductionDims.push_back(curDim + 1);
      curDim += 2;
    } else {
      shapeForReduction.push_back(inputSize[i]);
      if (blockSize[i] != 1) reductionDims.push_back(curDim);
      curDim += 1;
    }
  }
  return {shapeForReduction, reductionDims};
}

// _maybe_expand_scale_to_tensor_shape
at::Tensor maybeExpandScaleToTensorShape(const at::Tensor& scale, at::IntArrayRef targetShape) {
  const at::IntArrayRef scaleShape = scale.sizes();
  if (scaleShape == targetShape) return scale;
  if (scale.numel() == 1) return scale;
  bool broadcastable = true;  // zip() stops at the shorter shape
  for (std::size_t i = 0; i < std::min(scaleShape.size(), targetShape.size()); ++i)
    if (!(scaleShape[i] == targetShape[i] || scaleShape[i] == 1)) broadcastable = false;
  if (broadcastable) return scale;
  TORCH_CHECK_VALUE(scaleShape.size() == targetShape.size(), "Scale tensor has ", scaleShape.size(),
                    " dimensions but target has ", targetShape.size());
  std::vector<int64_t> blockSizes;
  for (std::size_t i = 0; i < targetShape.size(); ++i) blockSizes.push_back(floorDiv(targetShape[i], scaleShape[i]));
  for (std::size_t i = 0; i < targetShape.size(); ++i)
    TORCH_CHECK_VALUE(targetShape[i] == scaleShape[i] * blockSizes[i], "Dimension ", i, ": target size ",
                      targetShape[i], " is not evenly divisible by scale size ", scaleShape[i],
                      " (block size would be ",
                      pyFloat(static_cast<double>(targetShape[i]) / static_cast<double>(scaleShape[i])), ")");
  at::Tensor expanded = scale;
  for (std::size_t i = 0; i < blockSizes.size(); ++i)
    if (blockSizes[i] > 1) expanded = expanded.repeat_interleave(blockSizes[i], static_cast<int64_t>(i));
  return expanded;
}

// ---- the ops -----------------------------------------------------------------------------------

/// The input viewed by block (_get_reduction_params) and the scale viewed to broadcast over the
/// blocks, as quantize_affine and dequantize_affine both begin.
struct Blocked {
  at::Tensor input, scale;
  std::vector<int64_t> shapeAfterReduction;
};
Blocked blockedViews(const at::Tensor& input, at::IntArrayRef blockSize, const at::Tensor& scale) {
  TORCH_CHECK(static_cast<int64_t>(blockSize.size()) == input.dim(), "Got input dim:", input.dim(),
              ", block_size: ", pyList(blockSize));
  auto [shapeForReduction, reductionDims] = getReductionParams(blockSize, input.sizes());
  Blocked b{input.view(shapeForReduction), {}, shapeForReduction};
  for (int64_t i : reductionDims) b.shapeAfterReduction[static_cast<std::size_t>(i)] = 1;
  b.scale = scale.view(b.shapeAfterReduction);
  return b;
}

// _quantize_affine + _quantize_affine_no_dtype_cast
at::Tensor quantizeAffine(const at::Tensor& input, c10::SymIntArrayRef blockSizeSym, const at::Tensor& scale,
                          const std::optional<at::Tensor>& zeroPoint, at::ScalarType outputDtype,
                          const std::optional<at::Scalar>& quantMin, const std::optional<at::Scalar>& quantMax) {
  const at::IntArrayRef blockSize = C10_AS_INTARRAYREF_SLOW(blockSizeSym);
  const auto [qmin, qmax] = getAndCheckQminQmax(outputDtype, quantMin, quantMax);
  // workaround for uintx dtypes, since there is no native Uintx dtype connected with torch.uintx
  if (isSubByteUint(outputDtype)) outputDtype = at::ScalarType::Byte;

  const at::ScalarType inDtype = input.scalar_type();
  TORCH_CHECK(inDtype == at::ScalarType::Float || inDtype == at::ScalarType::Half || inDtype == at::ScalarType::BFloat16,
              "Unsupported input dtype: ", pyDtype(inDtype));
  const Blocked blocked = blockedViews(input, blockSize, scale);
  const std::vector<int64_t> originalShape = input.sizes().vec();
  const at::Tensor& x = blocked.input;
  const at::Tensor& s = blocked.scale;
  const std::vector<int64_t>& shapeAfterReduction = blocked.shapeAfterReduction;

  // a zero_point with numel() == 0 counts as None; `tensor + None` is a TypeError in Python
  TORCH_CHECK_TYPE(zeroPoint.has_value() && zeroPoint->numel() > 0,
                   "unsupported operand type(s) for +: 'Tensor' and 'NoneType'");
  const at::Tensor zp = zeroPoint->view(shapeAfterReduction);

  // 1.0 / scale is Tensor.__rdiv__: scale.reciprocal() * 1.0
  const at::Tensor invScale = at::mul(at::reciprocal(s), at::Scalar(1.0));
  at::Tensor quant = at::clamp(at::add(at::round(at::mul(x, invScale)), zp), qmin, qmax);
  quant = quant.view(originalShape);
  return quant.to(outputDtype);
}

// _dequantize_affine + _dequantize_affine_no_dtype_check
at::Tensor dequantizeAffine(const at::Tensor& input, c10::SymIntArrayRef blockSizeSym, const at::Tensor& scale,
                            const std::optional<at::Tensor>& zeroPoint, at::ScalarType inputDtype,
                            const std::optional<at::Scalar>& quantMin, const std::optional<at::Scalar>& quantMax,
                            at::ScalarType outputDtype) {
  const at::IntArrayRef blockSize = C10_AS_INTARRAYREF_SLOW(blockSizeSym);
  if (!isSubByteUint(inputDtype))
    TORCH_CHECK(input.scalar_type() == inputDtype, "Expected: ", pyDtype(inputDtype),
                ", got: ", pyDtype(input.scalar_type()));
  TORCH_CHECK(outputDtype == at::ScalarType::Float || outputDtype == at::ScalarType::Half ||
                  outputDtype == at::ScalarType::BFloat16,
              "Unsupported output dtype: ", pyDtype(outputDtype));
  getAndCheckQminQmax(inputDtype, quantMin, quantMax);

  const Blocked blocked = blockedViews(input, blockSize, scale);
  const std::vector<int64_t> originalShape = input.sizes().vec();
  const at::Tensor& x = blocked.input;
  const at::Tensor& s = blocked.scale;
  const std::vector<int64_t>& shapeAfterReduction = blocked.shapeAfterReduction;
  std::optional<at::Tensor> zp;
  if (zeroPoint.has_value()) zp = zeroPoint->view(shapeAfterReduction);

  // force a copy, as torchao does before its (formerly in-place) arithmetic
  at::Tensor dequant = x.to(outputDtype, /*non_blocking=*/false, /*copy=*/true);
  if (zp.has_value()) dequant = at::sub(dequant, zp->to(outputDtype));
  dequant = at::mul(dequant, s);
  return dequant.view(originalShape).to(outputDtype);
}

// _choose_qparams_affine; mapping_type is MappingType.<X>.name
std::tuple<at::Tensor, at::Tensor> chooseQparamsAffine(
    const std::optional<at::Tensor>& inputOpt, c10::string_view mappingType, c10::SymIntArrayRef blockSizeSym,
    at::ScalarType targetDtype, const std::optional<at::Scalar>& quantMin, const std::optional<at::Scalar>& quantMax,
    std::optional<double> eps, std::optional<at::ScalarType> scaleDtype, std::optional<at::ScalarType> zeroPointDtype,
    bool keepdim) {
  const at::IntArrayRef blockSize = C10_AS_INTARRAYREF_SLOW(blockSizeSym);
  const auto [qmin, qmax] = getAndCheckQminQmax(targetDtype, quantMin, quantMax);
  const bool symmetric = mappingType == "SYMMETRIC";
  const bool symmetricNoClip = mappingType == "SYMMETRIC_NO_CLIPPING_ERR";
  const bool asymmetric = mappingType == "ASYMMETRIC";
  TORCH_CHECK(symmetric || symmetricNoClip || asymmetric, "Unsupported mapping type: ", std::string(mappingType));
  TORCH_CHECK_TYPE(inputOpt.has_value(), "'NoneType' object has no attribute 'dtype'");
  const at::Tensor& input = *inputOpt;

  if (!scaleDtype.has_value()) scaleDtype = input.scalar_type();
  if (!eps.has_value()) eps = finfo(input.scalar_type()).smallestNormal;

  TORCH_CHECK(static_cast<int64_t>(blockSize.size()) == input.dim(), "Got input dim:", input.dim(),
              ", block_size: ", pyList(blockSize));
  const std::vector<int64_t> originalInputSize = input.sizes().vec();
  auto [shapeForReduction, reductionDims] = getReductionParams(blockSize, input.sizes());
  const at::Tensor x = input.view(shapeForReduction);

  const at::Tensor minVal = at::amin(x, reductionDims, keepdim);
  const at::Tensor maxVal = at::amax(x, reductionDims, keepdim);
  const at::Tensor minValNeg = at::min(minVal, at::zeros_like(minVal));
  at::Tensor maxValPos = at::max(maxVal, at::zeros_like(maxVal));

  at::Tensor scale, zeroPoint;
  if (symmetric || symmetricNoClip) {
    if (symmetric) {
      maxValPos = at::max(at::neg(minValNeg), maxValPos);
      scale = at::div(maxValPos, at::Scalar(pySubToFloat(qmax, qmin) / 2.0));
    } else {
      const at::Tensor smin = at::div(minValNeg, at::Scalar(qmin.toDouble()));
      const at::Tensor smax = at::div(maxValPos, at::Scalar(qmax.toDouble()));
      const at::Tensor mask = at::gt(smin, smax);
      scale = at::where(mask, smin, smax);
    }
    zeroPoint = at::full_like(scale, at::Scalar(pyHalfSumPlusOneToInt(qmax, qmin)));
    scale = at::clamp(scale, at::Scalar(*eps), std::nullopt);
  } else {
    scale = at::div(at::sub(maxValPos, minValNeg), at::Scalar(pySubToFloat(qmax, qmin)));
    scale = at::clamp(scale, at::Scalar(*eps), std::nullopt);
    // quant_min - tensor is Tensor.__rsub__: torch.rsub(tensor, quant_min)
    zeroPoint = at::rsub(at::round(at::div(minValNeg, scale)), qmin);
    zeroPoint = at::clamp(zeroPoint, qmin, qmax);
    if (!zeroPointDtype.has_value()) zeroPointDtype = at::ScalarType::Int;
  }

  if (keepdim) {
    std::vector<int64_t> outputShape;
    for (std::size_t i = 0; i < blockSize.size(); ++i)
      outputShape.push_back(floorDiv(originalInputSize[i], blockSize[i]));
    scale = scale.reshape(outputShape);
    zeroPoint = zeroPoint.reshape(outputShape);
  }

  at::Tensor scaleOut = scale.to(input.device(), *scaleDtype);
  // zero_point.to(dtype=None) returns zero_point itself
  at::Tensor zeroPointOut = zeroPointDtype.has_value() ? zeroPoint.to(*zeroPointDtype) : zeroPoint;
  return std::make_tuple(std::move(scaleOut), std::move(zeroPointOut));
}

// _choose_scale_float8
at::Tensor chooseScaleFloat8(const at::Tensor& tensor, c10::SymIntArrayRef blockSizeSym, at::ScalarType float8Dtype,
                             at::ScalarType scaleDtype, std::optional<double> hpValueLb,
                             std::optional<double> hpValueUb) {
  const at::IntArrayRef blockSize = C10_AS_INTARRAYREF_SLOW(blockSizeSym);
  const double quantMax = finfo(float8Dtype).max;
  auto [shapeForReduction, reductionDims] = getReductionParams(blockSize, tensor.sizes());
  const at::Tensor reshaped = tensor.view(shapeForReduction);
  at::Tensor maxAbs = reshaped.abs().amax(reductionDims, /*keepdim=*/true);
  if (hpValueLb.has_value() || hpValueUb.has_value()) {
    const std::optional<at::Scalar> lb = hpValueLb.has_value() ? std::optional<at::Scalar>(*hpValueLb) : std::nullopt;
    const std::optional<at::Scalar> ub = hpValueUb.has_value() ? std::optional<at::Scalar>(*hpValueUb) : std::nullopt;
    maxAbs = at::clamp(maxAbs, lb, ub);
  }
  at::Tensor scale = at::div(maxAbs, at::Scalar(quantMax));
  std::vector<int64_t> outputShape;
  for (std::size_t i = 0; i < static_cast<std::size_t>(tensor.dim()); ++i)
    outputShape.push_back(floorDiv(tensor.size(static_cast<int64_t>(i)), blockSize[i]));
  scale = scale.reshape(outputShape);

  if (scaleDtype != at::ScalarType::Float) {
    TORCH_CHECK(scaleDtype == at::ScalarType::Float8_e8m0fnu, "Only float8_e8m0fnuz is supported");
    scale = at::exp2(at::round(at::log2(scale)));
  }
  return scale.to(at::ScalarType::Float);
}

// _quantize_affine_float8_non_decomposed -> _quantize_affine_float8
at::Tensor quantizeAffineFloat8NonDecomposed(const at::Tensor& tensor, const at::Tensor& scale,
                                             at::ScalarType float8Dtype) {
  const at::Tensor tensorFp32 = tensor.to(at::ScalarType::Float);
  const at::Tensor scaleExpanded = maybeExpandScaleToTensorShape(scale, tensor.sizes());
  const at::Tensor scaled = at::div(tensorFp32, scaleExpanded);
  const double maxValue = finfo(float8Dtype).max;
  // saturate before the cast: eager casts to float8 do not saturate finite overflow
  const at::Tensor clamped = at::clamp(scaled, at::Scalar(-maxValue), at::Scalar(maxValue));
  return clamped.to(float8Dtype);
}

// _dequantize_affine_float8_non_decomposed -> _dequantize_affine_float8
at::Tensor dequantizeAffineFloat8NonDecomposed(const at::Tensor& tensor, const at::Tensor& scale,
                                               at::ScalarType outputDtype) {
  const at::Tensor fp8Tensor = tensor.to(at::ScalarType::Float);
  const at::Tensor scaleExpanded = maybeExpandScaleToTensorShape(scale, tensor.sizes());
  const at::Tensor hp = at::mul(fp8Tensor, scaleExpanded);
  return hp.to(outputDtype);
}

}  // namespace
}  // namespace torchir

// Schemas exactly as str(torch.ops.torchao.<op>.default._schema) prints them under torchao 0.18.0
// (ScalarType defaults print as their enum value: 6 = float32, 24 = float8_e4m3fn).
// Not covered: torchao::reference_dqlinear_int4 (torchao/quantization/pt2e/reference_representation_rewrite.py,
// outside quant_primitives.py) and the compiled C++/CUDA ops of torchao/ops.py.
TORCH_LIBRARY_FRAGMENT(torchao, m) {
  m.def(
      "quantize_affine(Tensor input, SymInt[] block_size, Tensor scale, Tensor? zero_point, ScalarType output_dtype, "
      "Scalar? quant_min=None, Scalar? quant_max=None) -> Tensor");
  m.def(
      "dequantize_affine(Tensor input, SymInt[] block_size, Tensor scale, Tensor? zero_point, ScalarType input_dtype, "
      "Scalar? quant_min=None, Scalar? quant_max=None, ScalarType output_dtype=6) -> Tensor");
  m.def(
      "choose_qparams_affine(Tensor? input, str mapping_type, SymInt[] block_size, ScalarType target_dtype, "
      "Scalar? quant_min=None, Scalar? quant_max=None, float? eps=None, ScalarType? scale_dtype=None, "
      "ScalarType? zero_point_dtype=None, bool keepdim=False) -> (Tensor, Tensor)");
  m.def(
      "choose_scale_float8(Tensor tensor, SymInt[] block_size, ScalarType float8_dtype=24, ScalarType scale_dtype=6, "
      "float? hp_value_lb=None, float? hp_value_ub=None) -> Tensor");
  m.def("quantize_affine_float8_non_decomposed(Tensor tensor, Tensor scale, ScalarType float8_dtype=24) -> Tensor");
  m.def("dequantize_affine_float8_non_decomposed(Tensor tensor, Tensor scale, ScalarType output_dtype=6) -> Tensor");
}

// torchao registers the first four as CompositeImplicitAutograd (so inductor may decompose them) and the
// float8 *_non_decomposed pair as CompositeExplicitAutograd. Here all are CompositeExplicitAutograd, so
// our dispatcher runs each op as one kernel and never decomposes it.
TORCH_LIBRARY_IMPL(torchao, CompositeExplicitAutograd, m) {
  m.impl("quantize_affine", TORCH_FN(torchir::quantizeAffine));
  m.impl("dequantize_affine", TORCH_FN(torchir::dequantizeAffine));
  m.impl("choose_qparams_affine", TORCH_FN(torchir::chooseQparamsAffine));
  m.impl("choose_scale_float8", TORCH_FN(torchir::chooseScaleFloat8));
  m.impl("quantize_affine_float8_non_decomposed", TORCH_FN(torchir::quantizeAffineFloat8NonDecomposed));
  m.impl("dequantize_affine_float8_non_decomposed", TORCH_FN(torchir::dequantizeAffineFloat8NonDecomposed));
}
