#include "ExportedProgramReader.h"

#include <future>
#include <map>
#include <memory>
#include <optional>
#include <unordered_map>

#include "DeferredRelease.h"
#include "program/FxNames.h"
#include "LenientJson.h"
#include "program/LoadError.h"
#include "program/ModuleTree.h"
#include "program/NameIndex.h"
#include "OnDemandJson.h"
#include "SerializedArgument.h"
#include "program/SymbolExpr.h"

namespace torchir {
namespace {

namespace od = json::od;

/// Higher-order ops' graphs inside graphs: each level is a Builder on the stack.
constexpr int kMaxSubgraphDepth = 64;

/// What tensor_values records of one tensor.
struct TensorMeta {
  DType dtype = DType::Unknown;
  std::vector<Dim> shape;
  std::vector<int64_t> strides;
  std::string device = "cpu";
};

/// One entry of the signature's input_specs or output_specs.
struct InputSpecDecl {
  InputKind kind = InputKind::UserInput;
  std::string target;
  bool persistent = true;
};
struct OutputSpecDecl {
  OutputKind kind = OutputKind::UserOutput;
  std::string target;
};

/// A node's output before it becomes values: its kind and the names it gives them.
struct OutputDecl {
  enum Kind { Tensor, Tensors, SymInt, SymFloat, SymBool, None, Other } kind = Other;
  std::vector<std::string> names;
  std::string serializedKind;
};

/// Maps keyed by text, looked up by a view of it without a copy.
struct TextHash {
  using is_transparent = void;
  std::size_t operator()(std::string_view s) const { return std::hash<std::string_view>{}(s); }
};
template <class T>
using ByText = std::unordered_map<std::string, T, TextHash, std::equal_to<>>;

/// What is made from a JSON string that many nodes repeat (stack traces, module stacks): made once
/// per distinct text and shared. A text is known by its raw token, so a repeat is neither
/// unescaped nor copied; the first sight of each is read (and checked) as a string.
template <class T>
class SharedTexts {
 public:
  template <class Make>
  const std::shared_ptr<const T>& of(const json::Reader& r, od::value v, std::string_view what, Make make) {
    const std::string_view token = v.raw_json_token();
    // Nodes in a row mostly repeat one text (the ops of one module): the last is tried first,
    // which spares hashing a 400-byte stack trace and a cache miss in a table of 46k stacks.
    if (m_last && token == m_last->first) return m_last->second;
    auto it = m_made.find(token);
    if (it == m_made.end()) it = m_made.emplace(std::string(token), std::make_shared<const T>(make(r.string(v, what)))).first;
    m_last = &*it;  // the table's entries stay where they are
    return it->second;
  }

  /// Room for `texts` distinct texts, made at once: grown entry by entry, the 46k module stacks of
  /// a 100k-op program were rehashed a dozen times.
  void reserve(std::size_t texts) { m_made.reserve(texts); }

 private:
  ByText<std::shared_ptr<const T>> m_made;
  const std::pair<const std::string, std::shared_ptr<const T>>* m_last = nullptr;
};

ValueKind valueKindOf(OutputDecl::Kind k) {
  return k == OutputDecl::SymInt ? ValueKind::SymInt : k == OutputDecl::SymFloat ? ValueKind::SymFloat : ValueKind::SymBool;
}

/// Builds one graph (the program's, or a higher-order op's subgraph) from the JSON as it is read:
/// each node becomes nodes and values when its object has been read. The graph's fields are read
/// in torch's order (inputs, outputs, nodes, tensor_values); the outputs, which name values that
/// the nodes after them make, are kept as text and read last, and each value's dtype and shape
/// are filled in from tensor_values at the end.
class Builder {
 public:
  Builder(const json::Reader& r, Program& p, int depth = 0) : m_r(r), m_p(p), m_depth(depth) {}

  /// The top-level graph's nodes and values are made at the size a text of `bytes` suggests.
  Builder& sizedFor(std::size_t bytes) {
    m_textBytes = bytes;
    return *this;
  }

  /// Every object is read in one forward pass over its fields, in the file's order, dispatched by
  /// key: simdjson checks the text as it goes only on such a pass (a lookup that wraps around an
  /// object assumes the object is well formed). readExportedProgram checks the schema version
  /// first when reading fails.
  void read(od::object ep) {
    bool graphModule = false;
    std::optional<std::pair<int, int>> version;
    fields(ep, "the program", [&](std::string_view key, od::value v) {
      if (key == "graph_module") readGraphModule(v), graphModule = true;
      else if (key == "schema_version") version = schemaVersionOf(m_r, v);
      else if (key == "range_constraints") readRanges(v);
      else if (key == "torch_version" && typeOf(v) == od::json_type::string)
        m_p.source.torchVersion = m_r.string(v, "torch_version");
      else if (key == "dialect" && typeOf(v) == od::json_type::string)
        m_p.source.verifiers = {std::string(m_r.string(v, "dialect"))};
      else if (key == "verifiers" && typeOf(v) == od::json_type::array)
        each(v, "verifiers", [&](od::value d) { m_p.source.verifiers.emplace_back(m_r.string(d, "a verifier")); });
    });
    if (!version) fail("the program has no 'schema_version'");
    refuseUnsupported(m_r, version->first, version->second, m_p.source.format == "etrecord");
    if (!graphModule) fail("the program has no 'graph_module'");
    m_p.source.schemaVersion = std::to_string(version->first) + "." + std::to_string(version->second);
  }

