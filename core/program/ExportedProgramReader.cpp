#include "ExportedProgramReader.h"

#include <unordered_map>
#include <unordered_set>

#include "LenientJson.h"
#include "LoadError.h"
#include "SymbolExpr.h"

namespace torchir {
namespace {

using nlohmann::json;

/// The single key of a serialized union (`{"as_tensor": {...}}` -> "as_tensor").
std::string unionKind(const json& u) {
  if (!u.is_object() || u.empty()) return {};
  return u.begin().key();
}

std::string displayTarget(const std::string& serialized) {
  // str() of the Python object the deserializer resolves the target to.
  static const std::string ops = "torch.ops.";
  if (serialized.rfind(ops, 0) == 0) {
    std::string t = serialized.substr(ops.size());
    if (t.rfind("higher_order.", 0) == 0) return t.substr(13);
    return t;
  }
  for (const char* module : {"_operator.", "math."})
    if (serialized.rfind(module, 0) == 0) return "<built-in function " + serialized.substr(std::string(module).size()) + ">";
  return serialized;
}

bool isName(const json& j) { return j.is_object() && j.contains("name") && j.at("name").is_string(); }
bool isInt(const json& j) { return exactInt64(j).has_value(); }
bool isSmallInt(const json& j) {
  const auto v = exactInt64(j);
  return v && *v >= INT32_MIN && *v <= INT32_MAX;
}
bool isFloat(const json& j) {
  if (j.is_number()) return true;
  return j.is_string() && (j == "Infinity" || j == "-Infinity" || j == "NaN");
}
template <class Pred>
bool allOf(const json& j, Pred pred) {
  if (!j.is_array()) return false;
  for (const auto& e : j)
    if (!pred(e)) return false;
  return true;
}
/// A union of one of `kinds` (`{"as_name": "s0"}`, `{"as_int": 3}`) whose body passes `pred`.
bool isSymbolic(const json& j, const char* value, bool (*pred)(const json&)) {
  if (!j.is_object() || j.size() != 1) return false;
  const std::string& k = j.begin().key();
  const json& b = j.begin().value();
  return (k == "as_name" && b.is_string()) || (k == value && pred(b));
}
bool isSymInt(const json& j) { return isSymbolic(j, "as_int", isInt); }
bool isSymFloat(const json& j) { return isSymbolic(j, "as_float", isFloat); }
bool isSymBool(const json& j) { return isSymbolic(j, "as_bool", [](const json& b) { return b.is_boolean(); }); }
bool isOptionalTensor(const json& j) {
  if (!j.is_object() || j.size() != 1) return false;
  const std::string& k = j.begin().key();
  return k == "as_none" || (k == "as_tensor" && isName(j.begin().value()));
}

/// Whether a serialized argument has the shape torch's schema gives its kind, checked once here
/// so that whoever reads it later (table, engine, IR writer, panels) can rely on it. Kinds this
/// reader does not know pass: they are shown as their JSON.
bool wellFormedArgument(const json& a) {
  if (!a.is_object() || a.size() != 1) return false;
  const std::string& k = a.begin().key();
  const json& b = a.begin().value();
  if (k == "as_none") return true;
  if (k == "as_tensor" || k == "as_graph" || k == "as_custom_obj") return isName(b);
  if (k == "as_tensors") return allOf(b, isName);
  if (k == "as_optional_tensor") return isOptionalTensor(b);
  if (k == "as_optional_tensors") return allOf(b, isOptionalTensor);
  if (k == "as_int") return isInt(b);
  if (k == "as_ints") return allOf(b, isInt);
  if (k == "as_int_lists") return allOf(b, [](const json& l) { return allOf(l, isInt); });
  if (k == "as_float") return isFloat(b);
  if (k == "as_floats") return allOf(b, isFloat);
  if (k == "as_bool") return b.is_boolean();
  if (k == "as_bools") return allOf(b, [](const json& x) { return x.is_boolean(); });
  if (k == "as_string" || k == "as_operator") return b.is_string();
  if (k == "as_strings") return allOf(b, [](const json& x) { return x.is_string(); });
  if (k == "as_sym_int") return isSymInt(b);
  if (k == "as_sym_ints") return allOf(b, isSymInt);
  if (k == "as_sym_float") return isSymFloat(b);
  if (k == "as_sym_floats") return allOf(b, isSymFloat);
  if (k == "as_sym_bool") return isSymBool(b);
  if (k == "as_sym_bools") return allOf(b, isSymBool);
  if (k == "as_scalar_type" || k == "as_memory_format" || k == "as_layout") return isSmallInt(b);
  if (k == "as_device")
    return b.is_object() && b.contains("type") && b.at("type").is_string() &&
           (!b.contains("index") || b.at("index").is_null() || isSmallInt(b.at("index")));
  if (k == "as_complex") return b.is_object() && b.contains("real") && isFloat(b.at("real")) && b.contains("imag") &&
                                isFloat(b.at("imag"));
  if (k == "as_string_to_argument") {
    if (!b.is_object()) return false;
    for (const auto& [key, v] : b.items())
      if (!wellFormedArgument(v)) return false;  // bounded: JSON nests at most kMaxJsonDepth
    return true;
  }
  return true;
}

class Builder {
 public:
  Builder(const std::string& file, Program& p) : m_file(file), m_p(p) {}

