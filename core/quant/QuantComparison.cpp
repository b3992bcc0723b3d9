#include "QuantComparison.h"

#include <algorithm>
#include <exception>
#include <stdexcept>

#include "program/QuantOps.h"
#include "quant/KeepInFloat.h"

namespace torchir {
namespace {

/// Quantization steps of a value's scale that a difference may reach before it is more than the
/// rounding a quantized value has anyway.
constexpr double kQuantizationSteps = 3;

/// The quantization step of a node's output: its own scale, or that of the value one op after it
/// (linear -> relu -> quantize: the linear's numbers are rounded to the relu's scale).
std::optional<double> quantizationStepAfter(const Program& p, ValueId value) {
  if (auto step = quantizationStepOf(p, value)) return step;
  const auto& users = p.value(value).users;
  if (users.size() != 1) return std::nullopt;
  const Node& user = p.node(users.front());
  if (!isOpNode(user) || user.outputs.empty() || quantRole(user.target) != QuantRole::None) return std::nullopt;
  return quantizationStepOf(p, user.outputs.front());
}

class QuantComparison final : public ComparisonExtension {
 public:
  std::optional<TensorData> comparedForm(const Program& a, ValueId v, const TensorData& t) const override {
    if (isFloating(t.dtype)) return std::nullopt;
    if (const auto d = dequantizationOf(a, v)) try {
        return dequantizedValues(t, *d);
      } catch (const std::invalid_argument&) {
      }
    return std::nullopt;
  }

  /// A quantized value: a few steps of its scale, relative to the reference's largest number.
  double tolerance(const Program& a, ValueId v, double byDtypes, const TensorMetrics& m) const override {
    if (const auto step = quantizationStepAfter(a, v); step && m.maxRef > 0)
      return std::max(byDtypes, kQuantizationSteps * *step / m.maxRef);
    return byDtypes;
  }

  bool alwaysMeasureOwnError(const Program& a, const Node& n) const override { return isQuantizedLayer(a, n); }

  std::optional<OwnErrorRun> ownErrorRun(const Session& a, const Node& na, const Session& b, const Node& nb,
                                         const NodeMatching& matching) const override {
    if (!isQuantizedLayer(a.program(), na)) return std::nullopt;
    OwnErrorRun run;
    if (nb.target != na.target) {
      // a node the quantizer folded others into (conv with its batch norm): its own op, on its
      // float activations and its own weights
      run.side = OwnErrorRun::Side::Program;
      try {
        run.inputs = inputsKeptInFloat(a, na.id, nullptr, nullptr);
      } catch (const std::exception& e) {
        run.problem = e.what();
      }
      return run;
    }
    const std::vector<ValueId> fromA = valuesNamedBy(na);
    if (fromA.size() != valuesNamedBy(nb).size()) {
      run.problem = kArgumentsDiffer;
      return run;
    }
    // a non-tensor keeps the reference's; a quantized input is taken as it was before its
    // quantization (the activation A's quantize node read, the reference's own weight)
    const auto kept = inputsKeptInFloat(a, na.id, &b, &matching);
    for (std::size_t i = 0; i < fromA.size(); ++i) {
      const auto q = quantizedInputOf(a.program(), fromA[i]);
      if (q && !q->isWeight() && !kept[i]) {
        run.problem = "the float value before its quantization is no longer held";
        return run;
      }
      if (q && q->isWeight() && !kept[i]) run.inputs.push_back(std::nullopt);  // the reference's float weight
      else run.inputs.push_back(kept[i] ? kept[i] : a.tensorView(fromA[i]));
    }
    return run;
  }

  void annotate(ComparisonRecord& r, const Program& a, const Program& /*b*/, const NodeMatching& matching) const override {
    r.quantized = !quantizedLayers(a).empty();
    r.quantizationNodes = matching.quantizationA.size();
  }
};

}  // namespace

std::shared_ptr<const ComparisonExtension> quantComparison() {
  static const auto instance = std::make_shared<const QuantComparison>();
  return instance;
}

}  // namespace torchir