  /// (major, minor) of the top-level object's schema_version, for a look at it alone.
  static std::pair<int, int> schemaVersion(const json::Reader& r, od::object& ep) {
    std::optional<std::pair<int, int>> version;
    json::forEachField(r, ep, [&](std::string_view key, od::value v) {
      if (key == "schema_version") version = schemaVersionOf(r, v);
      return true;
    });
    if (!version) r.fail("the program has no 'schema_version'");
    return *version;
  }

  static std::pair<int, int> schemaVersionOf(const json::Reader& r, od::value v) {
    std::optional<int> major;
    int minor = 0;
    if (!json::forEachField(r, v, [&](std::string_view key, od::value x) {
          if (key == "major") major = smallInt(r, x, "schema_version.major");
          else if (key == "minor" && !x.is_null()) minor = smallInt(r, x, "schema_version.minor");
          return true;
        }) || !major)
      r.fail("schema_version has no major version");
    return {*major, minor};
  }

  /// `executorch`: ExecuTorch's serializer, a fork of torch's at schema 5.x whose graphs this
  /// reader reads as well.
  static void refuseUnsupported(const json::Reader& r, int major, int minor, bool executorch) {
    if (major != kSupportedSchemaMajor && !(executorch && major == kExecuTorchSchemaMajor))
      r.fail("unsupported ExportedProgram schema version " + std::to_string(major) + "." + std::to_string(minor) +
             " (this build reads " + std::to_string(kSupportedSchemaMajor) + ".x)");
  }

  /// A higher-order op's `as_graph` body: every input is a user input, every output a user output.
  void readSubgraph(od::object graph) {
    m_p.source.format = "pt2";
    readGraph(graph);
    finish(nullptr, nullptr);
  }

 private:
  [[noreturn]] void fail(std::string_view what) const { m_r.fail(what); }

  od::json_type typeOf(od::value& v) const { return json::typeOf(m_r, v); }

  template <class F>
  void each(od::value v, std::string_view what, F f) {
    if (!json::forEach(m_r, v, [&](od::value x) { return f(x), true; })) fail(std::string(what) + " is not an array");
  }
  /// `f(key, value)` for each field of `v` (a value, or an object already open).
  template <class V, class F>
  void fields(V&& v, std::string_view what, F f) {
    if (!json::forEachField(m_r, v, [&](std::string_view k, od::value x) { return f(k, x), true; }))
      fail(std::string(what) + " is not an object");
  }

  static int smallInt(const json::Reader& r, od::value v, std::string_view what) {
    const auto i = json::exactInt(v);
    if (!i || *i < INT32_MIN || *i > INT32_MAX) r.fail(std::string(what) + " is not a 32-bit integer");
    return static_cast<int>(*i);
  }

  /// An integer bound; "Infinity", null or a float is unbounded.
  static std::optional<int64_t> bound(od::value v) { return json::exactInt(v); }

  void readGraphModule(od::value v) {
    bool graph = false, signature = false;
    std::vector<InputSpecDecl> inputs;
    std::vector<OutputSpecDecl> outputs;
    fields(v, "graph_module", [&](std::string_view key, od::value x) {
      if (key == "graph") readGraph(m_r.object(x, "graph_module.graph")), graph = true;
      else if (key == "signature") {
        signature = true;
        fields(x, "graph_module.signature", [&](std::string_view k, od::value specs) {
          if (k == "input_specs") each(specs, "input_specs", [&](od::value s) { inputs.push_back(inputSpec(s)); });
          else if (k == "output_specs") each(specs, "output_specs", [&](od::value s) { outputs.push_back(outputSpec(s)); });
        });
      }
    });
    if (!graph || !signature) fail("graph_module has no graph or no signature");
    finish(&inputs, &outputs);
  }

  void readRanges(od::value v) {
    fields(v, "range_constraints", [&](std::string_view symbol, od::value range) {
      SymbolRange r;
      fields(range, "a range constraint", [&](std::string_view key, od::value x) {
        if (key == "min_val") r.min = bound(x);
        else if (key == "max_val") r.max = bound(x);
      });
      m_p.symbolRanges[std::string(symbol)] = r;
    });
  }

  // ---------------------------------------------------------------- the graph

