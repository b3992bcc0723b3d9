#include "IrWriter.h"

#include <cstring>

#include "LenientJson.h"
#include "TensorValues.h"

namespace torchir {
namespace {

using Json = nlohmann::ordered_json;
using nlohmann::json;

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
    for (const auto& n : m_p.nodes)
      for (ValueId id : n.outputs) {
        const Value& v = m_p.value(id);
        bool dynamic = false;
        std::string shape = "(";
        for (std::size_t i = 0; i < v.shape.size(); ++i) {
          dynamic |= v.shape[i].isSymbolic();
          shape += (i ? ", " : "") + (v.shape[i].isSymbolic() ? v.shape[i].expr : std::to_string(v.shape[i].hint));
        }
        shape += v.shape.size() == 1 ? ",)" : ")";
        if (dynamic)
          throw ConversionError("Dynamic shape detected in node '" + n.name + "': shape=" + shape +
                                ". IR extraction requires static shapes. "
                                "Do not pass dynamic_shapes to torch.export.export().");
      }
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
    return n.target == "<built-in function getitem>" && n.outputs.size() == 1 &&
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
    const bool getitem = !n.inputs.empty() && n.inputs.front().arg.contains("as_node");
    if (getitem) {
      const auto producer = m_p.findNode(n.inputs.front().arg.at("as_node").get<std::string>());
      if (producer) appendArgMetas(*producer, inputs);
      attrs["index"] = n.inputs.front().arg.at("index");
    }
    for (std::size_t i = 0; i < n.outputs.size(); ++i) {
      const Value& v = m_p.value(n.outputs[i]);
      if (v.kind != ValueKind::Tensor) continue;
      Json m = tensorMeta(v);
      m["name"] = n.returnsTuple ? m_metaNames[static_cast<std::size_t>(v.id)] : n.name;
      outputs.push_back(m);
    }
    if (!getitem) {
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
      const auto& arg = positional[i]->arg;
      const auto kind = arg.begin().key();
      if (!specs[i].isTensorList || (kind != "as_tensors" && kind != "as_optional_tensors")) continue;
      int count = 0;
      Json mask = Json::array();
      bool anyNone = false;
      for (const auto& t : arg.at(kind)) {
        const bool none = kind == "as_optional_tensors" && t.begin().key() == "as_none";
        count += none ? 0 : 1;
        anyNone |= none;
        mask.push_back(none);
      }
      sizes.push_back(count);
      if (anyNone) masks.push_back(mask);
    }
    if (!sizes.empty()) attrs["_tensor_list_sizes"] = sizes;
    if (!masks.empty()) attrs["_tensor_list_none_masks"] = masks;
    for (std::size_t i = 0; i < specs.size() && i < positional.size(); ++i) {
      const auto& a = *positional[i];
      if (!a.values.empty()) continue;  // a node, or a list holding one
      const auto kind = a.arg.begin().key();
      if (kind == "as_none" && specs[i].isTensor) continue;
      if (kind == "as_optional_tensor" && a.arg.at(kind).begin().key() == "as_none" && specs[i].isTensor) continue;
      attrs[specs[i].name] = pythonValue(a);
    }
    return attrs;
  }

  /// The argument as Python holds it, then as `json.dumps(default=str)` writes it.
  Json pythonValue(const NodeArgument& a) {
    const auto kind = a.arg.begin().key();
    const auto& b = a.arg.at(kind);
    if (kind == "as_none") return nullptr;
    if (kind == "as_int" || kind == "as_bool" || kind == "as_string" || kind == "as_ints" || kind == "as_bools" ||
        kind == "as_strings")
      return Json::parse(b.dump());
    if (kind == "as_float") return serializedFloat(b);
    if (kind == "as_floats") {
      Json out = Json::array();
      for (const auto& f : b) out.push_back(serializedFloat(f));
      return out;
    }
    if (kind == "as_scalar_type") return dtypePythonName(dtypeFromSerialized(b.get<int>()).value_or(DType::Unknown));
    if (kind == "as_device") {
      std::string s = b.at("type").get<std::string>();
      if (b.contains("index") && b.at("index").is_number_integer()) s += ":" + b.at("index").dump();
      return s;
    }
    if (kind == "as_layout") return b.get<int>() == 7 || b.get<int>() == 0 ? "torch.strided" : "torch.sparse_coo";
    if (kind == "as_memory_format") {
      static const char* names[] = {"torch.contiguous_format", "torch.contiguous_format", "torch.channels_last",
                                    "torch.channels_last_3d", "torch.preserve_format"};
      const int i = b.get<int>();
      return i >= 0 && i <= 4 ? names[i] : "torch.contiguous_format";
    }
    if (kind == "as_sym_int" || kind == "as_sym_float" || kind == "as_sym_bool") {
      const auto k = b.begin().key();
      return k == "as_name" ? Json(b.at(k)) : Json::parse(b.at(k).dump());
    }
    if (kind == "as_sym_ints") {
      Json out = Json::array();
      for (const auto& s : b) out.push_back(Json::parse(s.begin().value().dump()));
      return out;
    }
    if (kind == "as_tensor") return m_p.node(m_holder.at(a.values.front())).name;  // str(Node)
    if (kind == "as_tensors") {  // a list of Nodes, each str()
      Json out = Json::array();
      for (ValueId v : a.values) out.push_back(m_p.node(m_holder.at(v)).name);
      return out;
    }
    return Json::parse(b.dump());
  }


  const Program& m_p;
  const SchemaLookup& m_schemas;
  std::vector<std::string> m_metaNames;
  std::map<ValueId, NodeId> m_holder;
};

}  // namespace

nlohmann::ordered_json toIrJson(const Program& program, const std::string& pytorchVersion,
                                const SchemaLookup& schemas) {
  return IrBuilder(program, schemas).build(pytorchVersion);
}

}  // namespace torchir
