#include "IrWriter.h"

#include <cstring>

#include "ArgumentJson.h"
#include "LenientJson.h"
#include "TensorJson.h"

namespace torchir {
namespace {

using Json = nlohmann::ordered_json;

Json tensorMeta(const Value& v) {
  Json shape = Json::array();
  for (const auto& d : v.shape) shape.push_back(d.hint);
  return Json{{"name", v.name}, {"shape", shape}, {"dtype", std::string(dtypeName(v.dtype))}};
}

class IrBuilder {
 public:
  IrBuilder(const Program& p, const SchemaLookup& schemas) : m_p(p), m_schemas(schemas), m_metaNames(p.values.size()) {}

  Json build(const std::string& pytorchVersion) {
    refuseDynamicShapes();
    nameOutputs();
    Json ir;
    ir["model_name"] = m_p.source.modelName;
    ir["pytorch_version"] = pytorchVersion;
    Json inputs = Json::array(), weights = Json::array(), mapping = Json::object();
    for (const auto& spec : m_p.inputs) {
      const Value& v = m_p.value(spec.value);
      if (v.kind != ValueKind::Tensor) continue;
      if (spec.kind == InputKind::UserInput) inputs.push_back(tensorMeta(v));
      if (spec.kind == InputKind::Parameter || spec.kind == InputKind::Buffer || spec.kind == InputKind::TensorConstant) {
        mapping[v.name] = spec.target;
        Json w = tensorMeta(v);
        w["name"] = spec.target;
        weights.push_back(w);
      }
    }
    Json outputs = Json::array();
    for (const auto& spec : m_p.outputs)
      if (spec.kind == OutputKind::UserOutput && spec.value != kNone) outputs.push_back(namedMeta(spec.value));
    ir["graph_inputs"] = inputs;
    ir["graph_outputs"] = outputs;
    ir["weights"] = weights;
    ir["weight_name_mapping"] = mapping;
    Json nodes = Json::array();
    for (const auto& n : m_p.nodes)
      if (n.opcode == Opcode::CallFunction && !picksNone(n)) nodes.push_back(node(n));
    ir["nodes"] = nodes;
    Json constants = Json::object();
    for (const auto& spec : m_p.inputs) {
      if (spec.kind != InputKind::TensorConstant && !(spec.kind == InputKind::Buffer && !spec.persistent)) continue;
      auto it = m_p.weights.find(spec.target);
      if (it == m_p.weights.end() || !it->second.hasData()) continue;  // meta-device constants are skipped
      constants[spec.target] = Json{{"data", tensorToNestedList(it->second)}, {"dtype", std::string(dtypeName(it->second.dtype))}};
    }
    if (!constants.empty()) ir["constants"] = constants;
    return ir;
  }

 private:
  void refuseDynamicShapes() {
    if (std::string refusal = conversionRefusal(m_p); !refusal.empty()) throw ConversionError(refusal);
  }

  /// pytorch-ir names a node's outputs after the node; a tuple's elements get `_<i>`.
  void nameOutputs() {
    for (const auto& n : m_p.nodes)
      for (std::size_t i = 0; i < n.outputs.size(); ++i) {
        if (n.returnsTuple) m_metaNames[static_cast<std::size_t>(n.outputs[i])] = n.name + "_" + std::to_string(i);
        m_holder[n.outputs[i]] = n.id;  // the getitem node, when there is one, comes last
      }
  }

  /// A getitem of a None result (auto_functionalized of an op that returns nothing): only
  /// torch.export.load makes it; pytorch-ir reads the exported graph, which has none.
  bool picksNone(const Node& n) const {
    return isGetItem(n) && n.outputs.size() == 1 &&
           m_p.value(n.outputs.front()).kind == ValueKind::None;
  }

  /// The metas of the FX node that holds value `v` (a getitem names its own output).
  Json namedMeta(ValueId v) {
    Json m = tensorMeta(m_p.value(v));
    const Node& holder = m_p.node(m_holder.at(v));
    m["name"] = holder.returnsTuple ? m_metaNames[static_cast<std::size_t>(v)] : holder.name;
    return m;
  }

  /// All metas of an FX node used as an argument: a tuple-returning op lends every output.
  void appendArgMetas(NodeId producer, Json& out) {
    const Node& n = m_p.node(producer);
    const std::size_t first = out.size();
    const auto* spec = n.opcode == Opcode::Placeholder ? m_p.inputSpecFor(n.outputs.front()) : nullptr;
    const bool weight = spec && (spec->kind == InputKind::Parameter || spec->kind == InputKind::Buffer ||
                                 spec->kind == InputKind::TensorConstant);
    for (std::size_t i = 0; i < n.outputs.size(); ++i) {
      const Value& v = m_p.value(n.outputs[i]);
      if (v.kind != ValueKind::Tensor) continue;
      Json m = tensorMeta(v);
      m["name"] = n.returnsTuple ? m_metaNames[static_cast<std::size_t>(v.id)] : n.name;
      if (!weight) {
        m["producer_node"] = n.name;
        m["producer_output_idx"] = static_cast<int>(out.size() - first);  // counts tensor results only
      }
      out.push_back(m);
    }
  }