  void readGraph(od::object graph) {
    // A node of an export takes 0.5-2 KB of its JSON (its metadata, its tensor_values entry), and
    // a getitem none. Grown by doubling instead, the 170k nodes and values of a 100k-op program
    // were moved a second time and the pages of every discarded buffer touched (6.6k of its 119k
    // page faults).
    // A text of smaller nodes grows them past this as before; what is not used is never touched.
    constexpr std::size_t kJsonBytesPerNode = 512;
    m_p.nodes.reserve(m_textBytes / kJsonBytesPerNode);
    m_p.values.reserve(m_textBytes / kJsonBytesPerNode);
    m_moduleStacks.reserve(m_textBytes / kJsonBytesPerNode);
    bool inputs = false, outputs = false, nodes = false;
    std::string nodesText;  // the nodes of a file that lists them before the inputs, read after them
    fields(graph, "the graph", [&](std::string_view key, od::value v) {
      if (key == "inputs") {
        inputs = true;
        each(v, "the graph's inputs", [&](od::value in) { placeholder(in); });
      } else if (key == "outputs") {
        outputs = true;
        m_outputsText = json::rawText(m_r, v);
      } else if (key == "nodes") {
        nodes = true;
        if (inputs) {
          readNodes(v);
          startModuleTree();
        } else {
          nodesText = json::rawText(m_r, v);
        }
      } else if (key == "tensor_values") {
        fields(v, "tensor_values", [&](std::string_view name, od::value meta) {
          // torch writes tensor_values after the nodes: the value is there to take its meta
          const ValueId id = valueNamed(name);
          if (id != kNone && m_p.values[static_cast<std::size_t>(id)].kind == ValueKind::Tensor)
            apply(tensorMeta(meta), id);
          else
            m_laterMetas.emplace(std::string(name), tensorMeta(meta));
        });
      } else if ((key == "sym_int_values" || key == "sym_float_values") && typeOf(v) == od::json_type::object) {
        // only what names a symbol is kept (`{"as_expr": {"expr_str": ...}}`); a concrete value
        // (`as_int`, `as_float`) or an entry of another shape is no symbol to check, and no error
        fields(v, "the graph's symbolic values", [&](std::string_view name, od::value entry) {
          if (typeOf(entry) != od::json_type::object) return;
          fields(entry, "a symbolic value", [&](std::string_view kind, od::value body) {
            if (kind != "as_expr" || typeOf(body) != od::json_type::object) return;
            fields(body, "a symbolic expression", [&](std::string_view k, od::value x) {
              if (k == "expr_str" && typeOf(x) == od::json_type::string)
                m_symbolExprs[std::string(name)] = readableSymbolExpr(std::string(m_r.string(x, "expr_str")));
            });
          });
        });
      } else if (key == "is_single_tensor_return") {
        if (!v.is_null()) m_singleTensorReturn = m_r.boolean(v, "is_single_tensor_return");
      }
    });
    if (!inputs || !outputs || !nodes) fail("the graph has no inputs, outputs or nodes");
    if (!nodesText.empty()) {
      readNodes(ofText(nodesText, "the graph's nodes"));
      startModuleTree();
    }
    // the numbers placeholders take are the symbols their ranges constrain
    for (const Node& n : m_p.nodes) {
      if (n.opcode != Opcode::Placeholder || n.outputs.size() != 1) continue;
      const Value& v = m_p.value(n.outputs.front());
      if (v.kind != ValueKind::SymInt && v.kind != ValueKind::SymFloat) continue;
      if (const auto e = m_symbolExprs.find(v.name); e != m_symbolExprs.end()) m_p.inputSymbols[v.id] = e->second;
    }
    m_symbolExprs.clear();
  }

  /// The program's module tree, made from the stacks of the nodes read so far on another thread
  /// while the rest of the file (tensor_values: 0.1 s of a 100k-op program) is read; the nodes made
  /// after them (the output) are added in finish. A subgraph has none.
  void startModuleTree() {
    if (m_depth != 0) return;
    std::vector<const ModuleStack*> stacks;  // the stacks stay where they are: the nodes may move
    stacks.reserve(m_p.nodes.size());
    for (const Node& n : m_p.nodes) stacks.push_back(n.moduleStack.get());
    m_moduleTree = std::async(std::launch::async, [stacks = std::move(stacks)] {
      ModuleTreeBuilder tree(stacks.size() + 1);
      for (const ModuleStack* stack : stacks) tree.add(stack);
      return tree;
    });
  }

  void readNodes(od::value nodes) {
    each(nodes, "the graph's nodes", [&](od::value n) { readNode(m_r.object(n, "a node")); });
  }

  /// A value read from JSON text of its own (what was kept to be read later), valid until the
  /// next call.
  od::value ofText(const std::string& text, std::string_view what) {
    m_padded = simdjson::padded_string(text);
    od::value v;
    if (const auto e = m_parser.iterate(m_padded).get(m_doc)) m_r.fail(e, what);
    if (const auto e = m_doc.get_value().get(v)) m_r.fail(e, what);
    return v;
  }

  /// The signature (null for a subgraph: all user inputs and outputs), the output node, the
  /// values' metadata, and the checks of the whole.
  void finish(const std::vector<InputSpecDecl>* inputs, const std::vector<OutputSpecDecl>* outputs) {
    if (inputs && inputs->size() != m_placeholders.size())
      fail("signature has " + std::to_string(inputs->size()) + " input specs for " + std::to_string(m_placeholders.size()) +
           " graph inputs");
    for (std::size_t i = 0; i < m_placeholders.size(); ++i) {
      InputSpec s;
      if (inputs) s.kind = (*inputs)[i].kind, s.target = (*inputs)[i].target, s.persistent = (*inputs)[i].persistent;
      s.value = m_placeholders[i];
      if (s.kind == InputKind::ConstantInput) nameConstantInput(s);
      m_p.inputs.push_back(std::move(s));
    }
    readOutputs(outputs);
    m_hasMeta.resize(m_p.values.size(), false);
    for (const Value& v : m_p.values) {
      if (v.kind != ValueKind::Tensor || m_hasMeta[static_cast<std::size_t>(v.id)]) continue;
      auto it = m_laterMetas.find(v.name);
      if (it == m_laterMetas.end()) fail("tensor '" + v.name + "' has no entry in tensor_values");
      apply(std::move(it->second), v.id);
    }
    if (const auto problem = m_p.sizeProblem(); !problem.empty()) fail(problem);
    if (m_moduleTree.valid()) m_treeMade.emplace(m_moduleTree.get()), m_treeMade->into(m_p);
  }

