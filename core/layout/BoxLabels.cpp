#include "BoxLabels.h"

#include <map>

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

/// An operand of a symbolic op as it reads: the value's name (the node that holds it), or the
/// number written in the call.
std::string operandText(const Program& p, const NodeArgument& a) {
  if (!a.values.empty()) return p.value(a.values.front()).name;
  if (const auto* i = a.arg.as<arg::Int>()) return std::to_string(i->value);
  if (const auto* b = a.arg.as<arg::Bool>()) return b->value ? "True" : "False";
  if (const auto* f = a.arg.as<arg::Float>()) {
    std::string t = std::to_string(f->value);
    while (t.size() > 1 && t.back() == '0' && t[t.size() - 2] != '.') t.pop_back();
    return t;
  }
  if (const auto* si = a.arg.as<arg::SymInt>()) return std::to_string(si->sym.constant);
  if (const auto* sb = a.arg.as<arg::SymBool>()) return sb->sym.constant ? "True" : "False";
  return "?";
}

}  // namespace

std::string symbolicExpression(const Program& p, const Node& n) {
  static const std::map<std::string, std::string> infix = {
      {"add", "+"}, {"sub", "-"}, {"mul", "*"}, {"truediv", "/"}, {"floordiv", "//"}, {"mod", "%"}, {"pow", "**"},
      {"lshift", "<<"}, {"rshift", ">>"}, {"and_", "&"}, {"or_", "|"}, {"xor", "^"}, {"eq", "=="}, {"ne", "!="},
      {"lt", "<"}, {"le", "<="}, {"gt", ">"}, {"ge", ">="}};
  static const std::map<std::string, std::string> prefix = {{"neg", "-"}, {"pos", "+"}, {"not_", "not "}, {"sym_not", "not "}};
  // targets as the FX table shows them: `<built-in function le>` (Python's operator and math),
  // `torch.sym_max`
  static const std::string builtin = "<built-in function ", torchSym = "torch.sym_";
  std::string op;
  if (n.target.rfind(builtin, 0) == 0 && n.target.back() == '>') op = n.target.substr(builtin.size(), n.target.size() - builtin.size() - 1);
  else if (n.target.rfind(torchSym, 0) == 0) op = n.target.substr(6);
  if (op.empty() || op == "getitem" || n.opcode != Opcode::CallFunction) return "";
  std::vector<std::string> operands;
  for (const NodeArgument& a : n.inputs) operands.push_back(operandText(p, a));
  if (const auto it = infix.find(op); it != infix.end() && operands.size() == 2)
    return operands[0] + " " + it->second + " " + operands[1];
  if (const auto it = prefix.find(op); it != prefix.end() && operands.size() == 1) return it->second + operands[0];
  std::string call = op + "(";
  for (std::size_t i = 0; i < operands.size(); ++i) call += (i ? ", " : "") + operands[i];
  return call + ")";
}

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
  const std::string expression = symbolicExpression(p, node);
  std::vector<std::string> lines{expression.empty() ? shortOpName(node.target) : expression};
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
