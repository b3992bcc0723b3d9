#include "QuantOps.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <memory>
#include <optional>
#include <stdexcept>

#include "TensorValues.h"

namespace torchir {
namespace {

/// A number argument of a node by schema name (a .pt2's constant or an IR attribute).
std::optional<double> numberArgument(const Node& n, const std::string& name) {
  for (const auto& a : n.inputs) {
    if (a.name != name) continue;
    if (const auto* f = a.arg.as<arg::Float>()) return f->value;
    if (const auto* i = a.arg.as<arg::Int>()) return static_cast<double>(i->value);
    if (const auto* l = a.arg.as<arg::Attribute>()) {
      if (const double* f = l->value.asFloat()) return *f;
      if (const int64_t* i = l->value.asInt()) return static_cast<double>(*i);
    }
  }
  return std::nullopt;
}

/// A constant tensor argument's elements (a per-channel scale or zero point: a weight or lifted
/// constant), bounded by `limit`.
std::optional<std::vector<double>> constantArgument(const Program& p, const Node& n, const std::string& name,
                                                    std::size_t limit) {
  for (const auto& a : n.inputs) {
    if (a.name != name || a.values.empty()) continue;
    const InputSpec* spec = p.inputSpecFor(a.values.front());
    const auto w = spec ? p.weights.find(spec->target) : p.weights.end();
    if (w == p.weights.end() || !w->second.hasData() || w->second.numel() < 0 ||
        static_cast<std::size_t>(w->second.numel()) > limit)
      return std::nullopt;
    std::vector<double> out;
    for (int64_t i = 0; i < w->second.numel(); ++i) out.push_back(elementAsDouble(w->second, i));
    return out;
  }
  return std::nullopt;
}

std::optional<Dequantization> qparamsOf(const Program& p, const Node& n) {
  Dequantization d;
  d.node = n.id;
  const auto qmin = numberArgument(n, "quant_min"), qmax = numberArgument(n, "quant_max");
  if (!qmin || !qmax) return std::nullopt;
  d.quantMin = static_cast<int64_t>(*qmin);
  d.quantMax = static_cast<int64_t>(*qmax);
  if (const auto scale = numberArgument(n, "scale"), zp = numberArgument(n, "zero_point"); scale && zp) {
    d.scales = {*scale};
    d.zeroPoints = {static_cast<int64_t>(*zp)};
    return d;
  }
  const auto axis = numberArgument(n, "axis");
  if (!axis || n.inputs.empty() || n.inputs[0].values.empty()) return std::nullopt;
  const auto& shape = p.value(n.inputs[0].values[0]).shape;
  const auto a = static_cast<int64_t>(*axis);
  if (a < 0 || a >= static_cast<int64_t>(shape.size()) || shape[static_cast<std::size_t>(a)].hint <= 0)
    return std::nullopt;
  const auto channels = static_cast<std::size_t>(shape[static_cast<std::size_t>(a)].hint);
  const auto scales = constantArgument(p, n, "scales", channels);
  if (!scales || scales->size() != channels) return std::nullopt;
  const auto zps = constantArgument(p, n, "zero_points", channels);
  d.axis = static_cast<int>(*axis);
  d.scales = *scales;
  d.zeroPoints.assign(channels, 0);  // None: symmetric
  if (zps && zps->size() == channels)
    for (std::size_t i = 0; i < channels; ++i) d.zeroPoints[i] = static_cast<int64_t>((*zps)[i]);
  return d;
}

}  // namespace

double Dequantization::dequantize(double code, int64_t channel) const {
  const std::size_t i = axis < 0 ? 0 : static_cast<std::size_t>(channel);
  if (i >= scales.size() || i >= zeroPoints.size()) return std::nan("");
  return (code - static_cast<double>(zeroPoints[i])) * scales[i];
}

std::optional<Dequantization> dequantizationOf(const Program& p, ValueId value) {
  if (value < 0 || static_cast<std::size_t>(value) >= p.values.size()) return std::nullopt;
  const Value& v = p.value(value);
  for (NodeId user : v.users) {
    const Node& n = p.node(user);
    if (quantRole(n.target) == QuantRole::Dequantize && !n.inputs.empty() && !n.inputs[0].values.empty() &&
        n.inputs[0].values[0] == value)
      if (auto d = qparamsOf(p, n)) return d;
  }
  if (v.producer >= 0 && quantRole(p.node(v.producer).target) == QuantRole::Quantize) return qparamsOf(p, p.node(v.producer));
  return std::nullopt;
}

std::optional<double> quantizationStepOf(const Program& p, ValueId value) {
  auto d = dequantizationOf(p, value);
  if (!d && value >= 0 && static_cast<std::size_t>(value) < p.values.size())
    for (NodeId user : p.value(value).users) {
      const Node& n = p.node(user);
      if (quantRole(n.target) == QuantRole::Quantize && !n.inputs.empty() && !n.inputs[0].values.empty() &&
          n.inputs[0].values[0] == value && (d = qparamsOf(p, n)))
        break;
    }
  if (!d || d->scales.empty()) return std::nullopt;
  return *std::max_element(d->scales.begin(), d->scales.end());
}

TensorData dequantizedValues(const TensorData& codes, const Dequantization& d) {
  const int64_t n = codes.numel();
  int64_t inner = 1, channels = 1;
  if (d.axis >= 0) {
    if (static_cast<std::size_t>(d.axis) >= codes.sizes.size()) throw std::invalid_argument("the qparams' axis is past the tensor's rank");
    channels = codes.sizes[static_cast<std::size_t>(d.axis)];
    for (std::size_t i = static_cast<std::size_t>(d.axis) + 1; i < codes.sizes.size(); ++i) inner *= codes.sizes[i];
    if (static_cast<int64_t>(d.scales.size()) != channels) throw std::invalid_argument("the qparams do not fit the tensor's channels");
  }
  if (n > 0 && !codes.hasData()) throw std::invalid_argument("the codes have no data");
  auto bytes = std::make_shared<std::vector<std::byte>>(static_cast<std::size_t>(n) * sizeof(double));
  auto* out = reinterpret_cast<double*>(bytes->data());
  for (int64_t i = 0; i < n; ++i)
    out[i] = d.dequantize(elementAsDouble(codes, i), inner > 0 && channels > 0 ? (i / inner) % channels : 0);
  TensorData t;
  t.dtype = DType::Float64;
  t.sizes = codes.sizes;
  t.strides = TensorData::contiguousStrides(t.sizes);
  t.storage = std::make_shared<Storage>(Storage{bytes->data(), bytes->size(), bytes, "dequantized"});
  return t;
}

std::optional<QuantizedInput> quantizedInputOf(const Program& p, ValueId value) {
  if (value < 0 || static_cast<std::size_t>(value) >= p.values.size()) return std::nullopt;
  const NodeId dq = p.value(value).producer;
  if (dq < 0 || quantRole(p.node(dq).target) != QuantRole::Dequantize) return std::nullopt;
  const Node& d = p.node(dq);
  if (d.inputs.empty() || d.inputs[0].values.empty()) return std::nullopt;
  QuantizedInput in;
  in.dequantize = dq;
  const ValueId codes = d.inputs[0].values[0];
  const NodeId q = p.value(codes).producer;
  if (q < 0 || p.node(q).opcode != Opcode::CallFunction) return in;  // codes held as a constant: a weight
  const Node& qn = p.node(q);
  if (quantRole(qn.target) != QuantRole::Quantize || qn.inputs.empty() || qn.inputs[0].values.empty()) return std::nullopt;
  in.floatValue = qn.inputs[0].values[0];
  return in;
}

std::string quantGranularity(const std::string& target) {
  for (const char* g : {"per_channel_group", "per_channel", "per_token", "per_tensor", "affine"})
    if (target.find(g) != std::string::npos) {
      std::string s = g;
      for (char& c : s)
        if (c == '_') c = '-';
      return s == "per-channel-group" ? "per-group" : s;
    }
  return "";
}

std::string quantParamsText(const Node& q) {
  const auto scale = numberArgument(q, "scale");
  const auto zeroPoint = numberArgument(q, "zero_point");
  if (scale && zeroPoint) {  // static qparams: the numbers themselves
    char buf[64];
    std::snprintf(buf, sizeof buf, "s=%.3g zp=%lld", *scale, static_cast<long long>(*zeroPoint));
    return buf;
  }
  if (q.target.find(".tensor") != std::string::npos) return "dynamic";
  return quantGranularity(q.target);
}

QuantRole quantRole(std::string_view target) {
  if (target.rfind("torch.ops.", 0) == 0) target.remove_prefix(10);
  const auto dot = target.find('.');
  if (dot == std::string_view::npos) return QuantRole::None;
  const std::string_view ns = target.substr(0, dot), op = target.substr(dot + 1);
  if (ns == "export") return op.rfind("access_subclass_inner_tensor", 0) == 0 ? QuantRole::InnerTensor : QuantRole::None;
  if (ns != "quantized_decomposed" && ns != "torchao") return QuantRole::None;
  if (op.rfind("quantize_", 0) == 0) return QuantRole::Quantize;
  if (op.rfind("dequantize_", 0) == 0) return QuantRole::Dequantize;
  if (op.rfind("choose_qparams", 0) == 0 || op.rfind("choose_scale", 0) == 0) return QuantRole::ChooseQParams;
  return QuantRole::None;
}

std::string_view quantRoleName(QuantRole role) {
  switch (role) {
    case QuantRole::Quantize:
      return "quantize";
    case QuantRole::Dequantize:
      return "dequantize";
    case QuantRole::ChooseQParams:
      return "choose_qparams";
    case QuantRole::InnerTensor:
      return "inner tensor";
    case QuantRole::None:
      break;
  }
  return "";
}

}  // namespace torchir