  /// A constant user input (a str, an int the program was specialised on) holds no value of the
  /// graph, so its placeholder is named as torch.export.load names it: after the input spec, made
  /// unique as FX makes a node's name (two specs of one name, a name a later node takes). A name a
  /// value of the graph has already keeps arg<i>.
  void nameConstantInput(const InputSpec& s) {
    if (s.target.empty() || m_byName.find(s.target) != kNone) return;
    Value& v = m_p.values[static_cast<std::size_t>(s.value)];
    Node& n = m_p.nodes[static_cast<std::size_t>(v.producer)];
    v.name = n.name = n.target = m_names.take(s.target);
  }

  void apply(TensorMeta m, ValueId id) {
    Value& v = m_p.values[static_cast<std::size_t>(id)];
    v.dtype = m.dtype;
    v.shape = std::move(m.shape);
    v.strides = std::move(m.strides);
    v.device = std::move(m.device);
    if (m_hasMeta.size() <= static_cast<std::size_t>(id)) m_hasMeta.resize(m_p.values.size(), false);
    m_hasMeta[static_cast<std::size_t>(id)] = true;
  }

  TensorMeta tensorMeta(od::value v) {
    TensorMeta m;
    fields(v, "a tensor_values entry", [&](std::string_view key, od::value x) {
      if (key == "dtype") {
        const auto c = json::exactInt(x);
        m.dtype = c && *c >= 0 && *c <= 1000 ? dtypeFromSerialized(static_cast<int>(*c)).value_or(DType::Unknown)
                                             : DType::Unknown;
      } else if (key == "sizes") {
        each(x, "sizes", [&](od::value d) { m.shape.push_back(dim(d)); });
      } else if (key == "strides") {
        each(x, "strides", [&](od::value d) { m.strides.push_back(dim(d).hint); });
      } else if (key == "device" && typeOf(x) == od::json_type::object) {
        std::string type;
        std::optional<int64_t> index;
        fields(x, "a device", [&](std::string_view k, od::value y) {
          if (k == "type") type = m_r.string(y, "a device's type");
          else if (k == "index" && typeOf(y) == od::json_type::number) index = m_r.int64(y, "a device index");
        });
        if (type.empty()) fail("a device has no type");
        m.device = index ? type + ":" + std::to_string(*index) : type;
      }
    });
    return m;
  }

  /// A SymInt of a shape: `{"as_int": 3}`, or `{"as_expr": {"expr_str": "s0", "hint": ...}}`.
  Dim dim(od::value v) {
    Dim d;
    const bool ok = json::readUnion(m_r, v, [&](std::string_view kind, od::value body) {
      if (kind == "as_int") return d.hint = m_r.int64(body, "a size"), true;
      if (kind != "as_expr") return false;
      bool expr = false;
      fields(body, "a symbolic size", [&](std::string_view k, od::value x) {
        if (k == "expr_str") d.expr = readableSymbolExpr(std::string(m_r.string(x, "expr_str"))), expr = true;
        else if (k != "hint") return;
        if (typeOf(x) == od::json_type::number) d.hint = m_r.int64(x, "a size hint");
        else if (typeOf(x) == od::json_type::object)
          fields(x, "a size hint", [&](std::string_view h, od::value i) {
            if (h == "as_int") d.hint = m_r.int64(i, "a size hint");
          });
      });
      return expr;
    });
    if (!ok) fail("a size or stride in tensor_values is a malformed SymInt");  // v is partly read: no text of it
    return d;
  }

  /// `findable`: later nodes may name it (a constant input's placeholder holds nothing to name).
  ValueId newValue(const std::string& name, ValueKind kind, NodeId producer, int index, bool findable = true) {
    Value v;
    v.id = static_cast<ValueId>(m_p.values.size());
    v.name = name;
    v.kind = kind;
    v.producer = producer;
    v.outputIndex = index;
    m_p.values.push_back(std::move(v));
    if (!findable) m_namesRepeat = true;  // valueNamed's guess by order could find it: find by the index only
    else if (!m_byName.insert(m_p.values.back().id)) m_namesRepeat = true;
    return m_p.values.back().id;
  }

  NodeId newNode(Opcode op, const std::string& name, const std::string& target) {
    Node n;
    n.id = static_cast<NodeId>(m_p.nodes.size());
    n.opcode = op;
    n.name = m_names.take(name);
    n.target = target;
    m_p.nodes.push_back(std::move(n));
    return m_p.nodes.back().id;
  }

  /// The value a tensor_values key names (the last of that name), or kNone. torch writes them in
  /// the order the values were made: while no name repeats, the value after the last one found is
  /// tried first, which spares the index's hashing and two cache misses for each of 170k values.
  ValueId valueNamed(std::string_view name) {
    const auto next = static_cast<std::size_t>(m_nextMeta);
    const ValueId id = !m_namesRepeat && next < m_p.values.size() && m_p.values[next].name == name
                           ? static_cast<ValueId>(next)
                           : m_byName.find(name);
    if (id != kNone) m_nextMeta = id + 1;
    return id;
  }

  ValueId lookup(std::string_view name) const {
    const ValueId id = m_byName.find(name);
    if (id == kNone) fail("argument names '" + std::string(name) + "', which no earlier node produces");
    return id;
  }