  void read(const json& ep) {
    const auto& version = ep.at("schema_version");
    const int major = smallInt(version.at("major"), "schema_version.major");
    const int minor = version.contains("minor") ? smallInt(version.at("minor"), "schema_version.minor") : 0;
    if (major != kSupportedSchemaMajor)
      fail("unsupported ExportedProgram schema version " + std::to_string(major) + "." +
           std::to_string(minor) + " (this build reads " + std::to_string(kSupportedSchemaMajor) +
           ".x)");
    m_p.source.schemaVersion = std::to_string(major) + "." + std::to_string(minor);
    m_p.source.torchVersion = ep.value("torch_version", "");

    const json ranges = ep.value("range_constraints", json::object());
    for (const auto& [sym, range] : ranges.items()) {
      SymbolRange r;
      r.min = readBound(range.at("min_val"));
      r.max = readBound(range.at("max_val"));
      m_p.symbolRanges[sym] = r;
    }

    const auto& gm = ep.at("graph_module");
    readGraph(gm.at("graph"), gm.at("signature"));
  }

  /// A higher-order op's `as_graph` body: every input is a user input, every output a user output.
  void readSubgraph(const json& graph) {
    json sig = {{"input_specs", json::array()}, {"output_specs", json::array()}};
    for (const auto& in : graph.at("inputs")) sig["input_specs"].push_back({{"user_input", {{"arg", in}}}});
    for (const auto& out : graph.at("outputs")) sig["output_specs"].push_back({{"user_output", {{"arg", out}}}});
    m_p.source.format = "pt2";
    readGraph(graph, sig);
  }

 private:
  [[noreturn]] void fail(const std::string& what) { throw LoadError(m_file, what); }

  void readGraph(const json& graph, const json& signature) {
    m_tensorMeta = &graph.at("tensor_values");
    m_symInts = graph.contains("sym_int_values") ? &graph.at("sym_int_values") : nullptr;
    readSignatureInputs(signature, graph.at("inputs"));
    for (const auto& n : graph.at("nodes")) readNode(n);
    readOutputs(signature, graph);
    if (const auto problem = m_p.sizeProblem(); !problem.empty()) fail(problem);
  }

  /// An integer of the file that must fit int64 exactly (a plain get<int64_t>() wraps or truncates).
  int64_t exactInt(const json& v, const char* what) {
    const auto i = exactInt64(v);
    if (!i) fail(std::string(what) + " is not a 64-bit integer");
    return *i;
  }

  int smallInt(const json& v, const char* what) {
    const auto i = exactInt64(v);
    if (!i || *i < INT32_MIN || *i > INT32_MAX) fail(std::string(what) + " is not a 32-bit integer");
    return static_cast<int>(*i);
  }

  DType dtypeOf(const json& code) {
    const auto c = exactInt64(code);
    return c && *c >= 0 && *c <= 1000 ? dtypeFromSerialized(static_cast<int>(*c)).value_or(DType::Unknown) : DType::Unknown;
  }

  static std::optional<int64_t> readBound(const json& v) {
    if (v.is_number_integer()) return v.get<int64_t>();
    return std::nullopt;  // "Infinity", "-Infinity", null or a huge float: unbounded
  }

