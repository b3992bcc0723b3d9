// The .pt2 writer: the typed program model back to torch's serialized ExportedProgram (the union
// keys torch/_export/serde/schema.py gives, as SerializedArgument reads them) in a PT2 archive.
#include "Pt2Writer.h"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <map>
#include <nlohmann/json.hpp>
#include <stdexcept>
#include <type_traits>
#include <unordered_set>

#include "program/EscapedText.h"
#include "ZipWriter.h"

namespace torchir {
namespace {

using Json = nlohmann::ordered_json;

/// The layout enum's serialized Strided; devices as the schema writes them.
constexpr int kStrided = 7;

Json intJson(int64_t v) { return Json{{"as_int", v}}; }

Json deviceJson(const std::string& device) {
  const auto colon = device.find(':');
  Json d = {{"type", device.substr(0, colon)}, {"index", nullptr}};
  if (colon != std::string::npos) d["index"] = std::stoi(device.substr(colon + 1));
  return d;
}

/// Members added to an object in order, each key once: ordered_json's `object[key]` searches
/// the members one by one, which is quadratic over the 100k values of a deep program.
class Members {
 public:
  explicit Members(Json& object) : m_members(static_cast<Json::object_t::Container&>(object.get_ref<Json::object_t&>())) {}
  void add(const std::string& key, Json value) {
    if (m_keys.insert(key).second) m_members.emplace_back(key, std::move(value));
  }

 private:
  Json::object_t::Container& m_members;
  std::unordered_set<std::string> m_keys;
};

class Writer {
 public:
  explicit Writer(const Program& p) : m_p(p) {
    for (const Node& n : p.nodes)
      if (const auto* pick = n.picks()) m_getitems[pick->producer].push_back(n.id);
  }

  /// The schema's Graph: its inputs, nodes and outputs, and the meta of every value they make.
  /// A higher-order op's graph (`subgraph`) says whether it returns one tensor or a tuple.
  Json graph(bool subgraph) {
    Json graph = {{"inputs", Json::array()}, {"outputs", Json::array()}, {"nodes", Json::array()},
                  {"tensor_values", Json::object()}, {"sym_int_values", Json::object()},
                  {"sym_bool_values", Json::object()}, {"sym_float_values", Json::object()},
                  {"custom_obj_values", Json::object()}, {"is_single_tensor_return", false}};
    Json& nodes = graph["nodes"];
    Members tensorValues(graph["tensor_values"]);
    for (const InputSpec& s : m_p.inputs) {
      const Value& v = m_p.value(s.value);
      graph["inputs"].push_back({{"as_tensor", {{"name", v.name}}}});
      tensorValues.add(v.name, tensorMeta(v, s.kind == InputKind::Parameter));
    }
    for (const Node& n : m_p.nodes) {
      if (subgraph && n.opcode == Opcode::Output) graph["is_single_tensor_return"] = !n.returnsTuple;
      if (n.opcode != Opcode::CallFunction || isGetItem(n)) continue;
      nodes.push_back(node(n));
      for (ValueId id : n.outputs)
        if (m_p.value(id).kind == ValueKind::Tensor) tensorValues.add(m_p.value(id).name, tensorMeta(m_p.value(id), false));
    }
    for (const OutputSpec& s : m_p.outputs) {
      if (s.value == kNone || m_p.value(s.value).kind != ValueKind::Tensor)
        throw std::invalid_argument("an output of the program is not a tensor");
      graph["outputs"].push_back({{"as_tensor", {{"name", m_p.value(s.value).name}}}});
    }
    return graph;
  }