  std::optional<Argument> argument(od::value v) const {
    return readSerializedArgument(m_r, v, [this](std::string_view name) { return lookup(name); });
  }

  /// One graph input, as torch.export.load makes its placeholder: named after the value it
  /// holds; a constant input (no value) as `arg<i>`.
  void placeholder(od::value in) {
    std::string name;
    ValueKind kind = ValueKind::None;
    const bool ok = json::readUnion(m_r, in, [&](std::string_view k, od::value body) {
      const char* nameKey = k == "as_sym_int" ? "as_name" : "name";
      if (k == "as_tensor" || k == "as_custom_obj" || k == "as_token" || k == "as_sym_int") {
        kind = k == "as_tensor"    ? ValueKind::Tensor
               : k == "as_token"   ? ValueKind::Token
               : k == "as_sym_int" ? ValueKind::SymInt
                                   : ValueKind::CustomObj;
        fields(body, "a graph input", [&](std::string_view key, od::value x) {
          if (key == nameKey) name = m_r.string(x, "a graph input's name");
        });
        if (name.empty()) fail("a graph input has no name");
      }
      return true;
    });
    if (!ok) fail("graph input " + std::to_string(m_placeholders.size()) + " is malformed");
    if (kind == ValueKind::None) name = "arg" + std::to_string(m_placeholders.size());
    const NodeId node = newNode(Opcode::Placeholder, name, name);
    const ValueId v = newValue(name, kind, node, 0, kind != ValueKind::None);
    m_p.nodes[node].outputs.push_back(v);
    m_placeholders.push_back(v);
  }

  InputSpecDecl inputSpec(od::value spec) {
    InputSpecDecl s;
    const bool ok = json::readUnion(m_r, spec, [&](std::string_view kind, od::value v) {
      const char* targetKey = nullptr;  // the field naming the state_dict key or constant
      if (kind == "user_input") s.kind = InputKind::UserInput;
      else if (kind == "parameter") s.kind = InputKind::Parameter, targetKey = "parameter_name";
      else if (kind == "buffer") s.kind = InputKind::Buffer, targetKey = "buffer_name";
      else if (kind == "tensor_constant") s.kind = InputKind::TensorConstant, targetKey = "tensor_constant_name";
      else if (kind == "custom_obj") s.kind = InputKind::CustomObj, targetKey = "custom_obj_name";
      else if (kind == "token") s.kind = InputKind::Token;
      else if (kind == "constant_input") s.kind = InputKind::ConstantInput, targetKey = "name";
      else fail("unknown input spec kind '" + std::string(kind) + "'");
      bool named = false;
      fields(v, "an input spec", [&](std::string_view key, od::value x) {
        if (targetKey && key == targetKey) s.target = m_r.string(x, targetKey), named = true;
        else if (key == "persistent" && s.kind == InputKind::Buffer && !x.is_null()) s.persistent = m_r.boolean(x, "persistent");
      });
      // a constant input's name came later to the format: without it, the placeholder stays arg<i>
      if (targetKey && !named && s.kind != InputKind::ConstantInput) fail(std::string("an input spec has no ") + targetKey);
      return true;
    });
    if (!ok) fail("an input spec is malformed");
    return s;
  }

  OutputSpecDecl outputSpec(od::value spec) {
    static const std::unordered_map<std::string_view, OutputKind> kinds = {
        {"user_output", OutputKind::UserOutput}, {"loss_output", OutputKind::LossOutput},
        {"buffer_mutation", OutputKind::BufferMutation}, {"gradient_to_parameter", OutputKind::GradientToParameter},
        {"gradient_to_user_input", OutputKind::GradientToUserInput},
        {"user_input_mutation", OutputKind::UserInputMutation}, {"token", OutputKind::Token},
        {"parameter_mutation", OutputKind::ParameterMutation}};
    OutputSpecDecl s;
    const bool ok = json::readUnion(m_r, spec, [&](std::string_view kind, od::value v) {
      auto it = kinds.find(kind);
      if (it == kinds.end()) fail("unknown output spec kind '" + std::string(kind) + "'");
      s.kind = it->second;
      fields(v, "an output spec", [&](std::string_view key, od::value x) {
        if (key == "buffer_name" || key == "parameter_name" || key == "user_input_name")
          s.target = std::string(m_r.string(x, std::string(key)));
      });
      return true;
    });
    if (!ok) fail("an output spec is malformed");
    return s;
  }

  // ---------------------------------------------------------------- nodes

  /// One argument of a node before the node exists: its graph arguments have become get_attr nodes.
  struct PendingArgument {
    std::string name;
    bool keyword = false;
    std::optional<Argument> arg;  // nullopt: malformed, reported once the node has its name
  };