  Dim readDim(const json& symInt) {
    const auto kind = unionKind(symInt);
    if (kind == "as_int") return Dim{exactInt(symInt.at("as_int"), "a size"), {}};
    if (kind == "as_expr") {
      const auto& e = symInt.at("as_expr");
      Dim d;
      d.expr = readableSymbolExpr(e.at("expr_str").get<std::string>());
      const auto& hint = e.value("hint", json());
      if (hint.is_object() && hint.contains("as_int")) d.hint = exactInt(hint.at("as_int"), "a size hint");
      else if (hint.is_number_integer()) d.hint = exactInt(hint, "a size hint");
      return d;
    }
    fail("malformed SymInt " + symInt.dump());
  }

  ValueId newValue(const std::string& name, ValueKind kind, NodeId producer, int index) {
    Value v;
    v.id = static_cast<ValueId>(m_p.values.size());
    v.name = name;
    v.kind = kind;
    v.producer = producer;
    v.outputIndex = index;
    if (kind == ValueKind::Tensor) {
      auto it = m_tensorMeta->find(name);
      if (it == m_tensorMeta->end()) fail("tensor '" + name + "' has no entry in tensor_values");
      const auto& meta = *it;
      v.dtype = dtypeOf(meta.at("dtype"));
      for (const auto& s : meta.at("sizes")) v.shape.push_back(readDim(s));
      for (const auto& s : meta.at("strides")) v.strides.push_back(readDim(s).hint);
      if (meta.contains("device") && meta.at("device").is_object()) {
        const auto& dev = meta.at("device");
        v.device = dev.at("type").get<std::string>();
        if (dev.contains("index") && dev.at("index").is_number_integer())
          v.device += ":" + std::to_string(exactInt(dev.at("index"), "a device index"));
      }
    }
    m_byName[name] = v.id;
    m_p.values.push_back(std::move(v));
    return m_p.values.back().id;
  }

  NodeId newNode(Opcode op, const std::string& name, const std::string& target) {
    Node n;
    n.id = static_cast<NodeId>(m_p.nodes.size());
    n.opcode = op;
    n.name = uniqueName(name);
    n.target = target;
    m_p.nodes.push_back(std::move(n));
    return m_p.nodes.back().id;
  }

  /// FX's Graph namespace: a taken name gets `_1`, `_2`, ... Each name remembers the suffix it
  /// reached (names are never released), so 30k nodes of one name cost linear time, not quadratic.
  std::string uniqueName(const std::string& name) {
    std::string candidate = name;
    if (m_nodeNames.count(candidate)) {
      std::size_t& k = m_nextSuffix[name];
      do candidate = name + "_" + std::to_string(++k);
      while (m_nodeNames.count(candidate));
    }
    m_nodeNames.insert(candidate);
    return candidate;
  }

  ValueId lookup(const std::string& name) {
    auto it = m_byName.find(name);
    if (it == m_byName.end()) fail("argument names '" + name + "', which no earlier node produces");
    return it->second;
  }

  void readSignatureInputs(const json& sig, const json& graphInputs) {
    const auto& specs = sig.at("input_specs");
    if (specs.size() != graphInputs.size()) fail("signature has " + std::to_string(specs.size()) +
                                                 " input specs for " + std::to_string(graphInputs.size()) + " graph inputs");
    for (std::size_t i = 0; i < specs.size(); ++i) {
      const auto& spec = specs[i];
      const auto kind = unionKind(spec);
      const auto& body = spec.at(kind);
      InputSpec s;
      const auto& in = graphInputs[i];
      const auto inKind = unionKind(in);
      std::string name;
      ValueKind vk = ValueKind::Tensor;
      if (inKind == "as_tensor") name = in.at("as_tensor").at("name");
      else if (inKind == "as_custom_obj") name = in.at("as_custom_obj").at("name"), vk = ValueKind::CustomObj;
      else if (inKind == "as_sym_int") name = in.at("as_sym_int").at("as_name"), vk = ValueKind::SymInt;
      else if (inKind == "as_token") name = in.at("as_token").at("name"), vk = ValueKind::Token;
      else {
        vk = ValueKind::None;  // a constant input
        name = body.contains("arg") && body.at("arg").contains("name") ? body.at("arg").at("name").get<std::string>()
                                                                      : "arg" + std::to_string(i);
      }
      if (kind == "user_input") s.kind = InputKind::UserInput;
      else if (kind == "parameter") s.kind = InputKind::Parameter, s.target = body.at("parameter_name");
      else if (kind == "buffer")
        s.kind = InputKind::Buffer, s.target = body.at("buffer_name"), s.persistent = body.value("persistent", true);
      else if (kind == "tensor_constant") s.kind = InputKind::TensorConstant, s.target = body.at("tensor_constant_name");
      else if (kind == "custom_obj") s.kind = InputKind::CustomObj, s.target = body.at("custom_obj_name");
      else if (kind == "token") s.kind = InputKind::Token;
      else if (kind == "constant_input") s.kind = InputKind::ConstantInput;
      else fail("unknown input spec kind '" + kind + "'");
      const NodeId node = newNode(Opcode::Placeholder, name, name);
      const ValueId v = newValue(name, vk, node, 0);
      m_p.nodes[node].outputs.push_back(v);
      s.value = v;
      m_p.inputs.push_back(s);
    }
  }

