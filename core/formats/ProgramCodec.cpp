#include "ProgramCodec.h"

#include <cstring>
#include <unordered_map>
#include <utility>

#include "LenientJson.h"
#include "Pt2Reader.h"
#include "program/LoadError.h"

namespace torchir {
namespace {

// As deep as the JSON readers let graphs and arguments nest.
constexpr int kMaxSubgraphDepth = 64;
constexpr int kMaxNesting = kMaxJsonDepth;

/// Little-endian base-128 integers, zigzag for signed ones, doubles as their 8 bytes.
class Writer {
 public:
  void u(uint64_t v) {
    while (v >= 0x80) m_out.push_back(static_cast<char>((v & 0x7f) | 0x80)), v >>= 7;
    m_out.push_back(static_cast<char>(v));
  }
  void s(int64_t v) { u((static_cast<uint64_t>(v) << 1) ^ static_cast<uint64_t>(v >> 63)); }
  void b(bool v) { u(v ? 1 : 0); }
  void f(double v) {
    char bytes[sizeof v];
    std::memcpy(bytes, &v, sizeof v);
    m_out.append(bytes, sizeof v);
  }
  void str(std::string_view v) { u(v.size()), m_out.append(v); }
  template <class T, class F>
  void list(const std::vector<T>& items, F&& each) {
    u(items.size());
    for (const auto& x : items) each(x);
  }
  void ints(const std::vector<int64_t>& v) { list(v, [&](int64_t x) { s(x); }); }
  template <class T>
  void optionalInt(const std::optional<T>& v) {
    b(v.has_value());
    if (v) s(*v);
  }
  std::string take() { return std::move(m_out); }

 private:
  std::string m_out;
};

class Reader {
 public:
  Reader(std::string_view in, const std::string& file)
      : m_in(in), m_budget(kBudgetPerByte * in.size() + kBudgetAllowance), m_file(file) {}
  /// What the lists of an entry may take: a real entry's program is ~10 bytes per byte of it.
  static constexpr std::size_t kBudgetPerByte = 64;
  static constexpr std::size_t kBudgetAllowance = std::size_t{1} << 20;

  [[noreturn]] void fail(const std::string& problem) const {
    throw LoadError(m_file, "program cache: " + problem + " (at byte " + std::to_string(m_at) + ")");
  }
  uint64_t u() {
    uint64_t v = 0;
    for (int shift = 0; shift < 64; shift += 7) {
      if (m_at >= m_in.size()) fail("ends early");
      const auto byte = static_cast<unsigned char>(m_in[m_at++]);
      v |= static_cast<uint64_t>(byte & 0x7f) << shift;
      if (!(byte & 0x80)) return v;
    }
    fail("an integer runs past 64 bits");
  }
  int64_t s() {
    const uint64_t z = u();
    return static_cast<int64_t>((z >> 1) ^ (~(z & 1) + 1));
  }
  int32_t s32() {
    const int64_t v = s();
    if (v < INT32_MIN || v > INT32_MAX) fail("a 32-bit number is " + std::to_string(v));
    return static_cast<int32_t>(v);
  }
  bool b() {
    const uint64_t v = u();
    if (v > 1) fail("a flag is " + std::to_string(v));
    return v == 1;
  }
  /// An enum's code below `end`.
  uint8_t code(unsigned end, const char* what) {
    const uint64_t v = u();
    if (v >= end) fail(std::string("unknown ") + what + " " + std::to_string(v));
    return static_cast<uint8_t>(v);
  }
  double f() {
    double v = 0;
    if (m_in.size() - m_at < sizeof v) fail("ends early");
    std::memcpy(&v, m_in.data() + m_at, sizeof v);
    m_at += sizeof v;
    return v;
  }
  std::string str() {
    const uint64_t n = u();
    if (n > m_in.size() - m_at) fail("a text runs past the end");
    std::string v(m_in.substr(m_at, n));
    m_at += n;
    return v;
  }
  /// A count of items each at least a byte long, so no count makes us allocate past the input.
  std::size_t count() {
    const uint64_t n = u();
    if (n > m_in.size() - m_at) fail("a count of " + std::to_string(n) + " runs past the end");
    return static_cast<std::size_t>(n);
  }
  /// A list made at its size, once the memory it takes fits what is left of the budget: lists
  /// nest (literals in literals, subgraphs in graphs), so a count bounded by the bytes left could
  /// still ask for that many bytes times an element's size at every level.
  template <class T, class F>
  std::vector<T> list(F&& each) {
    const std::size_t n = count();
    const std::size_t bytes = n * sizeof(T);  // n is below the input's size: no overflow
    if (bytes > m_budget) fail("lists ask for more memory than an entry of " + std::to_string(m_in.size()) + " bytes may");
    m_budget -= bytes;
    std::vector<T> items(n);
    for (auto& x : items) each(x);
    return items;
  }
  std::vector<int64_t> ints() {
    return list<int64_t>([&](int64_t& x) { x = s(); });
  }
  template <class T>
  std::optional<T> optionalInt() {
    if (!b()) return std::nullopt;
    return static_cast<T>(s());
  }
  bool atEnd() const { return m_at == m_in.size(); }