  void readNode(od::object sn) {
    std::string_view serializedTarget;  // in the parser's buffer, which outlives this node
    std::string name;
    bool hasTarget = false, hasInputs = false, hasOutputs = false;
    std::vector<PendingArgument> inputs;
    std::vector<OutputDecl> outs;
    std::optional<bool> hopSingle;
    std::shared_ptr<const std::string> stackTrace;
    std::shared_ptr<const ModuleStack> moduleStack;
    std::optional<NodeOrigin> origin;
    std::optional<int64_t> debugHandle;
    std::optional<int64_t> deviceHandle;
    fields(sn, "a node", [&](std::string_view key, od::value v) {
      if (key == "target") serializedTarget = m_r.string(v, "a node's target"), hasTarget = true;
      else if (key == "name") {
        if (typeOf(v) != od::json_type::null) name = m_r.string(v, "a node's name");
      } else if (key == "inputs") {
        hasInputs = true;
        each(v, "a node's inputs", [&](od::value in) { inputs.push_back(pendingArgument(m_r.object(in, "a node's input"))); });
      } else if (key == "outputs") {
        hasOutputs = true;
        each(v, "a node's outputs", [&](od::value out) { outs.push_back(outputDecl(out)); });
      } else if (key == "metadata" && typeOf(v) == od::json_type::object) {
        fields(v, "metadata", [&](std::string_view k, od::value x) {
          if (typeOf(x) != od::json_type::string) return;
          if (k == "stack_trace")
            stackTrace = m_stackTraces.of(m_r, x, "stack_trace", [](std::string_view t) { return std::string(t); });
          else if (k == "nn_module_stack")
            moduleStack = m_moduleStacks.of(m_r, x, "nn_module_stack", [this](std::string_view t) { return moduleStackOf(t); });
          else if (k == "from_node")
            origin = originFromNodeText(m_r.string(x, "from_node"));
          else if (k == "custom")
            debugHandle = debugHandleFromCustomText(m_r.string(x, "custom"));
          else if (k == "debug_handle")
            deviceHandle = deviceHandleFromText(m_r.string(x, "debug_handle"));
        });
      } else if (key == "is_hop_single_tensor_return" && typeOf(v) == od::json_type::boolean) {
        hopSingle = m_r.boolean(v, "is_hop_single_tensor_return");
      }
    });
    if (!hasTarget || !hasInputs || !hasOutputs) fail("a node has no target, inputs or outputs");

    if (name.empty() && outs.size() == 1 && outs[0].kind != OutputDecl::None && outs[0].kind != OutputDecl::Tensors &&
        outs[0].kind != OutputDecl::Other)
      name = outs[0].names.front();
    const Target& shared = targetOf(serializedTarget);
    const std::string& target = shared.display;
    if (name.empty()) name = fxDefaultName(target);
    const NodeId id = newNode(Opcode::CallFunction, name, target);
    Node& node = m_p.nodes[id];
    node.inputs.reserve(inputs.size());
    for (auto& in : inputs) {
      if (!in.arg) fail("node '" + node.name + "' has a malformed argument '" + in.name + "'");
      NodeArgument a;
      a.name = std::move(in.name);
      a.keyword = in.keyword;
      a.arg = std::move(*in.arg);
      collectValues(a.arg, a.values);
      for (ValueId v : a.values) m_p.values[static_cast<std::size_t>(v)].users.push_back(id);
      node.inputs.push_back(std::move(a));
    }
    node.stackTrace = std::move(stackTrace);
    if (moduleStack && !moduleStack->empty()) node.moduleStack = std::move(moduleStack);
    if (origin || debugHandle || deviceHandle) {
      NodeOrigin o = origin ? std::move(*origin) : NodeOrigin{};
      o.debugHandle = debugHandle;
      o.deviceHandle = deviceHandle;
      node.origin = std::make_shared<const NodeOrigin>(std::move(o));
    }
    node.serializedTarget = shared.serialized;
    readNodeOutputs(outs, hopSingle, id);
  }

  /// A target as the file names it and as torch.export.load shows it, made once per distinct one.
  struct Target {
    std::shared_ptr<const std::string> serialized;
    std::string display;
  };
  const Target& targetOf(std::string_view serialized) {
    auto it = m_targets.find(serialized);
    if (it == m_targets.end()) {
      std::string key(serialized);
      Target t{std::make_shared<const std::string>(key), displayTarget(key)};
      it = m_targets.emplace(std::move(key), std::move(t)).first;
    }
    return it->second;
  }

  /// A NamedArgument: name, kind (2: keyword) and the argument. A graph argument's body is read
  /// here into a Program of its own, held by a get_attr node made before the call, as in FX.
  PendingArgument pendingArgument(od::object in) {
    PendingArgument a;
    fields(in, "a node's input", [&](std::string_view key, od::value v) {
      if (key == "name") a.name = m_r.string(v, "an argument's name");
      else if (key == "kind") a.keyword = json::exactInt(v) == 2;
      else if (key == "arg") a.arg = graphArgument(v);
    });
    return a;
  }

  /// The argument, with an `as_graph` one read into its subgraph first.
  std::optional<Argument> graphArgument(od::value v) {
    std::optional<Argument> out;
    const bool ok = json::readUnion(m_r, v, [&](std::string_view kind, od::value body) {
      if (kind != "as_graph") {
        out = readSerializedArgument(m_r, kind, body, [this](std::string_view name) { return lookup(name); });
        return out.has_value();
      }
      // The body's names are its own scope (it may reuse "x"): a Program of its own.
      auto sub = std::make_shared<Program>();
      sub->source = m_p.source;
      std::string name;
      bool graph = false;
      fields(body, "a graph argument", [&](std::string_view key, od::value x) {
        if (key == "name") name = m_r.string(x, "a graph's name");
        if (key != "graph") return;
        if (m_depth >= kMaxSubgraphDepth) fail("subgraphs nest deeper than " + std::to_string(kMaxSubgraphDepth) + " levels");
        Builder(m_r, *sub, m_depth + 1).readSubgraph(m_r.object(x, "a subgraph"));
        graph = true;
      });
      if (name.empty() || !graph) fail("a graph argument has no name or no graph");
      const NodeId g = newNode(Opcode::GetAttr, name, name);
      m_p.nodes[g].outputs.push_back(newValue(name, ValueKind::CustomObj, g, 0));
      m_p.nodes[g].subgraph = static_cast<int32_t>(m_p.subgraphs.size());
      m_p.subgraphs.push_back(Subgraph{name, std::move(sub)});
      out = Argument(arg::Graph{m_p.nodes[g].outputs.front(), name});
      return true;
    });
    if (!ok) return std::nullopt;
    return out;
  }

