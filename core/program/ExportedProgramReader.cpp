#include "ExportedProgramReader.h"

#include <cctype>
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

/// The name FX gives a node created without one (Graph._target_to_str, then Namespace.create_name):
/// an op overload's `__name__` ("topk.default"), snake-cased, with illegal characters as `_`:
/// "topk_default", "max_dim"; a higher-order op's name ("cond") as it is. Archives of torch 2.7
/// and 2.8 name no multi-output node, so torch.export.load shows these names.
std::string fxDefaultName(const std::string& target) {
  const auto first = target.find('.');
  const std::string op = first != std::string::npos && target.find('.', first + 1) != std::string::npos
                             ? target.substr(first + 1)
                             : target;
  std::string name;
  bool illegalRun = false;
  for (std::size_t i = 0; i < op.size(); ++i) {
    const char c = op[i];
    const bool legal = std::isalnum(static_cast<unsigned char>(c)) || c == '_';
    if (!legal) {
      if (!illegalRun) name += '_';
      illegalRun = true;
      continue;
    }
    illegalRun = false;
    if (std::isupper(static_cast<unsigned char>(c)) && i > 0 && std::islower(static_cast<unsigned char>(op[i - 1]))) name += '_';
    name += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  }
  if (name.empty()) return "_unnamed";
  if (std::isdigit(static_cast<unsigned char>(name[0]))) name.insert(0, "_");
  return name;
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

  // Reading an argument union (schema.py's Argument) into its typed form. Each returns false when
  // the JSON does not have the shape torch's schema gives the kind; names must be values read before.
  bool readName(const json& b, TensorRef& out) {
    if (!b.is_object() || !b.contains("name") || !b.at("name").is_string()) return false;
    out.name = b.at("name").get<std::string>();
    out.value = lookup(out.name);
    return true;
  }
  bool readOptionalTensor(const json& u, std::optional<TensorRef>& out) {
    if (!u.is_object() || u.size() != 1) return false;
    const std::string& k = u.begin().key();
    if (k == "as_none") return out.reset(), true;
    TensorRef t;
    if (k != "as_tensor" || !readName(u.begin().value(), t)) return false;
    out = std::move(t);
    return true;
  }
  static bool readInt(const json& j, int64_t& out) {
    const auto v = exactInt64(j);
    if (v) out = *v;
    return v.has_value();
  }
  static bool readCode(const json& j, int& out) {
    const auto v = exactInt64(j);
    if (!v || *v < INT32_MIN || *v > INT32_MAX) return false;
    out = static_cast<int>(*v);
    return true;
  }
  static bool readFloat(const json& j, double& out) {
    if (!j.is_number() && !(j.is_string() && (j == "Infinity" || j == "-Infinity" || j == "NaN"))) return false;
    out = serializedFloat(j);
    return true;
  }
  static bool readBool(const json& j, bool& out) {
    if (!j.is_boolean()) return false;
    out = j.get<bool>();
    return true;
  }
  static bool readString(const json& j, std::string& out) {
    if (!j.is_string()) return false;
    out = j.get<std::string>();
    return true;
  }
  template <class T, class Read>
  static bool readList(const json& j, std::vector<T>& out, Read read) {
    if (!j.is_array()) return false;
    out.resize(j.size());
    for (std::size_t i = 0; i < j.size(); ++i)
      if (!read(j[i], out[i])) return false;
    return true;
  }
  /// `{"as_name": "s0"}` (a value of the graph) or `{"as_int": 3}` (`constKey` and its constant).
  template <class T, class Read>
  bool readSymbol(const json& j, const char* constKey, Symbolic<T>& out, Read read) {
    if (!j.is_object() || j.size() != 1) return false;
    const std::string& k = j.begin().key();
    const json& b = j.begin().value();
    if (k == "as_name" && b.is_string()) return out.value = lookup(b.get<std::string>()), true;
    return k == constKey && read(b, out.constant);
  }
  bool readSymInt(const json& j, Symbolic<int64_t>& out) { return readSymbol(j, "as_int", out, readInt); }
  bool readSymFloat(const json& j, Symbolic<double>& out) { return readSymbol(j, "as_float", out, readFloat); }
  bool readSymBool(const json& j, Symbolic<bool>& out) { return readSymbol(j, "as_bool", out, readBool); }

  /// The typed argument, or nullopt when the union is malformed. Kinds this reader does not know
  /// are kept as their JSON, shown as they are.
  std::optional<Argument> readArgument(const json& a) {
    if (!a.is_object() || a.size() != 1) return std::nullopt;
    const std::string& k = a.begin().key();
    const json& b = a.begin().value();
    auto member = [this](auto method) { return [this, method](const json& j, auto& out) { return (this->*method)(j, out); }; };
    bool ok = false;
    Argument out;
    auto as = [&](auto value, auto read) {
      ok = read(b, value);
      out = std::move(value);
    };
    if (k == "as_none") return Argument(arg::None{});
    if (k == "as_tensor") {
      arg::Tensor t;
      ok = readName(b, t.tensor);
      out = std::move(t);
    } else if (k == "as_tensors") {
      arg::Tensors t;
      ok = readList(b, t.tensors, member(&Builder::readName));
      out = std::move(t);
    } else if (k == "as_optional_tensor") {
      arg::OptionalTensor t;
      ok = readOptionalTensor(b, t.tensor);
      out = std::move(t);
    } else if (k == "as_optional_tensors") {
      arg::OptionalTensors t;
      ok = readList(b, t.tensors, member(&Builder::readOptionalTensor));
      out = std::move(t);
    } else if (k == "as_int") as(arg::Int{}, [](const json& j, arg::Int& v) { return readInt(j, v.value); });
    else if (k == "as_ints") as(arg::Ints{}, [](const json& j, arg::Ints& v) { return readList(j, v.values, readInt); });
    else if (k == "as_int_lists")
      as(arg::IntLists{}, [](const json& j, arg::IntLists& v) {
        return readList(j, v.values, [](const json& l, std::vector<int64_t>& out) { return readList(l, out, readInt); });
      });
    else if (k == "as_float") as(arg::Float{}, [](const json& j, arg::Float& v) { return readFloat(j, v.value); });
    else if (k == "as_floats") as(arg::Floats{}, [](const json& j, arg::Floats& v) { return readList(j, v.values, readFloat); });
    else if (k == "as_bool") as(arg::Bool{}, [](const json& j, arg::Bool& v) { return readBool(j, v.value); });
    else if (k == "as_bools") {
      arg::Bools v;
      if (b.is_array()) {
        ok = true;
        for (const auto& x : b) {
          ok &= x.is_boolean();
          v.values.push_back(ok && x.get<bool>());
        }
      }
      out = std::move(v);
    } else if (k == "as_string") as(arg::String{}, [](const json& j, arg::String& v) { return readString(j, v.value); });
    else if (k == "as_strings") as(arg::Strings{}, [](const json& j, arg::Strings& v) { return readList(j, v.values, readString); });
    else if (k == "as_operator") as(arg::Operator{}, [](const json& j, arg::Operator& v) { return readString(j, v.name); });
    else if (k == "as_sym_int") {
      arg::SymInt v;
      ok = readSymInt(b, v.sym);
      out = std::move(v);
    } else if (k == "as_sym_ints") {
      arg::SymInts v;
      ok = readList(b, v.values, member(&Builder::readSymInt));
      out = std::move(v);
    } else if (k == "as_sym_float") {
      arg::SymFloat v;
      ok = readSymFloat(b, v.sym);
      out = std::move(v);
    } else if (k == "as_sym_floats") {
      arg::SymFloats v;
      ok = readList(b, v.values, member(&Builder::readSymFloat));
      out = std::move(v);
    } else if (k == "as_sym_bool") {
      arg::SymBool v;
      ok = readSymBool(b, v.sym);
      out = std::move(v);
    } else if (k == "as_sym_bools") {
      arg::SymBools v;
      ok = readList(b, v.values, member(&Builder::readSymBool));
      out = std::move(v);
    } else if (k == "as_scalar_type") as(arg::ScalarType{}, [](const json& j, arg::ScalarType& v) { return readCode(j, v.code); });
    else if (k == "as_layout") as(arg::Layout{}, [](const json& j, arg::Layout& v) { return readCode(j, v.code); });
    else if (k == "as_memory_format")
      as(arg::MemoryFormat{}, [](const json& j, arg::MemoryFormat& v) { return readCode(j, v.code); });
    else if (k == "as_device") {
      arg::Device d;
      ok = b.is_object() && b.contains("type") && readString(b.at("type"), d.type);
      if (ok && b.contains("index") && !b.at("index").is_null()) {
        int index = 0;
        ok = readCode(b.at("index"), index);
        d.index = index;
      }
      out = std::move(d);
    } else if (k == "as_complex") {
      arg::Complex c;
      ok = b.is_object() && b.contains("real") && b.contains("imag") && readFloat(b.at("real"), c.real) &&
           readFloat(b.at("imag"), c.imag);
      out = c;
    } else if (k == "as_graph" || k == "as_custom_obj") {
      TensorRef named;
      ok = readName(b, named);
      if (k == "as_graph") out = arg::Graph{named.value, named.name};
      else out = arg::CustomObject{named.value, named.name};
    } else if (k == "as_string_to_argument") {
      arg::StringToArgument m;
      ok = b.is_object();
      for (auto it = b.begin(); ok && it != b.end(); ++it) {
        auto v = readArgument(it.value());  // bounded: JSON nests at most kMaxJsonDepth
        ok = v.has_value();
        if (ok) m.entries.emplace_back(it.key(), std::move(*v));
      }
      out = std::move(m);
    } else {
      return Argument(arg::Unknown{k, b.dump()});
    }
    if (!ok) return std::nullopt;
    return out;
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
    if (name.empty()) name = fxDefaultName(target);
    const NodeId id = newNode(Opcode::CallFunction, name, target);
    {
      Node& node = m_p.nodes[id];
      node.inputs.reserve(sn.at("inputs").size());
    }
    for (const auto& in : sn.at("inputs")) {
      NodeArgument a;
      a.name = in.value("name", "");
      a.keyword = in.contains("kind") && exactInt64(in.at("kind")) == 2;
      // A graph argument keeps its name only: its body is the subgraph Program read above.
      auto arg = readArgument(in.at("arg"));
      if (!arg) fail("node '" + m_p.nodes[id].name + "' has a malformed argument '" + a.name + "'");
      a.arg = std::move(*arg);
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
    a.arg = arg::OutputOf{producer, index};
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
      auto arg = readArgument(outs[i]);
      if (!arg) fail("graph output " + std::to_string(i) + " is malformed");
      a.arg = std::move(*arg);
      collectValues(a.arg, a.values);
      if (a.values.empty()) s.constant = a.arg;
      else s.value = a.values.front();
      for (ValueId v : a.values) m_p.values[v].users.push_back(out);
      m_p.nodes[out].inputs.push_back(std::move(a));
      m_p.outputs.push_back(s);
    }
  }

  std::string m_file;
  Program& m_p;
  const json* m_tensorMeta = nullptr;
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