  /// Records the values an argument names, in order.
  void collectValues(const json& arg, std::vector<ValueId>& out) {
    const auto kind = unionKind(arg);
    const auto& body = arg.at(kind);
    if (kind == "as_tensor" || kind == "as_custom_obj") out.push_back(lookup(body.at("name")));
    else if (kind == "as_tensors")
      for (const auto& t : body) out.push_back(lookup(t.at("name")));
    else if (kind == "as_optional_tensors")
      for (const auto& t : body) {
        if (unionKind(t) == "as_tensor") out.push_back(lookup(t.at("as_tensor").at("name")));
      }
    else if (kind == "as_optional_tensor") {
      if (unionKind(body) == "as_tensor") out.push_back(lookup(body.at("as_tensor").at("name")));
    } else if (kind == "as_sym_int" || kind == "as_sym_float" || kind == "as_sym_bool") {
      if (unionKind(body) == "as_name") out.push_back(lookup(body.at("as_name")));
    } else if (kind == "as_sym_ints" || kind == "as_sym_floats" || kind == "as_sym_bools") {
      for (const auto& s : body)
        if (unionKind(s) == "as_name") out.push_back(lookup(s.at("as_name")));
    } else if (kind == "as_graph") {
      out.push_back(lookup(body.at("name")));
    } else if (kind == "as_string_to_argument") {
      for (const auto& [key, v] : body.items()) collectValues(v, out);
    }
  }

  void readNode(const json& sn) {
    const std::string serializedTarget = sn.at("target");
    const auto& outs = sn.at("outputs");
    // Graph arguments of higher-order ops become get_attr nodes before the call, as in FX.
    for (const auto& in : sn.at("inputs")) {
      if (unionKind(in.at("arg")) != "as_graph") continue;
      const auto& body = in.at("arg").at("as_graph");
      const std::string gname = body.at("name");
      const NodeId g = newNode(Opcode::GetAttr, gname, gname);
      m_p.nodes[g].outputs.push_back(newValue(gname, ValueKind::CustomObj, g, 0));
      // The body's names are its own scope (it may reuse "x"): a Program of its own.
      auto sub = std::make_shared<Program>();
      sub->source = m_p.source;
      Builder(m_file, *sub).readSubgraph(body.at("graph"));
      m_p.nodes[g].subgraph = static_cast<int32_t>(m_p.subgraphs.size());
      m_p.subgraphs.push_back(Subgraph{gname, std::move(sub)});
    }
    std::string name = sn.value("name", "");
    if (name.empty() && outs.size() == 1) {
      const auto k = unionKind(outs[0]);
      if (k == "as_tensor") name = outs[0].at("as_tensor").at("name");
      else if (k == "as_sym_int" || k == "as_sym_float" || k == "as_sym_bool") name = outs[0].at(k).value("as_name", "");
    }
    const std::string target = displayTarget(serializedTarget);
    if (name.empty()) {
      // FX names an unnamed node after its target's op name
      auto t = target.substr(target.find('.') + 1);
      name = t.substr(0, t.find('.'));
    }
    const NodeId id = newNode(Opcode::CallFunction, name, target);
    {
      Node& node = m_p.nodes[id];
      node.inputs.reserve(sn.at("inputs").size());
    }
    for (const auto& in : sn.at("inputs")) {
      NodeArgument a;
      a.name = in.value("name", "");
      a.keyword = in.contains("kind") && exactInt64(in.at("kind")) == 2;
      const json& arg = in.at("arg");
      if (!wellFormedArgument(arg))
        fail("node '" + m_p.nodes[id].name + "' has a malformed argument '" + a.name + "'");
      // A graph argument keeps its name only: its body is the subgraph Program read above, and a
      // copy here would be repeated once per level of nesting.
      a.arg = unionKind(arg) == "as_graph" ? json{{"as_graph", {{"name", arg.at("as_graph").at("name")}}}} : arg;
      collectValues(a.arg, a.values);
      for (ValueId v : a.values) m_p.values[v].users.push_back(id);
      m_p.nodes[id].inputs.push_back(std::move(a));
    }
    readMetadata(sn.value("metadata", json::object()), m_p.nodes[id]);
    readNodeOutputs(sn, id);
  }