  Json node(const Node& n) {
    Json inputs = Json::array(), outputs = Json::array(), attrs = Json::object();
    const arg::OutputOf* picked = n.picks();
    if (picked) {
      appendArgMetas(picked->producer, inputs);
      attrs["index"] = picked->index;
    }
    for (std::size_t i = 0; i < n.outputs.size(); ++i) {
      const Value& v = m_p.value(n.outputs[i]);
      if (v.kind != ValueKind::Tensor) continue;
      Json m = tensorMeta(v);
      m["name"] = n.returnsTuple ? m_metaNames[static_cast<std::size_t>(v.id)] : n.name;
      outputs.push_back(m);
    }
    if (!picked) {
      for (const auto& a : n.inputs)
        if (!a.keyword) appendTensorArgs(a, inputs);
      attrs = opAttrs(n);
    }
    return Json{{"name", n.name}, {"op_type", n.target}, {"inputs", inputs}, {"outputs", outputs}, {"attrs", attrs}};
  }

  void appendTensorArgs(const NodeArgument& a, Json& out) {
    for (ValueId v : a.values) appendArgMetas(m_holder.at(v), out);
  }

  /// kwargs, then `_tensor_list_sizes` / `_tensor_list_none_masks`, then positional non-tensors.
  Json opAttrs(const Node& n) {
    Json attrs = Json::object();
    for (const auto& a : n.inputs)
      if (a.keyword) attrs[a.name] = pythonValue(a);
    const auto specs = m_schemas(n.target);
    std::vector<const NodeArgument*> positional;
    for (const auto& a : n.inputs)
      if (!a.keyword) positional.push_back(&a);
    Json sizes = Json::array(), masks = Json::array();
    for (std::size_t i = 0; i < specs.size() && i < positional.size(); ++i) {
      if (!specs[i].isTensorList) continue;
      const Argument& arg = positional[i]->arg;
      std::vector<bool> none;
      if (const auto* list = arg.as<arg::Tensors>()) none.assign(list->tensors.size(), false);
      else if (const auto* optional = arg.as<arg::OptionalTensors>())
        for (const auto& t : optional->tensors) none.push_back(!t);
      else continue;
      int count = 0;
      Json mask = Json::array();
      bool anyNone = false;
      for (bool isNone : none) {
        count += isNone ? 0 : 1;
        anyNone |= isNone;
        mask.push_back(isNone);
      }
      sizes.push_back(count);
      if (anyNone) masks.push_back(mask);
    }
    if (!sizes.empty()) attrs["_tensor_list_sizes"] = sizes;
    if (!masks.empty()) attrs["_tensor_list_none_masks"] = masks;
    for (std::size_t i = 0; i < specs.size() && i < positional.size(); ++i) {
      const auto& a = *positional[i];
      if (!a.values.empty()) continue;  // a node, or a list holding one
      const auto* optional = a.arg.as<arg::OptionalTensor>();
      if ((a.arg.is<arg::None>() || (optional && !optional->tensor)) && specs[i].isTensor) continue;
      attrs[specs[i].name] = pythonValue(a);
    }
    return attrs;
  }

  /// The argument as Python holds it, then as `json.dumps(default=str)` writes it: a value of
  /// the graph as str() of the FX node holding it.
  Json pythonValue(const NodeArgument& a) {
    return pythonJson(a.arg, [this](ValueId v) { return m_p.node(m_holder.at(v)).name; });
  }

  const Program& m_p;
  const SchemaLookup& m_schemas;
  std::vector<std::string> m_metaNames;
  std::map<ValueId, NodeId> m_holder;
};

}  // namespace

std::string conversionRefusal(const Program& program) {
  for (const auto& n : program.nodes)
    for (ValueId id : n.outputs) {
      const Value& v = program.value(id);
      bool dynamic = false;
      std::string shape = "(";
      for (std::size_t i = 0; i < v.shape.size(); ++i) {
        dynamic |= v.shape[i].isSymbolic();
        shape += (i ? ", " : "") + (v.shape[i].isSymbolic() ? v.shape[i].expr : std::to_string(v.shape[i].hint));
      }
      shape += v.shape.size() == 1 ? ",)" : ")";
      if (dynamic)
        return "Dynamic shape detected in node '" + n.name + "': shape=" + shape +
               ". IR extraction requires static shapes. Do not pass dynamic_shapes to torch.export.export().";
    }
  return {};
}

nlohmann::ordered_json toIrJson(const Program& program, const std::string& pytorchVersion,
                                const SchemaLookup& schemas) {
  return IrBuilder(program, schemas).build(pytorchVersion);
}

}  // namespace torchir