  Json exportedProgram() {
    Json graph = this->graph(false);
    Json inputSpecs = Json::array(), outputSpecs = Json::array();
    Json forwardNames = Json::array();
    int userInputs = 0;
    for (const InputSpec& s : m_p.inputs) {
      const Value& v = m_p.value(s.value);
      inputSpecs.push_back(inputSpec(s, v));
      if (s.kind == InputKind::UserInput) forwardNames.push_back(v.name), ++userInputs;
    }
    for (const Json& arg : graph["outputs"]) outputSpecs.push_back({{"user_output", {{"arg", arg}}}});
    Json callSignature = {{"inputs", Json::array()}, {"outputs", Json::array()},
                          {"in_spec", inSpec(userInputs)}, {"out_spec", outSpec(m_p.outputs.size())},
                          {"forward_arg_names", forwardNames}};
    Json graphModule = {{"graph", graph},
                        {"signature", {{"input_specs", inputSpecs}, {"output_specs", outputSpecs}}},
                        {"module_call_graph", Json::array({{{"fqn", ""}, {"signature", callSignature}}})},
                        {"metadata", Json::object()}};
    return {{"graph_module", graphModule},
            {"opset_version", {{"aten", 10}}},
            {"range_constraints", Json::object()},
            {"schema_version", {{"major", kWrittenSchemaMajor}, {"minor", kWrittenSchemaMinor}}},
            {"verifiers", m_p.source.verifiers},
            {"torch_version", m_p.source.torchVersion},
            {"guards_code", Json::array()}};
  }

  /// A tensor's meta as the schema's TensorMeta: concrete sizes and strides only.
  Json tensorMeta(const Value& v, bool requiresGrad) const {
    const auto dtype = dtypeToSerialized(v.dtype);
    if (!dtype) throw std::invalid_argument("value '" + v.name + "' has no known dtype");
    Json sizes = Json::array(), strides = Json::array();
    std::vector<int64_t> dims;
    for (const Dim& d : v.shape) {
      if (d.isSymbolic()) throw std::invalid_argument("value '" + v.name + "' has a symbolic size (" + d.expr + ")");
      sizes.push_back(intJson(d.hint));
      dims.push_back(d.hint);
    }
    for (int64_t s : v.strides.size() == dims.size() ? v.strides : TensorData::contiguousStrides(dims))
      strides.push_back(intJson(s));
    return {{"dtype", *dtype}, {"sizes", sizes}, {"requires_grad", requiresGrad}, {"device", deviceJson(v.device)},
            {"strides", strides}, {"storage_offset", intJson(0)}, {"layout", kStrided}};
  }

 private:
  static Json inputSpec(const InputSpec& s, const Value& v) {
    const Json name = {{"name", v.name}};
    switch (s.kind) {
      case InputKind::UserInput: return {{"user_input", {{"arg", {{"as_tensor", name}}}}}};
      case InputKind::Parameter: return {{"parameter", {{"arg", name}, {"parameter_name", s.target}}}};
      case InputKind::Buffer:
        return {{"buffer", {{"arg", name}, {"buffer_name", s.target}, {"persistent", s.persistent}}}};
      case InputKind::TensorConstant: return {{"tensor_constant", {{"arg", name}, {"tensor_constant_name", s.target}}}};
      default: throw std::invalid_argument("input '" + v.name + "' is a " + std::string(inputKindName(s.kind)));
    }
  }

  /// pytree's spec of `(args, kwargs)` with `n` tensors in args, as torch's treespec_dumps writes it.
  static std::string inSpec(int n) {
    Json leaves = Json::array();
    for (int i = 0; i < n; ++i) leaves.push_back(leaf());
    Json args = {{"type", "builtins.tuple"}, {"context", "null"}, {"children_spec", leaves}};
    Json kwargs = {{"type", "builtins.dict"}, {"context", "[]"}, {"children_spec", Json::array()}};
    Json root = {{"type", "builtins.tuple"}, {"context", "null"}, {"children_spec", Json::array({args, kwargs})}};
    return Json::array({1, root}).dump();
  }
  /// One output is returned as it is, several as a tuple.
  static std::string outSpec(std::size_t n) {
    if (n == 1) return Json::array({1, leaf()}).dump();
    Json leaves = Json::array();
    for (std::size_t i = 0; i < n; ++i) leaves.push_back(leaf());
    return Json::array({1, {{"type", "builtins.tuple"}, {"context", "null"}, {"children_spec", leaves}}}).dump();
  }
  static Json leaf() { return {{"type", nullptr}, {"context", nullptr}, {"children_spec", Json::array()}}; }