  void readMetadata(const json& meta, Node& node) {
    if (meta.contains("stack_trace") && meta.at("stack_trace").is_string()) node.stackTrace = meta.at("stack_trace");
    if (meta.contains("nn_module_stack") && meta.at("nn_module_stack").is_string()) {
      // "key,path,type;key,path,type": outermost first; the root module has an empty path.
      const std::string s = meta.at("nn_module_stack");
      std::size_t start = 0;
      while (start < s.size()) {
        auto end = s.find(';', start);
        if (end == std::string::npos) end = s.size();
        const std::string item = s.substr(start, end - start);
        const auto c1 = item.find(',');
        const auto c2 = item.find(',', c1 + 1);
        if (c1 != std::string::npos && c2 != std::string::npos) {
          ModuleFrame f{item.substr(c1 + 1, c2 - c1 - 1), item.substr(c2 + 1)};
          if (!f.path.empty()) node.moduleStack.push_back(std::move(f));
          else if (m_p.source.modelName.empty()) m_p.source.modelName = f.type.substr(f.type.rfind('.') + 1);
        }
        start = end + 1;
      }
    }
  }

  void readNodeOutputs(const json& sn, NodeId id) {
    const auto& outs = sn.at("outputs");
    if (outs.empty()) return;
    if (outs.size() == 1) {
      const auto k = unionKind(outs[0]);
      const bool hopTuple = sn.contains("is_hop_single_tensor_return") &&
                            sn.at("is_hop_single_tensor_return").is_boolean() &&
                            !sn.at("is_hop_single_tensor_return").get<bool>();
      if (k == "as_tensor" && !hopTuple) {
        addOutput(id, outs[0].at("as_tensor").at("name"), ValueKind::Tensor, 0);
        return;
      }
      if ((k == "as_sym_int" || k == "as_sym_float" || k == "as_sym_bool") && !hopTuple) {
        const auto vk = k == "as_sym_int" ? ValueKind::SymInt : k == "as_sym_float" ? ValueKind::SymFloat : ValueKind::SymBool;
        addOutput(id, outs[0].at(k).at("as_name"), vk, 0);
        return;
      }
      if (k == "as_none") {
        m_p.nodes[id].name = uniqueName(m_p.nodes[id].name + "_unused");
        return;
      }
      if (k == "as_tensors") {
        m_p.nodes[id].returnsTuple = true;
        int idx = 0;
        for (const auto& t : outs[0].at("as_tensors")) addGetitem(id, t.at("name"), ValueKind::Tensor, idx++);
        return;
      }
    }
    m_p.nodes[id].returnsTuple = true;
    int idx = 0;
    for (const auto& o : outs) {
      const auto k = unionKind(o);
      if (k == "as_tensor") addGetitem(id, o.at("as_tensor").at("name"), ValueKind::Tensor, idx);
      else if (k == "as_sym_int" || k == "as_sym_float") addGetitem(id, o.at(k).at("as_name"),
                                                                    k == "as_sym_int" ? ValueKind::SymInt : ValueKind::SymFloat, idx);
      else if (k == "as_none") addGetitem(id, "as_none", ValueKind::None, idx);
      else if (k == "as_tensors") {
        // a list output: FX reaches its tensors through a getitem of a getitem
        const NodeId list = newNode(Opcode::CallFunction, "getitem", "<built-in function getitem>");
        m_p.nodes[list].inputs.push_back(getitemArg(id, idx));
        m_p.nodes[list].returnsTuple = true;
        int j = 0;
        for (const auto& t : o.at("as_tensors")) addGetitem(list, t.at("name"), ValueKind::Tensor, j++);
      } else fail("node '" + m_p.nodes[id].name + "' has an output of unsupported kind '" + k + "'");
      ++idx;
    }
  }

