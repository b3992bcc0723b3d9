#include "FxTable.h"

#include "PythonRepr.h"

namespace torchir {
namespace {

std::string join(const std::vector<std::string>& items, bool tuple, const char* open, const char* close) {
  std::string out = open;
  for (std::size_t i = 0; i < items.size(); ++i) out += (i ? ", " : "") + items[i];
  if (tuple && items.size() == 1) out += ",";
  return out + close;
}

template <class T, class F>
std::string listOf(const std::vector<T>& items, F f) {
  std::vector<std::string> out;
  out.reserve(items.size());
  for (const auto& x : items) out.push_back(f(x));
  return join(out, false, "[", "]");
}

std::string boolRepr(bool b) { return b ? "True" : "False"; }
std::string intRepr(int64_t i) { return std::to_string(i); }

/// str() of an OpOverload (auto_functionalized's first argument): "torch.ops.ns.name.overload".
std::string operatorRepr(const std::string& op) {
  const auto last = op.rfind('.');
  if (op.rfind("torch.ops.", 0) != 0 || last == std::string::npos || op.find('.', 10) == last) return op;
  return "<OpOverload(op='" + op.substr(10, last - 10) + "', overload='" + op.substr(last + 1) + "')>";
}

class Renderer {
 public:
  explicit Renderer(const Program& p)
      : m_p(p), m_holder(p.values.size()), m_irNames(p.source.format == "ir-json") {
    // A reference prints the FX node holding the value: the op, or the getitem that picks it.
    for (const auto& n : p.nodes)
      for (ValueId v : n.outputs) m_holder[static_cast<std::size_t>(v)] = n.id;
  }

  std::string holderName(ValueId v) const { return m_p.node(m_holder[static_cast<std::size_t>(v)]).name; }

  std::string tensor(const TensorRef& t) const {
    return m_irNames ? t.name : holderName(t.value);  // IR inputs name the tensor itself (topk_0)
  }
  std::string optionalTensor(const std::optional<TensorRef>& t) const { return t ? tensor(*t) : "None"; }

  template <class T, class F>
  std::string symbol(const Symbolic<T>& s, F constant) const {
    return s.isValue() ? holderName(s.value) : constant(s.constant);
  }

  /// Python repr of one argument as torch.export.load deserializes it.
  std::string arg(const Argument& a) const {
    const auto floatRepr = [](double d) { return pythonFloatRepr(d); };
    return std::visit(
        Overloaded{
            [](const arg::None&) -> std::string { return "None"; },
            [&](const arg::Tensor& t) { return tensor(t.tensor); },
            [&](const arg::OptionalTensor& t) { return optionalTensor(t.tensor); },
            [&](const arg::Tensors& t) { return listOf(t.tensors, [&](const TensorRef& r) { return tensor(r); }); },
            [&](const arg::OptionalTensors& t) {
              return listOf(t.tensors, [&](const std::optional<TensorRef>& r) { return optionalTensor(r); });
            },
            [](const arg::Int& i) { return intRepr(i.value); },
            [](const arg::Ints& i) { return listOf(i.values, intRepr); },
            [](const arg::IntLists& l) {
              return listOf(l.values, [](const std::vector<int64_t>& x) {
                std::vector<std::string> items;
                for (int64_t i : x) items.push_back(intRepr(i));
                return join(items, true, "(", ")");
              });
            },
            [&](const arg::Float& f) { return floatRepr(f.value); },
            [&](const arg::Floats& f) { return listOf(f.values, floatRepr); },
            [](const arg::Bool& b) { return boolRepr(b.value); },
            [](const arg::Bools& b) { return listOf(b.values, boolRepr); },
            [](const arg::String& s) { return pythonStringRepr(s.value); },
            [](const arg::Strings& s) {
              return listOf(s.values, [](const std::string& x) { return pythonStringRepr(x); });
            },
            [&](const arg::SymInt& s) { return symbol(s.sym, intRepr); },
            [&](const arg::SymFloat& s) { return symbol(s.sym, floatRepr); },
            [&](const arg::SymBool& s) { return symbol(s.sym, boolRepr); },
            [&](const arg::SymInts& s) {
              return listOf(s.values, [&](const Symbolic<int64_t>& x) { return symbol(x, intRepr); });
            },
            [&](const arg::SymFloats& s) {
              return listOf(s.values, [&](const Symbolic<double>& x) { return symbol(x, floatRepr); });
            },
            [&](const arg::SymBools& s) {
              return listOf(s.values, [&](const Symbolic<bool>& x) { return symbol(x, boolRepr); });
            },
            [](const arg::ScalarType& t) { return dtypePythonName(dtypeFromSerialized(t.code).value_or(DType::Unknown)); },
            [](const arg::Layout& l) { return std::string(layoutPythonName(l.code)); },
            [](const arg::MemoryFormat& m) { return std::string(memoryFormatPythonName(m.code)); },
            [](const arg::Device& d) {
              std::string out = "device(type=" + pythonStringRepr(d.type);
              if (d.index) out += ", index=" + std::to_string(*d.index);
              return out + ")";
            },
            [&](const arg::Complex& c) { return "(" + floatRepr(c.real) + "+" + floatRepr(c.imag) + "j)"; },
            [](const arg::Operator& o) { return operatorRepr(o.name); },
            [&](const arg::Graph& g) { return holderName(g.value); },
            [&](const arg::CustomObject& c) { return holderName(c.value); },
            [&](const arg::StringToArgument& m) {
              std::vector<std::string> items;
              for (const auto& [key, v] : m.entries) items.push_back(pythonStringRepr(key) + ": " + arg(v));
              return join(items, false, "{", "}");
            },
            [&](const arg::OutputOf& o) { return m_p.node(o.producer).name + ", " + std::to_string(o.index); },
            [](const arg::Attribute& at) { return pythonLiteral(at.value); },
            [](const arg::Unknown& u) { return u.text; }},
        static_cast<const ArgumentVariant&>(a));
  }

  FxRow row(const Node& n) const {
    FxRow r{std::string(opcodeName(n.opcode)), n.name, n.target, "()", "{}"};
    std::vector<std::string> args, kwargs;
    for (const auto& a : n.inputs) {
      std::string text = arg(a.arg);
      if (a.keyword) kwargs.push_back(pythonStringRepr(a.name) + ": " + text);
      else args.push_back(text);
    }
    if (n.opcode == Opcode::Output) {
      // output((a, b)) for a tuple return, output(a) for a single tensor
      r.args = n.returnsTuple ? "(" + join(args, true, "(", ")") + ",)" : join(args, true, "(", ")");
      return r;
    }
    if (n.picks()) {
      r.args = "(" + args.front() + ")";  // getitem(node, index)
      return r;
    }
    r.args = join(args, true, "(", ")");
    r.kwargs = join(kwargs, false, "{", "}");
    return r;
  }

 private:
  const Program& m_p;
  std::vector<NodeId> m_holder;
  bool m_irNames;
};

}  // namespace

std::vector<FxRow> fxTable(const Program& program) {
  std::vector<FxRow> rows;
  rows.reserve(program.nodes.size());
  fxTableRows(program, 0, program.nodes.size(), [&rows](std::size_t, FxRow&& row) { rows.push_back(std::move(row)); });
  return rows;
}

void fxTableRows(const Program& program, std::size_t first, std::size_t last,
                 const std::function<void(std::size_t, FxRow&&)>& take) {
  const Renderer r(program);
  for (std::size_t i = first; i < last && i < program.nodes.size(); ++i) take(i, r.row(program.nodes[i]));
}

}  // namespace torchir