 private:
  std::string_view m_in;
  std::size_t m_at = 0;
  std::size_t m_budget;
  const std::string& m_file;
};

/// Texts and module stacks that nodes share by pointer (one per distinct stack trace, not one
/// per node): written once, each node naming its entry (0 for none).
template <class T>
class SharedTable {
 public:
  uint64_t index(const std::shared_ptr<const T>& p) {
    if (!p) return 0;
    auto [it, added] = m_index.try_emplace(p.get(), m_items.size() + 1);
    if (added) m_items.push_back(p.get());
    return it->second;
  }
  const std::vector<const T*>& items() const { return m_items; }

 private:
  std::unordered_map<const T*, uint64_t> m_index;
  std::vector<const T*> m_items;
};

template <class T>
std::shared_ptr<const T> entry(Reader& r, const std::vector<std::shared_ptr<const T>>& table, const char* what) {
  const uint64_t i = r.u();
  if (i > table.size()) r.fail(std::string(what) + " " + std::to_string(i) + " is not in its table");
  return i == 0 ? nullptr : table[i - 1];
}

bool knownDType(int code) {
  return code == -1 || (code >= 0 && code <= 11) || (code >= 23 && code <= 27) || code == 15;
}

// ---------------------------------------------------------------- writing

void writeLiteral(Writer& w, const Literal& l) {
  w.u(l.value.index());
  std::visit(Overloaded{[](std::monostate) {}, [&](bool v) { w.b(v); }, [&](int64_t v) { w.s(v); },
                        [&](double v) { w.f(v); }, [&](const std::string& v) { w.str(v); },
                        [&](const Literal::List& v) { w.list(v, [&](const Literal& x) { writeLiteral(w, x); }); },
                        [&](const Literal::Dict& v) {
                          w.list(v.keys, [&](const std::string& k) { w.str(k); });
                          w.list(v.values, [&](const Literal& x) { writeLiteral(w, x); });
                        }},
             l.value);
}

void writeRef(Writer& w, const TensorRef& t) { w.s(t.value), w.str(t.name); }
template <class T>
void writeSymbolic(Writer& w, const Symbolic<T>& v) {
  w.s(v.value);
  if constexpr (std::is_same_v<T, double>) w.f(v.constant);
  else w.s(static_cast<int64_t>(v.constant));
}

void writeArgument(Writer& w, const Argument& a) {
  w.u(a.index());
  std::visit(
      Overloaded{
          [](const arg::None&) {}, [&](const arg::Tensor& v) { writeRef(w, v.tensor); },
          [&](const arg::OptionalTensor& v) {
            w.b(v.tensor.has_value());
            if (v.tensor) writeRef(w, *v.tensor);
          },
          [&](const arg::Tensors& v) { w.list(v.tensors, [&](const TensorRef& t) { writeRef(w, t); }); },
          [&](const arg::OptionalTensors& v) {
            w.list(v.tensors, [&](const std::optional<TensorRef>& t) {
              w.b(t.has_value());
              if (t) writeRef(w, *t);
            });
          },
          [&](const arg::Int& v) { w.s(v.value); }, [&](const arg::Ints& v) { w.ints(v.values); },
          [&](const arg::IntLists& v) { w.list(v.values, [&](const std::vector<int64_t>& x) { w.ints(x); }); },
          [&](const arg::Float& v) { w.f(v.value); },
          [&](const arg::Floats& v) { w.list(v.values, [&](double x) { w.f(x); }); },
          [&](const arg::Bool& v) { w.b(v.value); },
          [&](const arg::Bools& v) { w.list(v.values, [&](bool x) { w.b(x); }); },
          [&](const arg::String& v) { w.str(v.value); },
          [&](const arg::Strings& v) { w.list(v.values, [&](const std::string& x) { w.str(x); }); },
          [&](const arg::SymInt& v) { writeSymbolic(w, v.sym); },
          [&](const arg::SymInts& v) { w.list(v.values, [&](const Symbolic<int64_t>& x) { writeSymbolic(w, x); }); },
          [&](const arg::SymFloat& v) { writeSymbolic(w, v.sym); },
          [&](const arg::SymFloats& v) { w.list(v.values, [&](const Symbolic<double>& x) { writeSymbolic(w, x); }); },
          [&](const arg::SymBool& v) { writeSymbolic(w, v.sym); },
          [&](const arg::SymBools& v) { w.list(v.values, [&](const Symbolic<bool>& x) { writeSymbolic(w, x); }); },
          [&](const arg::ScalarType& v) { w.s(v.code); }, [&](const arg::Layout& v) { w.s(v.code); },
          [&](const arg::MemoryFormat& v) { w.s(v.code); },
          [&](const arg::Device& v) { w.str(v.type), w.optionalInt(v.index); },
          [&](const arg::Complex& v) { w.f(v.real), w.f(v.imag); }, [&](const arg::Operator& v) { w.str(v.name); },
          [&](const arg::Graph& v) { w.s(v.value), w.str(v.name); },
          [&](const arg::CustomObject& v) { w.s(v.value), w.str(v.name); },
          [&](const arg::StringToArgument& v) {
            w.list(v.entries, [&](const std::pair<std::string, Argument>& e) { w.str(e.first), writeArgument(w, e.second); });
          },
          [&](const arg::OutputOf& v) { w.s(v.producer), w.s(v.index); },
          [&](const arg::Attribute& v) { writeLiteral(w, v.value); },
          [&](const arg::Unknown& v) { w.str(v.kind), w.str(v.text); }},
      static_cast<const ArgumentVariant&>(a));
}

void writeOrigin(Writer& w, const NodeOrigin* o) {
  w.b(o != nullptr);
  if (!o) return;
  w.str(o->name), w.s(o->graphId), w.optionalInt(o->debugHandle), w.optionalInt(o->deviceHandle);
}

bool writeGraph(Writer& w, const Program& p, bool outermost) {
  // The outermost program's weights and samples are read from the archive; a subgraph has none.
  if (!outermost && (!p.weights.empty() || !p.sampleInputs.empty())) return false;
  const SourceInfo& src = p.source;
  // The outermost's path and layout are the file's it is read from, not the one first cached.
  w.str(outermost ? "" : src.path), w.str(src.format), w.str(outermost ? "" : src.layout);
  w.str(src.torchVersion), w.str(src.schemaVersion);
  w.list(src.verifiers, [&](const std::string& v) { w.str(v); });
  // A name that readPt2 took from the file's name is taken from the next file's, not this one's.
  w.str(outermost && src.modelName == modelNameOfPath(src.path) ? "" : src.modelName);

  SharedTable<std::string> stackTraces, targets;
  SharedTable<ModuleStack> moduleStacks;
  std::vector<uint64_t> refs;  // per node: its stack trace, module stack and serialized target
  refs.reserve(p.nodes.size() * 3);
  for (const Node& n : p.nodes)
    refs.push_back(stackTraces.index(n.stackTrace)), refs.push_back(moduleStacks.index(n.moduleStack)),
        refs.push_back(targets.index(n.serializedTarget));
  w.list(stackTraces.items(), [&](const std::string* t) { w.str(*t); });
  w.list(targets.items(), [&](const std::string* t) { w.str(*t); });
  w.list(moduleStacks.items(), [&](const ModuleStack* s) {
    w.list(*s, [&](const ModuleFrame& f) { w.str(f.path), w.str(f.type); });
  });

  w.list(p.values, [&](const Value& v) {
    w.str(v.name), w.u(static_cast<uint8_t>(v.kind)), w.s(static_cast<int>(v.dtype));
    w.list(v.shape, [&](const Dim& d) { w.s(d.hint), w.str(d.expr); });
    w.ints(v.strides), w.str(v.device), w.s(v.producer), w.s(v.outputIndex);
  });
  std::size_t at = 0;
  w.list(p.nodes, [&](const Node& n) {
    w.u(static_cast<uint8_t>(n.opcode)), w.str(n.name), w.str(n.target);
    w.u(refs[at++]), w.u(refs[at++]), w.u(refs[at++]);
    w.list(n.inputs, [&](const NodeArgument& a) { w.str(a.name), w.b(a.keyword), writeArgument(w, a.arg); });
    w.list(n.outputs, [&](ValueId v) { w.s(v); });
    w.b(n.returnsTuple), w.b(n.returnsList), w.s(n.subgraph);
    writeOrigin(w, n.origin.get());
  });
  w.list(p.inputs, [&](const InputSpec& s) {
    w.u(static_cast<uint8_t>(s.kind)), w.s(s.value), w.str(s.target), w.b(s.persistent);
  });
  w.list(p.outputs, [&](const OutputSpec& s) {
    w.u(static_cast<uint8_t>(s.kind)), w.s(s.value), writeArgument(w, s.constant), w.str(s.target);
  });
  w.u(p.symbolRanges.size());
  for (const auto& [name, range] : p.symbolRanges) w.str(name), w.optionalInt(range.min), w.optionalInt(range.max);
  w.u(p.inputSymbols.size());
  for (const auto& [value, name] : p.inputSymbols) w.s(value), w.str(name);
  w.list(p.modules, [&](const Module& m) {
    w.str(m.path), w.str(m.type), w.s(m.parent);
    w.list(m.children, [&](int c) { w.s(c); });
    w.list(m.nodes, [&](NodeId n) { w.s(n); });
  });
  bool kept = true;
  w.list(p.subgraphs, [&](const Subgraph& s) {
    w.str(s.name), w.b(s.graph != nullptr);
    if (s.graph) kept = writeGraph(w, *s.graph, false) && kept;
  });
  return kept;
}

// ---------------------------------------------------------------- reading

class GraphReader {
 public:
  GraphReader(Reader& r, Program& p) : m_r(r), m_p(p) {}