  OutputDecl outputDecl(od::value out) {
    OutputDecl d;
    const bool ok = json::readUnion(m_r, out, [&](std::string_view kind, od::value body) {
      d.serializedKind = kind;
      auto named = [&](od::value b, const char* key) {
        bool found = false;
        fields(b, "a node's output", [&](std::string_view k, od::value x) {
          if (k == key && !found) d.names.emplace_back(m_r.string(x, "an output's name")), found = true;
        });
        if (!found) fail("a node's output has no name");
      };
      if (kind == "as_tensor") d.kind = OutputDecl::Tensor, named(body, "name");
      else if (kind == "as_tensors") {
        d.kind = OutputDecl::Tensors;
        each(body, "a node's outputs", [&](od::value t) { named(t, "name"); });
      } else if (kind == "as_sym_int") d.kind = OutputDecl::SymInt, named(body, "as_name");
      else if (kind == "as_sym_float") d.kind = OutputDecl::SymFloat, named(body, "as_name");
      else if (kind == "as_sym_bool") d.kind = OutputDecl::SymBool, named(body, "as_name");
      else if (kind == "as_none") d.kind = OutputDecl::None;
      return true;
    });
    if (!ok) fail("a node's output is malformed");
    return d;
  }

  /// "key,path,type;key,path,type": outermost first; the root module (empty path) names the model.
  ModuleStack moduleStackOf(std::string_view s) {
    ModuleStack stack;
    std::size_t start = 0;
    while (start < s.size()) {
      auto end = s.find(';', start);
      if (end == std::string_view::npos) end = s.size();
      const std::string_view item = s.substr(start, end - start);
      const auto c1 = item.find(',');
      const auto c2 = c1 == std::string_view::npos ? c1 : item.find(',', c1 + 1);
      if (c2 != std::string_view::npos) {
        ModuleFrame f{std::string(item.substr(c1 + 1, c2 - c1 - 1)), std::string(item.substr(c2 + 1))};
        if (!f.path.empty()) stack.push_back(std::move(f));
        else if (m_p.source.modelName.empty()) m_p.source.modelName = f.type.substr(f.type.rfind('.') + 1);
      }
      start = end + 1;
    }
    return stack;
  }

  void readNodeOutputs(const std::vector<OutputDecl>& outs, std::optional<bool> hopSingle, NodeId id) {
    if (outs.empty()) return;
    if (outs.size() == 1) {
      const OutputDecl& o = outs[0];
      const bool hopTuple = hopSingle.has_value() && !*hopSingle;
      if (o.kind == OutputDecl::Tensor && !hopTuple) return addOutput(id, o.names[0], ValueKind::Tensor, 0);
      if ((o.kind == OutputDecl::SymInt || o.kind == OutputDecl::SymFloat || o.kind == OutputDecl::SymBool) && !hopTuple)
        return addOutput(id, o.names[0], valueKindOf(o.kind), 0);
      if (o.kind == OutputDecl::None) {
        m_p.nodes[id].name = m_names.take(m_p.nodes[id].name + "_unused");
        return;
      }
      if (o.kind == OutputDecl::Tensors) {
        m_p.nodes[id].returnsTuple = true;
        m_p.nodes[id].returnsList = true;
        int idx = 0;
        for (const auto& name : o.names) addGetitem(id, name, ValueKind::Tensor, idx++);
        return;
      }
    }
    m_p.nodes[id].returnsTuple = true;
    int idx = 0;
    for (const auto& o : outs) {
      if (o.kind == OutputDecl::Tensor) addGetitem(id, o.names[0], ValueKind::Tensor, idx);
      else if (o.kind == OutputDecl::SymInt || o.kind == OutputDecl::SymFloat) addGetitem(id, o.names[0], valueKindOf(o.kind), idx);
      else if (o.kind == OutputDecl::None) addGetitem(id, "as_none", ValueKind::None, idx);
      else if (o.kind == OutputDecl::Tensors) {
        // a list output: FX reaches its tensors through a getitem of a getitem
        const NodeId list = newNode(Opcode::CallFunction, "getitem", std::string(kGetItemTarget));
        m_p.nodes[list].inputs.push_back(getitemArg(id, idx));
        m_p.nodes[list].returnsTuple = true;
        int j = 0;
        for (const auto& name : o.names) addGetitem(list, name, ValueKind::Tensor, j++);
      } else {
        fail("node '" + m_p.nodes[id].name + "' has an output of unsupported kind '" + o.serializedKind + "'");
      }
      ++idx;
    }
  }

  void addOutput(NodeId id, const std::string& name, ValueKind kind, int index) {
    m_p.nodes[id].outputs.push_back(newValue(name, kind, id, index));
  }

