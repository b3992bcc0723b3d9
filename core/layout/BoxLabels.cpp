#include "BoxLabels.h"

#include "program/QuantOps.h"

namespace torchir::layout {

namespace {

std::string shortDtype(DType t) {
  switch (t) {
    case DType::Float32: return "f32";
    case DType::Float16: return "f16";
    case DType::BFloat16: return "bf16";
    case DType::Float64: return "f64";
    case DType::Int64: return "i64";
    case DType::Int32: return "i32";
    case DType::Bool: return "bool";
    case DType::Unknown: return "?";
    default: return std::string(dtypeName(t));
  }
}

/// `torch.nn.modules.conv.Conv2d` -> `Conv2d`.
std::string lastDotted(const std::string& s) {
  const auto dot = s.rfind('.');
  return dot == std::string::npos ? s : s.substr(dot + 1);
}

std::string shapeText(const std::vector<Dim>& shape) {
  if (shape.empty()) return "scalar";
  std::string s;
  for (std::size_t i = 0; i < shape.size(); ++i) {
    if (i) s += "x";
    s += shape[i].isSymbolic() ? shape[i].expr : std::to_string(shape[i].hint);
  }
  return s;
}

/// `conv1.weight` -> `W`, `bn1.running_mean` -> `running_mean`: the module path is the frame's job.
std::string weightName(const std::string& key) {
  const std::string last = lastDotted(key);
  if (last == "weight") return "W";
  if (last == "bias") return "b";
  return last;
}

}  // namespace

std::string quantizedEdgeLabel(const Program& p, NodeId quantize) {
  const Node& q = p.node(quantize);
  const std::string dtype = q.outputs.empty() ? "q" : std::string(dtypeName(p.value(q.outputs[0]).dtype));
  const std::string qparams = quantParamsText(q);
  return qparams.empty() ? dtype : dtype + " " + qparams;
}

std::string shortOpName(const std::string& target) {
  std::string s = target;
  if (s.rfind("aten.", 0) == 0) s = s.substr(5);
  const std::string def = ".default";
  if (s.size() > def.size() && s.compare(s.size() - def.size(), def.size(), def) == 0) s.resize(s.size() - def.size());
  return s;
}

std::string valueText(const Value& v) {
  switch (v.kind) {
    case ValueKind::Tensor: return shapeText(v.shape) + " " + shortDtype(v.dtype);
    case ValueKind::SymInt: return "SymInt";
    case ValueKind::SymFloat: return "SymFloat";
    case ValueKind::SymBool: return "SymBool";
    case ValueKind::None: return "None";
    default: return "object";
  }
}

std::vector<std::string> opLabel(const ViewGraph& g, NodeId n) {
  const Program& p = g.program();
  const Node& node = p.node(n);
  std::vector<std::string> lines{shortOpName(node.target)};
  if (const int m = g.inlinedModule(n); m >= 0) lines[0] = lastDotted(p.modules[static_cast<std::size_t>(m)].path) + ": " + lines[0];
  // One line per output; multi-output ops number them as their edges are labelled.
  for (std::size_t i = 0; i < node.outputs.size(); ++i) {
    const std::string prefix = node.outputs.size() > 1 ? "[" + std::to_string(i) + "] " : "";
    lines.push_back(prefix + valueText(p.value(node.outputs[i])));
  }
  for (ValueId w : g.weightsOf(n)) {
    const auto* spec = p.inputSpecFor(w);
    const std::string name = spec ? weightName(spec->target) : p.value(w).name;
    const NodeId via = g.dequantizedBy(n, w);
    if (via == kNone) {
      lines.push_back(name + " " + shapeText(p.value(w).shape));
      continue;
    }
    // a quantized weight as stored: `W int8 16x3x3x3 per-channel`, `W Int8Tensor 64x32`, named as
    // the op reads it (pt2e folds weights into constants named `_frozen_param0`)
    const std::string argument = g.readAs(n, w);
    const std::string readName = argument == "weight" || argument == "bias" ? weightName(argument) : name;
    const auto stored = spec ? p.weights.find(spec->target) : p.weights.end();
    const bool subclass = stored != p.weights.end() && stored->second.subclass;
    const std::string kind = subclass ? lastDotted(stored->second.subclass->className) : shortDtype(p.value(w).dtype);
    const std::string granularity = quantGranularity(p.node(via).target);
    lines.push_back(readName + " " + kind + " " + shapeText(p.value(w).shape) +
                    (granularity.empty() || subclass ? "" : " " + granularity));
  }
  return lines;
}

std::vector<std::string> inputLabel(const Program& p, int i) {
  const auto& s = p.inputs[static_cast<std::size_t>(i)];
  return {"input " + p.value(s.value).name, valueText(p.value(s.value))};
}

std::vector<std::string> outputLabel(const Program& p, int i) {
  const auto& s = p.outputs[static_cast<std::size_t>(i)];
  std::vector<std::string> lines{s.kind == OutputKind::UserOutput ? "output " + std::to_string(i)
                                                                  : std::string(outputKindName(s.kind)) + " " + s.target};
  if (s.value >= 0) lines.push_back(valueText(p.value(s.value)));
  return lines;
}

std::vector<std::string> moduleLabel(const ViewGraph& g, int m) {
  if (g.isGroup(m)) {
    const SiblingGroup& gr = g.group(m);
    return {groupRange(gr), std::to_string(gr.modules) + " \u00d7 " + lastDotted(gr.type),
            std::to_string(g.subtreeOps(m)) + " ops  [+]"};
  }
  const Module& mod = g.program().modules[static_cast<std::size_t>(m)];
  return {mod.path, lastDotted(mod.type), std::to_string(g.subtreeOps(m)) + " ops  [+]"};
}

std::string frameLabel(const ViewGraph& g, int m) {
  if (g.isGroup(m)) {
    const SiblingGroup& gr = g.group(m);
    return groupRange(gr) + " (" + std::to_string(gr.modules) + " \u00d7 " + lastDotted(gr.type) + ")";
  }
  const Module& mod = g.program().modules[static_cast<std::size_t>(m)];
  return mod.path + " (" + lastDotted(mod.type) + ")";
}

}  // namespace torchir::layout