  void read(int depth) {
    SourceInfo& src = m_p.source;
    src.path = m_r.str(), src.format = m_r.str(), src.layout = m_r.str();
    src.torchVersion = m_r.str(), src.schemaVersion = m_r.str();
    src.verifiers = m_r.list<std::string>([&](std::string& v) { v = m_r.str(); });
    src.modelName = m_r.str();

    const auto stackTraces = shared<std::string>([&] { return m_r.str(); });
    const auto targets = shared<std::string>([&] { return m_r.str(); });
    const auto moduleStacks = shared<ModuleStack>([&] {
      return m_r.list<ModuleFrame>([&](ModuleFrame& f) { f.path = m_r.str(), f.type = m_r.str(); });
    });

    m_p.values = m_r.list<Value>([&](Value& v) {
      v.name = m_r.str();
      v.kind = static_cast<ValueKind>(m_r.code(static_cast<unsigned>(ValueKind::None) + 1, "value kind"));
      const int32_t dtype = m_r.s32();
      if (!knownDType(dtype)) m_r.fail("unknown dtype " + std::to_string(dtype));
      v.dtype = static_cast<DType>(dtype);
      v.shape = m_r.list<Dim>([&](Dim& d) { d.hint = m_r.s(), d.expr = m_r.str(); });
      v.strides = m_r.ints();
      v.device = m_r.str();
      v.producer = m_r.s32(), v.outputIndex = m_r.s32();
    });
    for (std::size_t i = 0; i < m_p.values.size(); ++i) m_p.values[i].id = static_cast<ValueId>(i);
    m_p.nodes = m_r.list<Node>([&](Node& n) {
      n.opcode = static_cast<Opcode>(m_r.code(static_cast<unsigned>(Opcode::Output) + 1, "opcode"));
      n.name = m_r.str(), n.target = m_r.str();
      n.stackTrace = entry(m_r, stackTraces, "stack trace");
      n.moduleStack = entry(m_r, moduleStacks, "module stack");
      n.serializedTarget = entry(m_r, targets, "target");
      n.inputs = m_r.list<NodeArgument>([&](NodeArgument& a) {
        a.name = m_r.str(), a.keyword = m_r.b(), a.arg = argument(0);
      });
      n.outputs = m_r.list<ValueId>([&](ValueId& v) { v = valueId(m_r.s32()); });
      n.returnsTuple = m_r.b(), n.returnsList = m_r.b(), n.subgraph = m_r.s32();
      if (m_r.b()) {
        NodeOrigin o;
        o.name = m_r.str(), o.graphId = m_r.s();
        o.debugHandle = m_r.optionalInt<int64_t>(), o.deviceHandle = m_r.optionalInt<int64_t>();
        n.origin = std::make_shared<const NodeOrigin>(std::move(o));
      }
    });
    for (std::size_t i = 0; i < m_p.nodes.size(); ++i) m_p.nodes[i].id = static_cast<NodeId>(i);
    m_p.inputs = m_r.list<InputSpec>([&](InputSpec& s) {
      s.kind = static_cast<InputKind>(m_r.code(static_cast<unsigned>(InputKind::ConstantInput) + 1, "input kind"));
      s.value = valueId(m_r.s32()), s.target = m_r.str(), s.persistent = m_r.b();
    });
    m_p.outputs = m_r.list<OutputSpec>([&](OutputSpec& s) {
      s.kind = static_cast<OutputKind>(m_r.code(static_cast<unsigned>(OutputKind::ParameterMutation) + 1, "output kind"));
      s.value = valueOrNone(m_r.s32()), s.constant = argument(0), s.target = m_r.str();
    });
    for (std::size_t i = 0, n = m_r.count(); i < n; ++i) {
      std::string name = m_r.str();
      SymbolRange range{m_r.optionalInt<int64_t>(), m_r.optionalInt<int64_t>()};
      m_p.symbolRanges.insert_or_assign(std::move(name), range);
    }
    for (std::size_t i = 0, n = m_r.count(); i < n; ++i) {
      const ValueId v = valueId(m_r.s32());
      m_p.inputSymbols.insert_or_assign(v, m_r.str());
    }
    m_p.modules = m_r.list<Module>([&](Module& m) {
      m.path = m_r.str(), m.type = m_r.str(), m.parent = m_r.s32();
      m.children = m_r.list<int>([&](int& c) { c = m_r.s32(); });
      m.nodes = m_r.list<NodeId>([&](NodeId& n) { n = m_r.s32(); });
    });
    m_p.subgraphs = m_r.list<Subgraph>([&](Subgraph& s) {
      s.name = m_r.str();
      if (!m_r.b()) m_r.fail("subgraph " + s.name + " has no graph");
      if (depth >= kMaxSubgraphDepth) m_r.fail("subgraphs nest deeper than " + std::to_string(kMaxSubgraphDepth));
      auto sub = std::make_shared<Program>();
      GraphReader(m_r, *sub).read(depth + 1);
      s.graph = std::move(sub);
    });
    checkReferences();
    if (const auto problem = m_p.sizeProblem(); !problem.empty()) m_r.fail(problem);
  }