  Json node(const Node& n) {
    m_node = &n;
    Json inputs = Json::array();
    for (const NodeArgument& a : n.inputs) inputs.push_back({{"name", a.name}, {"arg", argument(a.arg)}, {"kind", a.keyword ? 2 : 1}});
    Json metadata = Json::object();
    if (n.stackTrace) metadata["stack_trace"] = *n.stackTrace;
    if (!n.moduleFrames().empty()) {
      std::string stack;
      for (const ModuleFrame& f : n.moduleFrames()) stack += (stack.empty() ? "" : ";") + f.path + "," + f.path + "," + f.type;
      metadata["nn_module_stack"] = stack;
    }
    // the provenance a quantized program and its float twin are paired by, kept by a part's repro
    if (n.origin && n.origin->hasAncestor())
      metadata["from_node"] = Json::array({{{"name", n.origin->name}, {"target", ""}, {"graph_id", n.origin->graphId},
                                            {"pass_name", ""}, {"action", "create"}, {"from_node", Json::array()}}})
                                  .dump();
    if (n.origin && n.origin->debugHandle) metadata["custom"] = Json{{"numeric_debug_handle", *n.origin->debugHandle}}.dump();
    // a higher-order op says whether its one output is a tensor or a tuple of one
    const std::string target = n.serializedTarget ? *n.serializedTarget : "torch.ops." + n.target;
    const Json hopSingle = target.rfind("torch.ops.higher_order.", 0) == 0 ? Json(!n.returnsTuple) : Json(nullptr);
    return {{"target", target}, {"inputs", inputs}, {"outputs", outputs(n)}, {"metadata", metadata},
            {"is_hop_single_tensor_return", hopSingle}, {"name", n.name}};
  }

  Json outputs(const Node& n) {
    if (!n.returnsTuple) {
      if (n.outputs.empty()) return Json::array();  // as torch writes a node that returns None
      return Json::array({valueArgument(n.outputs.front())});
    }
    // a tuple (or list) output: its getitem nodes in index order
    const auto it = m_getitems.find(n.id);
    std::map<int, NodeId> byIndex;
    if (it != m_getitems.end())
      for (NodeId g : it->second) byIndex[m_p.node(g).picks()->index] = g;
    Json items = Json::array();
    for (int i = 0; !byIndex.empty() && i <= byIndex.rbegin()->first; ++i) {
      const auto g = byIndex.find(i);
      if (g == byIndex.end()) fail("output " + std::to_string(i) + " is not in the program");
      const Node& pick = m_p.node(g->second);
      if (pick.returnsTuple) {  // a list inside the tuple
        Json list = Json::array();
        for (const auto& inner : itemsOf(pick)) list.push_back(inner);
        items.push_back({{"as_tensors", list}});
      } else {
        items.push_back(valueArgument(pick.outputs.front()));
      }
    }
    if (n.returnsList) {
      Json list = Json::array();
      for (const auto& item : items) list.push_back(item.at("as_tensor"));
      return Json::array({{{"as_tensors", list}}});
    }
    return items;
  }
  /// The names of a list's tensors, from its getitem nodes.
  std::vector<Json> itemsOf(const Node& list) {
    std::map<int, Json> byIndex;
    for (NodeId g : m_getitems[list.id]) byIndex[m_p.node(g).picks()->index] = {{"name", m_p.value(m_p.node(g).outputs.front()).name}};
    std::vector<Json> out;
    for (auto& [i, j] : byIndex) out.push_back(j);
    return out;
  }

  Json valueArgument(ValueId id) {
    const Value& v = m_p.value(id);
    switch (v.kind) {
      case ValueKind::Tensor: return {{"as_tensor", {{"name", v.name}}}};
      case ValueKind::None: return {{"as_none", true}};
      default: fail("output '" + v.name + "' is symbolic");
    }
  }

  [[noreturn]] void fail(const std::string& what) const {
    throw std::invalid_argument("node '" + (m_node ? m_node->name : std::string()) + "': " + what);
  }

  static Json name(const TensorRef& t) { return {{"name", t.name}}; }
  /// `{"as_int": 4}`: a symbol's constant (a value of the graph is not written: repros fold them).
  template <class T>
  Json symbolic(const Symbolic<T>& s, const char* constKey) {
    if (s.isValue()) fail("an argument is symbolic ('" + m_p.value(s.value).name + "')");
    if constexpr (std::is_same_v<T, double>) return {{constKey, floatJson(s.constant)}};
    else return {{constKey, s.constant}};
  }
  template <class T, class F>
  static Json list(const std::vector<T>& items, F&& each) {
    Json out = Json::array();
    for (const auto& x : items) out.push_back(each(x));
    return out;
  }

