#include "IrReader.h"

#include <unordered_map>

#include "ArgumentJson.h"
#include "DeferredRelease.h"
#include "LenientJson.h"
#include "program/LoadError.h"
#include "MappedFile.h"
#include "Safetensors.h"
#include "TensorJson.h"

namespace torchir {
namespace {

using Json = nlohmann::ordered_json;

class IrBuilder {
 public:
  IrBuilder(const std::string& path, Program& p) : m_path(path), m_p(p) {}

  void read(const Json& ir) {
    for (const char* key : {"graph_inputs", "graph_outputs", "weights", "nodes"})
      if (!ir.contains(key)) fail(std::string("not a pytorch-ir IR: required key '") + key + "' is missing");
    m_p.source.modelName = ir.value("model_name", "");
    m_p.source.torchVersion = ir.value("pytorch_version", "");
    const Json mapping = ir.value("weight_name_mapping", Json::object());
    std::unordered_map<std::string, const Json*> weightMeta;
    for (const auto& w : ir.at("weights")) weightMeta[w.at("name").get<std::string>()] = &w;
    const Json constants = ir.value("constants", Json::object());

    // Weight placeholders in the order export lists them, then the user inputs.
    for (const auto& [placeholder, key] : mapping.items()) {
      const auto it = weightMeta.find(key.get<std::string>());
      if (it == weightMeta.end()) fail("weight_name_mapping names '" + key.get<std::string>() + "', which is not in weights");
      InputSpec spec;
      spec.kind = constants.contains(key.get<std::string>()) || placeholder.rfind("c_", 0) == 0 ? InputKind::TensorConstant
                  : placeholder.rfind("b_", 0) == 0                                              ? InputKind::Buffer
                                                                                                 : InputKind::Parameter;
      spec.target = key.get<std::string>();
      spec.value = placeholderFor(placeholder, *it->second);
      m_p.inputs.push_back(spec);
    }
    for (const auto& in : ir.at("graph_inputs")) {
      InputSpec spec;
      spec.value = placeholderFor(in.at("name").get<std::string>(), in);
      m_p.inputs.push_back(spec);
    }
    for (const auto& n : ir.at("nodes")) readNode(n);
    readOutputs(ir.at("graph_outputs"));
    if (const auto problem = m_p.sizeProblem(); !problem.empty()) fail(problem);
    for (const auto& [name, c] : constants.items()) {
      const auto dtype = dtypeFromName(c.at("dtype").get<std::string>());
      if (!dtype) fail("constant '" + name + "' has unknown dtype");
      try {
        m_p.weights[name] = tensorFromNestedList(c.at("data"), *dtype);
      } catch (const std::runtime_error& e) {
        fail("constant '" + name + "': " + e.what());
      }
    }
  }

 private:
  [[noreturn]] void fail(const std::string& what) { throw LoadError(m_path, what); }

  Value metaValue(const Json& meta) {
    Value v;
    v.name = meta.at("name").get<std::string>();
    const auto dtype = dtypeFromName(meta.at("dtype").get<std::string>());
    if (!dtype) fail("tensor '" + v.name + "' has unknown dtype '" + meta.at("dtype").get<std::string>() + "'");
    v.dtype = *dtype;
    for (const auto& d : meta.at("shape")) {
      const auto size = exactInt64(d);
      if (!size || *size < 0) fail("tensor '" + v.name + "' has a malformed shape");
      v.shape.push_back(Dim{*size, {}});
    }
    return v;
  }

  ValueId addValue(Value v, NodeId producer, int index) {
    v.id = static_cast<ValueId>(m_p.values.size());
    v.producer = producer;
    v.outputIndex = index;
    m_p.values.push_back(std::move(v));
    return m_p.values.back().id;
  }

  NodeId addNode(Opcode op, const std::string& name, const std::string& target) {
    Node n;
    n.id = static_cast<NodeId>(m_p.nodes.size());
    n.opcode = op;
    n.name = name;
    n.target = target;
    m_p.nodes.push_back(std::move(n));
    m_nodeByName[name] = m_p.nodes.back().id;
    return m_p.nodes.back().id;
  }

  ValueId placeholderFor(const std::string& name, const Json& meta) {
    const NodeId node = addNode(Opcode::Placeholder, name, name);
    Value v = metaValue(meta);
    v.name = name;
    const ValueId id = addValue(std::move(v), node, 0);
    m_p.nodes[node].outputs.push_back(id);
    m_placeholders[name] = id;
    return id;
  }