 private:
  template <class T, class F>
  std::vector<std::shared_ptr<const T>> shared(F&& make) {
    return m_r.list<std::shared_ptr<const T>>([&](std::shared_ptr<const T>& p) { p = std::make_shared<const T>(make()); });
  }

  ValueId valueId(int32_t v) const {
    if (v < 0 || static_cast<std::size_t>(v) >= m_p.values.size()) m_r.fail("value " + std::to_string(v) + " out of range");
    return v;
  }
  ValueId valueOrNone(int32_t v) const { return v == kNone ? v : valueId(v); }

  TensorRef ref() {
    TensorRef t;
    t.value = m_r.s32(), t.name = m_r.str();
    return t;
  }
  template <class T>
  Symbolic<T> symbolic() {
    Symbolic<T> v;
    v.value = m_r.s32();
    if constexpr (std::is_same_v<T, double>) v.constant = m_r.f();
    else if constexpr (std::is_same_v<T, bool>) v.constant = m_r.s() != 0;
    else v.constant = m_r.s();
    return v;
  }

  Literal literal(int depth) {
    if (depth > kMaxNesting) m_r.fail("a literal nests deeper than " + std::to_string(kMaxNesting));
    Literal l;
    switch (m_r.code(std::variant_size_v<decltype(l.value)>, "literal kind")) {
      case 0: break;
      case 1: l.value = m_r.b(); break;
      case 2: l.value = m_r.s(); break;
      case 3: l.value = m_r.f(); break;
      case 4: l.value = m_r.str(); break;
      case 5: l.value = m_r.list<Literal>([&](Literal& x) { x = literal(depth + 1); }); break;
      default: {
        Literal::Dict d;
        d.keys = m_r.list<std::string>([&](std::string& k) { k = m_r.str(); });
        d.values = m_r.list<Literal>([&](Literal& x) { x = literal(depth + 1); });
        if (d.keys.size() != d.values.size()) m_r.fail("a dict literal has " + std::to_string(d.keys.size()) + " keys for " + std::to_string(d.values.size()) + " values");
        l.value = std::move(d);
      }
    }
    return l;
  }