  static NodeArgument getitemArg(NodeId producer, int index) {
    NodeArgument a;
    a.arg = arg::OutputOf{producer, index};
    return a;
  }

  /// `getitem(producer, index)`: the FX node that picks one output of a multi-output op.
  void addGetitem(NodeId producer, const std::string& name, ValueKind kind, int index) {
    const NodeId g = newNode(Opcode::CallFunction, name, std::string(kGetItemTarget));
    m_p.nodes[g].inputs.push_back(getitemArg(producer, index));
    m_p.nodes[g].stackTrace = m_p.nodes[producer].stackTrace;
    m_p.nodes[g].moduleStack = m_p.nodes[producer].moduleStack;
    // The value is produced by the op (at `index`); the getitem node only names it.
    const ValueId v = newValue(kind == ValueKind::None ? m_p.nodes[g].name : name, kind, producer, index);
    m_p.nodes[producer].outputs.push_back(v);
    m_p.nodes[g].outputs.push_back(v);
  }

  /// The output node, from the graph's outputs (read now that every value they name exists).
  void readOutputs(const std::vector<OutputSpecDecl>* specs) {
    od::value outs = ofText(m_outputsText, "the graph's outputs");
    const NodeId out = newNode(Opcode::Output, "output", "output");
    m_p.nodes[out].returnsTuple = !m_singleTensorReturn;
    std::size_t i = 0;
    each(outs, "the graph's outputs", [&](od::value o) {
      if (specs && i >= specs->size()) return void(++i);
      auto arg = argument(o);
      if (!arg) fail("graph output " + std::to_string(i) + " is malformed");
      OutputSpec s;
      if (specs) s.kind = (*specs)[i].kind, s.target = (*specs)[i].target;
      NodeArgument a;
      a.arg = std::move(*arg);
      collectValues(a.arg, a.values);
      if (a.values.empty()) s.constant = a.arg;
      else s.value = a.values.front();
      for (ValueId v : a.values) m_p.values[static_cast<std::size_t>(v)].users.push_back(out);
      m_p.nodes[out].inputs.push_back(std::move(a));
      m_p.outputs.push_back(std::move(s));
      ++i;
    });
    if (specs && specs->size() != i)
      fail("signature has " + std::to_string(specs->size()) + " output specs for " + std::to_string(i) + " graph outputs");
  }

  const json::Reader& m_r;
  Program& m_p;
  struct ValueName {
    const Program* p;
    std::string_view operator()(ValueId id) const { return p->values[static_cast<std::size_t>(id)].name; }
  };
  NameIndex<ValueName> m_byName{ValueName{&m_p}};  // the last value of each name
  bool m_namesRepeat = false;                      // two values have one name
  ValueId m_nextMeta = 0;                          // the value after the last tensor_values key found
  /// Metas of values not yet made when tensor_values was read (a file in another order).
  std::unordered_map<std::string, TensorMeta> m_laterMetas;
  std::vector<bool> m_hasMeta;  // per value
  std::vector<ValueId> m_placeholders;
  std::string m_outputsText;
  bool m_singleTensorReturn = false;
  UniqueNames m_names;
  SharedTexts<std::string> m_stackTraces;
  ByText<Target> m_targets;  // by the file's text
  SharedTexts<ModuleStack> m_moduleStacks;
  od::parser m_parser;  // for the texts read after the graph's (its outputs)
  simdjson::padded_string m_padded;
  od::document m_doc;
  // After the stacks' table: destroyed before it, it waits for the thread that reads the stacks.
  std::map<std::string, std::string> m_symbolExprs;  // sym_int_values and sym_float_values, by name
  std::future<ModuleTreeBuilder> m_moduleTree;
  std::optional<ModuleTreeBuilder> m_treeMade;  // its maps (46k paths at 100k ops) freed with the builder
  int m_depth;          // how many graphs this one is inside
  std::size_t m_textBytes = 0;
};

/// Throws the schema version's LoadError when the text is of a major version this build does not read.
void refuseOtherSchemaVersions(std::string_view text, const json::Reader& reader, bool executorch) {
  const simdjson::padded_string padded(text);
  od::parser parser;
  od::document doc;
  od::object ep;
  if (parser.iterate(padded).get(doc) || doc.get_object().get(ep)) return;
  std::pair<int, int> version;
  try {
    version = Builder::schemaVersion(reader, ep);
  } catch (const std::exception&) {
    return;  // no readable version: the first error stands
  }
  Builder::refuseUnsupported(reader, version.first, version.second, executorch);
}

}  // namespace

void readExportedProgram(std::string_view text, std::size_t readable, const std::string& file,
                         const std::string& record, Program& program) {
  const json::Reader reader(file, record);
  json::parseObject(text, readable, reader, [&](od::object ep) {
    Program attempt = program;  // a second attempt (text with bare NaN quoted) starts afresh
    auto builder = std::make_shared<Builder>(reader, attempt);
    try {
      builder->sizedFor(text.size()).read(ep);
    } catch (const LoadError&) {
      refuseOtherSchemaVersions(text, reader, program.source.format == "etrecord");  // a file of another major version says so, not what broke
      throw;
    }
    program = std::move(attempt);
    // Its tables (every name, every distinct stack: 16 ms to free at 100k ops) are freed once the
    // program is on its way where the caller defers that. Freeing them touches none of what the
    // builder refers to.
    releaseLater(std::move(builder));
  });
}

}  // namespace torchir
