#pragma once
// Which nodes are quantization itself (quantize, dequantize, choose qparams, a subclass's inner
// tensor), by target: the one place that knows the names of the quantized ops of
// quantized_decomposed, torchao and export, so info, the table and the graph agree.
#include <string>
#include <string_view>
#include <optional>
#include <vector>

#include "Program.h"

namespace torchir {

enum class QuantRole : unsigned char { None, Quantize, Dequantize, ChooseQParams, InnerTensor };

/// The role of a node's target ("quantized_decomposed.quantize_per_tensor.default",
/// "torchao.dequantize_affine.default", "torch.ops.export.access_subclass_inner_tensor.default").
QuantRole quantRole(std::string_view target);

/// "quantize", "dequantize", "choose_qparams", "inner tensor"; "" for None.
std::string_view quantRoleName(QuantRole role);

/// How finely a quantize or dequantize op shares its qparams, from its name: "per-tensor",
/// "per-channel", "per-token", "per-group", "affine"; "" when it does not say.
std::string quantGranularity(const std::string& target);

/// How the integer codes of a value map back to real numbers: `(code - zeroPoint) * scale`, per
/// tensor, or per channel along `axis` (scales and zero points one per index along it), and the
/// range the codes were clamped to.
struct Dequantization {
  int axis = -1;  // -1: per tensor
  std::vector<double> scales;
  std::vector<int64_t> zeroPoints;
  int64_t quantMin = 0, quantMax = 0;
  NodeId node = kNone;  // the quantize or dequantize node the qparams were read from
  double dequantize(double code, int64_t channel) const;
};

/// The qparams of a quantized value, where the program holds them as numbers or constant weights:
/// those of the dequantize node that reads it (or the quantize node that made it). nullopt when
/// none does, or when its qparams are made during the run (dynamic quantization).
std::optional<Dequantization> dequantizationOf(const Program& p, ValueId value);

/// The largest quantization step the numbers of `value` are rounded to: the scale of its codes
/// (dequantizationOf), or of the quantize node that reads it (a float op's output that is then
/// quantized). nullopt where the program holds no such static qparams.
std::optional<double> quantizationStepOf(const Program& p, ValueId value);

/// Integer codes as the real numbers they stand for, as float64: `(code - zero point) * scale`
/// per tensor or per channel along the axis. Throws std::invalid_argument when `d` does not fit
/// the tensor (its axis or its number of channels).
TensorData dequantizedValues(const TensorData& codes, const Dequantization& d);

/// Where a node's input `value` comes out of quantization: it is made by a dequantize node that
/// reads codes made by a quantize node (an activation) or held as a constant (a weight).
struct QuantizedInput {
  NodeId dequantize = kNone;
  /// The float value the quantize node read (an activation): what the input was before its
  /// quantization; kNone for a weight.
  ValueId floatValue = kNone;
  bool isWeight() const { return floatValue == kNone; }
};
std::optional<QuantizedInput> quantizedInputOf(const Program& p, ValueId value);

/// A quantize or dequantize node's qparams as a user reads them: `s=0.0123 zp=-3` where the node
/// holds them as numbers, else `dynamic` (qparams computed in the run) or its granularity.
std::string quantParamsText(const Node& node);

}  // namespace torchir