  Argument argument(int depth) {
    if (depth > kMaxNesting) m_r.fail("an argument nests deeper than " + std::to_string(kMaxNesting));
    const uint8_t kind = m_r.code(std::variant_size_v<ArgumentVariant>, "argument kind");
    switch (kind) {
      case 0: return arg::None{};
      case 1: return arg::Tensor{ref()};
      case 2: {
        arg::OptionalTensor v;
        if (m_r.b()) v.tensor = ref();
        return v;
      }
      case 3: return arg::Tensors{m_r.list<TensorRef>([&](TensorRef& t) { t = ref(); })};
      case 4:
        return arg::OptionalTensors{m_r.list<std::optional<TensorRef>>([&](std::optional<TensorRef>& t) {
          if (m_r.b()) t = ref();
        })};
      case 5: return arg::Int{m_r.s()};
      case 6: return arg::Ints{m_r.ints()};
      case 7: return arg::IntLists{m_r.list<std::vector<int64_t>>([&](std::vector<int64_t>& x) { x = m_r.ints(); })};
      case 8: return arg::Float{m_r.f()};
      case 9: return arg::Floats{m_r.list<double>([&](double& x) { x = m_r.f(); })};
      case 10: return arg::Bool{m_r.b()};
      case 11: {
        arg::Bools v;
        for (std::size_t i = 0, n = m_r.count(); i < n; ++i) v.values.push_back(m_r.b());
        return v;
      }
      case 12: return arg::String{m_r.str()};
      case 13: return arg::Strings{m_r.list<std::string>([&](std::string& x) { x = m_r.str(); })};
      case 14: return arg::SymInt{symbolic<int64_t>()};
      case 15: return arg::SymInts{m_r.list<Symbolic<int64_t>>([&](auto& x) { x = symbolic<int64_t>(); })};
      case 16: return arg::SymFloat{symbolic<double>()};
      case 17: return arg::SymFloats{m_r.list<Symbolic<double>>([&](auto& x) { x = symbolic<double>(); })};
      case 18: return arg::SymBool{symbolic<bool>()};
      case 19: return arg::SymBools{m_r.list<Symbolic<bool>>([&](auto& x) { x = symbolic<bool>(); })};
      case 20: return arg::ScalarType{m_r.s32()};
      case 21: return arg::Layout{m_r.s32()};
      case 22: return arg::MemoryFormat{m_r.s32()};
      case 23: {
        arg::Device d;
        d.type = m_r.str();
        if (m_r.b()) d.index = m_r.s32();
        return d;
      }
      case 24: {
        arg::Complex c;
        c.real = m_r.f(), c.imag = m_r.f();
        return c;
      }
      case 25: return arg::Operator{m_r.str()};
      case 26: {
        arg::Graph g;
        g.value = m_r.s32(), g.name = m_r.str();
        return g;
      }
      case 27: {
        arg::CustomObject c;
        c.value = m_r.s32(), c.name = m_r.str();
        return c;
      }
      case 28: {
        arg::StringToArgument m;
        for (std::size_t i = 0, n = m_r.count(); i < n; ++i) {
          std::string key = m_r.str();
          m.entries.emplace_back(std::move(key), argument(depth + 1));
        }
        return m;
      }
      case 29: {
        arg::OutputOf o;
        o.producer = m_r.s32(), o.index = m_r.s32();
        return o;
      }
      case 30: return arg::Attribute{literal(0)};
      default: {
        arg::Unknown u;
        u.kind = m_r.str(), u.text = m_r.str();
        return u;
      }
    }
  }