  void addOutput(NodeId id, const std::string& name, ValueKind kind, int index) {
    m_p.nodes[id].outputs.push_back(newValue(name, kind, id, index));
  }

  NodeArgument getitemArg(NodeId producer, int index) {
    NodeArgument a;
    a.name = "";
    a.arg = json{{"as_node", m_p.nodes[producer].name}, {"index", index}};
    return a;
  }

  /// `getitem(producer, index)`: the FX node that picks one output of a multi-output op.
  void addGetitem(NodeId producer, const std::string& name, ValueKind kind, int index) {
    const NodeId g = newNode(Opcode::CallFunction, name, "<built-in function getitem>");
    m_p.nodes[g].inputs.push_back(getitemArg(producer, index));
    m_p.nodes[g].stackTrace = m_p.nodes[producer].stackTrace;
    m_p.nodes[g].moduleStack = m_p.nodes[producer].moduleStack;
    // The value is produced by the op (at `index`); the getitem node only names it.
    const ValueId v = kind == ValueKind::None ? newValue(m_p.nodes[g].name, kind, producer, index)
                                              : newValue(name, kind, producer, index);
    m_p.values[v].producer = producer;
    m_p.nodes[producer].outputs.push_back(v);
    m_p.nodes[g].outputs.push_back(v);
  }

  void readOutputs(const json& sig, const json& graph) {
    const auto& specs = sig.at("output_specs");
    const auto& outs = graph.at("outputs");
    if (specs.size() != outs.size()) fail("signature has " + std::to_string(specs.size()) + " output specs for " +
                                          std::to_string(outs.size()) + " graph outputs");
    const NodeId out = newNode(Opcode::Output, "output", "output");
    m_p.nodes[out].returnsTuple = !graph.value("is_single_tensor_return", false);
    for (std::size_t i = 0; i < specs.size(); ++i) {
      const auto kind = unionKind(specs[i]);
      const auto& body = specs[i].at(kind);
      OutputSpec s;
      static const std::unordered_map<std::string, OutputKind> kinds = {
          {"user_output", OutputKind::UserOutput}, {"loss_output", OutputKind::LossOutput},
          {"buffer_mutation", OutputKind::BufferMutation}, {"gradient_to_parameter", OutputKind::GradientToParameter},
          {"gradient_to_user_input", OutputKind::GradientToUserInput},
          {"user_input_mutation", OutputKind::UserInputMutation}, {"token", OutputKind::Token},
          {"parameter_mutation", OutputKind::ParameterMutation}};
      auto it = kinds.find(kind);
      if (it == kinds.end()) fail("unknown output spec kind '" + kind + "'");
      s.kind = it->second;
      for (const char* key : {"buffer_name", "parameter_name", "user_input_name"})
        if (body.contains(key)) s.target = body.at(key);
      NodeArgument a;
      if (!wellFormedArgument(outs[i])) fail("graph output " + std::to_string(i) + " is malformed");
      a.arg = outs[i];
      collectValues(a.arg, a.values);
      if (a.values.empty()) s.constant = outs[i];
      else s.value = a.values.front();
      for (ValueId v : a.values) m_p.values[v].users.push_back(out);
      m_p.nodes[out].inputs.push_back(std::move(a));
      m_p.outputs.push_back(s);
    }
  }

  std::string m_file;
  Program& m_p;
  const json* m_tensorMeta = nullptr;
  const json* m_symInts = nullptr;
  std::unordered_map<std::string, ValueId> m_byName;
  std::unordered_set<std::string> m_nodeNames;
  std::unordered_map<std::string, std::size_t> m_nextSuffix;
};

}  // namespace

void readExportedProgram(const nlohmann::json& ep, const std::string& file, Program& program) {
  try {
    Builder(file, program).read(ep);
  } catch (const nlohmann::json::exception& e) {
    std::string what = e.what();
    throw LoadError(file, "ExportedProgram JSON is missing a required field or has a wrong type (" +
                              what.substr(what.find(']') + 2) + ")");
  }
}

}  // namespace torchir