  Json argument(const Argument& a) {
    return std::visit(
        Overloaded{
            [](const arg::None&) -> Json { return {{"as_none", true}}; },
            [](const arg::Tensor& t) -> Json { return {{"as_tensor", name(t.tensor)}}; },
            [](const arg::OptionalTensor& t) -> Json {
              if (!t.tensor) return {{"as_optional_tensor", {{"as_none", true}}}};
              return {{"as_optional_tensor", {{"as_tensor", name(*t.tensor)}}}};
            },
            [](const arg::Tensors& t) -> Json { return {{"as_tensors", list(t.tensors, name)}}; },
            [](const arg::OptionalTensors& t) -> Json {
              return {{"as_optional_tensors", list(t.tensors, [](const std::optional<TensorRef>& x) -> Json {
                         if (!x) return {{"as_none", true}};
                         return {{"as_tensor", name(*x)}};
                       })}};
            },
            [](const arg::Int& i) -> Json { return {{"as_int", i.value}}; },
            [](const arg::Ints& i) -> Json { return {{"as_ints", i.values}}; },
            [](const arg::IntLists& i) -> Json { return {{"as_int_lists", i.values}}; },
            [](const arg::Float& f) -> Json { return {{"as_float", floatJson(f.value)}}; },
            [](const arg::Floats& f) -> Json { return {{"as_floats", list(f.values, floatJson)}}; },
            [](const arg::Bool& b) -> Json { return {{"as_bool", b.value}}; },
            [](const arg::Bools& b) -> Json { return {{"as_bools", list(b.values, [](bool x) { return Json(x); })}}; },
            [](const arg::String& s) -> Json { return {{"as_string", s.value}}; },
            [](const arg::Strings& s) -> Json { return {{"as_strings", s.values}}; },
            [&](const arg::SymInt& s) -> Json { return {{"as_sym_int", symbolic(s.sym, "as_int")}}; },
            [&](const arg::SymInts& s) -> Json {
              return {{"as_sym_ints", list(s.values, [&](const Symbolic<int64_t>& x) { return symbolic(x, "as_int"); })}};
            },
            [&](const arg::SymFloat& s) -> Json { return {{"as_sym_float", symbolic(s.sym, "as_float")}}; },
            [&](const arg::SymFloats& s) -> Json {
              return {{"as_sym_floats", list(s.values, [&](const Symbolic<double>& x) { return symbolic(x, "as_float"); })}};
            },
            [&](const arg::SymBool& s) -> Json { return {{"as_sym_bool", symbolic(s.sym, "as_bool")}}; },
            [&](const arg::SymBools& s) -> Json {
              return {{"as_sym_bools", list(s.values, [&](const Symbolic<bool>& x) { return symbolic(x, "as_bool"); })}};
            },
            [](const arg::ScalarType& t) -> Json { return {{"as_scalar_type", t.code}}; },
            [](const arg::Layout& l) -> Json { return {{"as_layout", l.code}}; },
            [](const arg::MemoryFormat& m) -> Json { return {{"as_memory_format", m.code}}; },
            [](const arg::Device& d) -> Json {
              Json index = d.index ? Json(*d.index) : Json(nullptr);
              return {{"as_device", {{"type", d.type}, {"index", index}}}};
            },
            [](const arg::Complex& c) -> Json { return {{"as_complex", {{"real", c.real}, {"imag", c.imag}}}}; },
            [](const arg::Operator& o) -> Json { return {{"as_operator", o.name}}; },
            [&](const arg::Graph& g) -> Json {
              const auto sub = std::find_if(m_p.subgraphs.begin(), m_p.subgraphs.end(),
                                            [&](const Subgraph& s) { return s.name == g.name && s.graph; });
              if (sub == m_p.subgraphs.end()) fail("it takes graph '" + g.name + "', which the program has not");
              return {{"as_graph", {{"name", g.name}, {"graph", Writer(*sub->graph).graph(true)}}}};
            },
            [&](const arg::CustomObject& o) -> Json { fail("it takes a custom object ('" + o.name + "')"); },
            [&](const arg::StringToArgument& m) -> Json {
              Json out = Json::object();
              for (const auto& [key, value] : m.entries) out[key] = argument(value);
              return {{"as_string_to_argument", out}};
            },
            [&](const arg::OutputOf&) -> Json { fail("it picks another node's output"); },
            [&](const arg::Attribute&) -> Json { fail("it has an IR attribute: only .pt2 programs are written"); },
            [](const arg::Unknown& u) -> Json { return {{u.kind, Json::parse(u.text)}}; },
        },
        static_cast<const ArgumentVariant&>(a));
  }