  /// Everything that names a node, value, module or subgraph names one that exists; each value's
  /// users and each argument's values are derived as the JSON reader derives them.
  void checkReferences() {
    const auto nodes = static_cast<int64_t>(m_p.nodes.size());
    auto node = [&](int64_t n, const char* what) {
      if (n < 0 || n >= nodes) m_r.fail(std::string(what) + " names node " + std::to_string(n) + " of " + std::to_string(nodes));
    };
    // every value made by a node that lists it among its outputs
    for (Value& v : m_p.values) {
      node(v.producer, "a value's producer");
      if (v.outputIndex < 0) m_r.fail("value " + v.name + " is output " + std::to_string(v.outputIndex));
    }
    std::vector<bool> listed(m_p.values.size(), false);
    for (const Node& n : m_p.nodes)
      for (ValueId v : n.outputs)
        if (m_p.values[static_cast<std::size_t>(v)].producer == n.id) listed[static_cast<std::size_t>(v)] = true;
    for (const Value& v : m_p.values)
      if (!listed[static_cast<std::size_t>(v.id)]) m_r.fail("value " + v.name + " is not among its producer's outputs");
    std::size_t placeholders = 0;
    for (Node& n : m_p.nodes) {
      placeholders += n.opcode == Opcode::Placeholder;
      for (NodeArgument& a : n.inputs) {
        if (const auto* o = a.arg.as<arg::OutputOf>()) {
          // what a getitem picks: its first argument, positional, of a node before it
          if (&a != &n.inputs.front() || a.keyword) m_r.fail("node " + n.name + " picks an output in argument " + a.name);
          node(o->producer, "a getitem");
          if (o->producer >= n.id) m_r.fail("node " + n.name + " picks an output of a node not before it");
          if (o->index < 0) m_r.fail("node " + n.name + " picks output " + std::to_string(o->index));
        }
        collectValues(a.arg, a.values);
        for (ValueId v : a.values) {
          Value& used = m_p.values[static_cast<std::size_t>(valueId(v))];
          // as in the file: a node uses what the nodes before it made
          if (used.producer >= n.id) m_r.fail("node " + n.name + " uses " + used.name + " before it is made");
          used.users.push_back(n.id);
        }
      }
      if (n.subgraph != kNone && (n.subgraph < 0 || static_cast<std::size_t>(n.subgraph) >= m_p.subgraphs.size()))
        m_r.fail("node " + n.name + " names subgraph " + std::to_string(n.subgraph));
    }
    // placeholders first, one input each, in order; one output node, the last
    if (placeholders != m_p.inputs.size())
      m_r.fail(std::to_string(m_p.inputs.size()) + " inputs for " + std::to_string(placeholders) + " placeholders");
    for (std::size_t i = 0; i < m_p.nodes.size(); ++i) {
      const Node& n = m_p.nodes[i];
      if ((i < placeholders) != (n.opcode == Opcode::Placeholder)) m_r.fail("node " + n.name + " is out of place");
      if ((i + 1 == m_p.nodes.size()) != (n.opcode == Opcode::Output)) m_r.fail("node " + n.name + " is out of place");
      if (i < placeholders && (n.outputs.size() != 1 || m_p.inputs[i].value != n.outputs.front()))
        m_r.fail("input " + std::to_string(i) + " is not placeholder " + n.name + "'s value");
    }
    for (const OutputSpec& s : m_p.outputs) {
      std::vector<ValueId> values;
      collectValues(s.constant, values);
      for (ValueId v : values) valueId(v);
    }
    // a tree, the root first: each module after its parent and listed by it once; each node in
    // one module at most
    const auto modules = static_cast<int>(m_p.modules.size());
    std::vector<bool> inModule(m_p.nodes.size(), false);
    std::size_t children = 0;
    for (int i = 0; i < modules; ++i) {
      const Module& m = m_p.modules[static_cast<std::size_t>(i)];
      if (i == 0 ? m.parent != -1 : m.parent < 0 || m.parent >= i) m_r.fail("module '" + m.path + "' has no parent before it");
      for (int c : m.children)
        if (c <= i || c >= modules || m_p.modules[static_cast<std::size_t>(c)].parent != i)
          m_r.fail("module '" + m.path + "' has child " + std::to_string(c));
      children += m.children.size();
      for (NodeId n : m.nodes) {
        node(n, "a module");
        if (inModule[static_cast<std::size_t>(n)]) m_r.fail("node " + std::to_string(n) + " is in two modules");
        inModule[static_cast<std::size_t>(n)] = true;
      }
    }
    if (modules > 0 && children != static_cast<std::size_t>(modules - 1)) m_r.fail("a module is listed twice");
  }

  Reader& m_r;
  Program& m_p;
};

}  // namespace

std::optional<std::string> encodeProgramGraph(const Program& program) {
  Writer w;
  if (!writeGraph(w, program, /*outermost=*/true)) return std::nullopt;
  return w.take();
}

Program decodeProgramGraph(std::string_view bytes, const std::string& file) {
  Reader r(bytes, file);
  Program graph;
  GraphReader(r, graph).read(0);
  if (!r.atEnd()) r.fail("bytes follow the program");
  return graph;
}

}  // namespace torchir