  /// An input resolves by (producer, index) when it names a producer, else as a weight/input by
  /// name: never by name alone when a producer is given, since node names can repeat.
  ValueId resolveInput(const Json& in, const std::string& nodeName) {
    const std::string name = in.at("name").get<std::string>();
    if (in.contains("producer_node") && !in.at("producer_node").is_null()) {
      const std::string producer = in.at("producer_node").get<std::string>();
      const auto index = in.contains("producer_output_idx") ? exactInt64(in.at("producer_output_idx")) : int64_t{0};
      if (!index) fail("node '" + nodeName + "' has a producer_output_idx that is not an integer");
      const auto it = m_nodeByName.find(producer);
      if (it == m_nodeByName.end())
        fail("node '" + nodeName + "' takes '" + name + "' from producer '" + producer + "', which does not exist");
      const auto& outs = m_p.nodes[it->second].outputs;
      if (*index < 0 || static_cast<uint64_t>(*index) >= outs.size())
        fail("node '" + nodeName + "' takes output " + std::to_string(*index) + " of '" + producer + "', which has " +
             std::to_string(outs.size()));
      return outs[static_cast<std::size_t>(*index)];
    }
    const auto it = m_placeholders.find(name);
    if (it == m_placeholders.end())
      fail("node '" + nodeName + "' takes '" + name + "', which is neither a weight nor a graph input");
    return it->second;
  }

  void readNode(const Json& n) {
    const std::string name = n.at("name").get<std::string>();
    const NodeId id = addNode(Opcode::CallFunction, name, n.at("op_type").get<std::string>());
    for (const auto& in : n.at("inputs")) {
      NodeArgument a;
      const ValueId v = resolveInput(in, name);
      a.arg = arg::Tensor{{v, in.at("name").get<std::string>()}};
      a.values.push_back(v);
      m_p.values[static_cast<std::size_t>(a.values.back())].users.push_back(id);
      m_p.nodes[id].inputs.push_back(std::move(a));
    }
    const Json attrs = n.value("attrs", Json::object());
    for (const auto& [key, value] : attrs.items()) {
      NodeArgument a;
      a.name = key;
      a.keyword = true;
      a.arg = arg::Attribute{literalFromJson(value)};
      m_p.nodes[id].inputs.push_back(std::move(a));
    }
    int index = 0;
    for (const auto& out : n.at("outputs")) {
      const ValueId v = addValue(metaValue(out), id, index++);
      m_p.nodes[id].outputs.push_back(v);
      m_lastByName[m_p.values[static_cast<std::size_t>(v)].name] = v;
    }
  }

  void readOutputs(const Json& outs) {
    const NodeId out = addNode(Opcode::Output, "output", "output");
    m_p.nodes[out].returnsTuple = true;
    for (const auto& o : outs) {
      const std::string name = o.at("name").get<std::string>();
      auto it = m_lastByName.find(name);
      ValueId v = kNone;
      if (it != m_lastByName.end()) v = it->second;
      else if (auto p = m_placeholders.find(name); p != m_placeholders.end()) v = p->second;
      else fail("graph output '" + name + "' is produced by no node");
      OutputSpec spec;
      spec.value = v;
      m_p.outputs.push_back(spec);
      NodeArgument a;
      a.arg = arg::Tensor{{v, name}};
      a.values.push_back(v);
      m_p.values[static_cast<std::size_t>(v)].users.push_back(out);
      m_p.nodes[out].inputs.push_back(std::move(a));
    }
  }

  std::string m_path;
  Program& m_p;
  std::unordered_map<std::string, NodeId> m_nodeByName;
  std::unordered_map<std::string, ValueId> m_placeholders;
  std::unordered_map<std::string, ValueId> m_lastByName;
};

}  // namespace

Program readIrJson(const std::string& path) {
  const auto file = MappedFile::open(path);  // a regular file only: a FIFO would block
  file->advise(MappedFile::Access::Sequential);  // parsed from start to end once
  Json ir = parseFileOrderedJson(std::string_view(reinterpret_cast<const char*>(file->data()), file->size()), path, "the IR");
  if (!ir.is_object()) throw LoadError(path, "not a pytorch-ir IR: the top level is not an object");
  Program p;
  p.source.path = path;
  p.source.format = "ir-json";
  p.source.layout = "pytorch-ir IR JSON";
  try {
    IrBuilder(path, p).read(ir);
  } catch (const nlohmann::json::exception& e) {
    std::string what = e.what();
    throw LoadError(path, "not a pytorch-ir IR: " + what.substr(what.find(']') + 2));
  }
  // Every weight starts without data; files supply it.
  for (const auto& spec : p.inputs) {
    if (spec.kind == InputKind::UserInput || p.weights.count(spec.target)) continue;
    const Value& v = p.value(spec.value);
    TensorData t;
    t.dtype = v.dtype;
    for (const auto& d : v.shape) t.sizes.push_back(d.hint);
    t.strides = TensorData::contiguousStrides(t.sizes);
    p.weights[spec.target] = t;
  }
  releaseLater(std::make_shared<Json>(std::move(ir)));  // freed after the program is handed over, as the .pt2 reader does
  return p;
}

}  // namespace torchir