  /// The schema writes infinities as strings and NaN as "NaN".
  static Json floatJson(double v) {
    if (std::isnan(v)) return "NaN";
    if (std::isinf(v)) return v > 0 ? "Infinity" : "-Infinity";
    return v;
  }

  const Program& m_p;
  std::map<NodeId, std::vector<NodeId>> m_getitems;  // a multi-output node's getitem nodes
  const Node* m_node = nullptr;
};

/// `data/weights` or `data/constants`: the records and their config. Records point at the
/// program's tensors and are written one at a time, so a program whose weights are mapped from a
/// file larger than memory is written without holding them.
struct TensorFolder {
  std::string prefix;  // "weight_" or "tensor_"
  Json config = Json::object();
  std::vector<std::pair<std::string, const TensorData*>> records;
};

/// One tensor's elements in row-major order: its storage's own bytes when the view is contiguous,
/// else a copy of this tensor alone.
void addTensorRecord(ZipWriter& zip, const std::string& name, const TensorData& t) {
  if (t.numel() > 0 && t.hasData() && t.isContiguous()) {  // else contiguousBytes says what is missing
    const std::size_t item = dtypeItemSize(t.dtype);
    const auto* base = reinterpret_cast<const char*>(t.storage->data) + static_cast<std::size_t>(t.storageOffset) * item;
    zip.add(name, std::string_view(base, static_cast<std::size_t>(t.numel()) * item));
    return;
  }
  const std::vector<std::byte> b = t.contiguousBytes();
  zip.add(name, std::string_view(reinterpret_cast<const char*>(b.data()), b.size()));
}

}  // namespace

void writePt2(const Program& program, const std::string& sampleInputs, const std::string& path) {
  Writer writer(program);
  // jsonText, not dump(): a name, stack trace or module path that is not UTF-8 becomes U+FFFD where
  // dump() would throw
  const std::string model = jsonText(writer.exportedProgram());
  TensorFolder weights, constants;
  weights.prefix = "weight_";
  constants.prefix = "tensor_";
  Members weightConfig(weights.config), constantConfig(constants.config);
  for (const InputSpec& s : program.inputs) {
    if (s.kind == InputKind::UserInput) continue;
    const auto it = program.weights.find(s.target);
    if (it == program.weights.end() || !it->second.hasData())
      throw std::invalid_argument("weight '" + s.target + "' has no data to write");
    const bool isWeight = s.kind == InputKind::Parameter || (s.kind == InputKind::Buffer && s.persistent);
    TensorFolder& folder = isWeight ? weights : constants;
    const std::string record = folder.prefix + std::to_string(folder.records.size());
    Value contiguous = program.value(s.value);
    contiguous.strides = TensorData::contiguousStrides(it->second.sizes);
    (isWeight ? weightConfig : constantConfig)
        .add(s.target, {{"path_name", record}, {"is_param", s.kind == InputKind::Parameter}, {"use_pickle", false},
                        {"tensor_meta", writer.tensorMeta(contiguous, s.kind == InputKind::Parameter)}});
    folder.records.emplace_back(record, &it->second);
  }
  const std::string root = std::filesystem::path(path).stem().string() + "/";
  ZipWriter zip(path);
  for (const auto& [name, data] : weights.records) addTensorRecord(zip, root + "data/weights/" + name, *data);
  zip.add(root + "data/weights/model_weights_config.json", jsonText(Json{{"config", weights.config}}));
  for (const auto& [name, data] : constants.records) addTensorRecord(zip, root + "data/constants/" + name, *data);
  zip.add(root + "data/constants/model_constants_config.json", jsonText(Json{{"config", constants.config}}));
  zip.add(root + "models/model.json", model);
  zip.add(root + "data/sample_inputs/model.pt", sampleInputs);
  zip.add(root + "archive_format", "pt2");
  zip.add(root + "archive_version", "0");
  zip.add(root + ".data/version", "6\n");
  zip.add(root + "byteorder", "little");
  zip.close();
}

}  // namespace torchir
