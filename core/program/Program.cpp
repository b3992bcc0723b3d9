#include "Program.h"

namespace torchir {

std::vector<ValueId> valuesNamedBy(const Node& n) {
  std::vector<ValueId> out;
  for (const NodeArgument& a : n.inputs) out.insert(out.end(), a.values.begin(), a.values.end());
  return out;
}

std::vector<std::size_t> subgraphsOf(const Program& p, const Node& n) {
  std::vector<std::size_t> out;
  for (const NodeArgument& a : n.inputs) {
    const auto* graph = a.arg.as<arg::Graph>();
    if (!graph || graph->value < 0 || static_cast<std::size_t>(graph->value) >= p.values.size()) continue;
    const NodeId producer = p.value(graph->value).producer;
    if (producer < 0 || static_cast<std::size_t>(producer) >= p.nodes.size()) continue;
    const int32_t index = p.node(producer).subgraph;
    if (index >= 0 && static_cast<std::size_t>(index) < p.subgraphs.size()) out.push_back(static_cast<std::size_t>(index));
  }
  return out;
}

const std::string& Node::stackTraceText() const {
  static const std::string none;
  return stackTrace ? *stackTrace : none;
}

const ModuleStack& Node::moduleFrames() const {
  static const ModuleStack root;
  return moduleStack ? *moduleStack : root;
}

std::string_view opcodeName(Opcode op) {
  switch (op) {
    case Opcode::Placeholder: return "placeholder";
    case Opcode::CallFunction: return "call_function";
    case Opcode::GetAttr: return "get_attr";
    case Opcode::Output: return "output";
  }
  return "?";
}

std::string_view inputKindName(InputKind k) {
  switch (k) {
    case InputKind::UserInput: return "user_input";
    case InputKind::Parameter: return "parameter";
    case InputKind::Buffer: return "buffer";
    case InputKind::TensorConstant: return "tensor_constant";
    case InputKind::CustomObj: return "custom_obj";
    case InputKind::Token: return "token";
    case InputKind::ConstantInput: return "constant_input";
  }
  return "?";
}

std::string_view outputKindName(OutputKind k) {
  switch (k) {
    case OutputKind::UserOutput: return "user_output";
    case OutputKind::LossOutput: return "loss_output";
    case OutputKind::BufferMutation: return "buffer_mutation";
    case OutputKind::GradientToParameter: return "gradient_to_parameter";
    case OutputKind::GradientToUserInput: return "gradient_to_user_input";
    case OutputKind::UserInputMutation: return "user_input_mutation";
    case OutputKind::Token: return "token";
    case OutputKind::ParameterMutation: return "parameter_mutation";
  }
  return "?";
}

std::optional<ValueId> Program::findValue(const std::string& name) const {
  for (const auto& v : values)
    if (v.name == name) return v.id;
  return std::nullopt;
}

std::optional<NodeId> Program::findNode(const std::string& name) const {
  for (const auto& n : nodes)
    if (n.name == name) return n.id;
  return std::nullopt;
}

std::string Program::sizeProblem() const {
  for (const auto& v : values) {
    if (v.shape.size() > TensorData::kMaxRank)
      return "value '" + v.name + "' has " + std::to_string(v.shape.size()) + " dimensions";
    int64_t n = 1;
    for (const auto& d : v.shape) {
      if (d.hint < 0) return "value '" + v.name + "' has a negative dimension";
      if (__builtin_mul_overflow(n, d.hint, &n)) return "value '" + v.name + "' has more elements than int64 counts";
    }
  }
  int64_t total = 0;
  for (const auto& in : inputs) {
    if (in.kind == InputKind::UserInput || in.value == kNone) continue;
    int64_t n = 1;
    for (const auto& d : value(in.value).shape) n *= d.hint;  // checked above
    if (__builtin_add_overflow(total, n, &total)) return "the weights have more elements together than int64 counts";
  }
  return {};
}

bool Program::isDynamic() const {
  for (const auto& v : values)
    for (const auto& d : v.shape)
      if (d.isSymbolic()) return true;
  return false;
}

std::vector<std::string> Program::missingData() const {
  std::vector<std::string> out;
  for (const auto& [key, t] : weights)
    if (!t.runnable()) out.push_back(key);
  return out;
}

const InputSpec* Program::inputSpecFor(ValueId v) const {
  for (const auto& s : inputs)
    if (s.value == v) return &s;
  return nullptr;
}

}  // namespace torchir
