#include "ArgumentText.h"

#include "PythonRepr.h"

namespace torchir {
namespace {

template <class T, class F>
std::string listOf(const std::vector<T>& items, F f) {
  std::vector<std::string> out;
  out.reserve(items.size());
  for (const auto& x : items) out.push_back(f(x));
  return pythonSequence(out, false, "[", "]");
}

std::string boolRepr(bool b) { return b ? "True" : "False"; }
std::string intRepr(int64_t i) { return std::to_string(i); }

/// str() of an OpOverload (auto_functionalized's first argument): "torch.ops.ns.name.overload".
std::string operatorRepr(const std::string& op) {
  const auto last = op.rfind('.');
  if (op.rfind("torch.ops.", 0) != 0 || last == std::string::npos || op.find('.', 10) == last) return op;
  return "<OpOverload(op='" + op.substr(10, last - 10) + "', overload='" + op.substr(last + 1) + "')>";
}

std::string optionalTensor(const ArgumentText& text, const std::optional<TensorRef>& t) {
  return t ? text.tensor(*t) : "None";
}

template <class T, class F>
std::string symbol(const ArgumentText& text, const Symbolic<T>& s, F constant) {
  return s.isValue() ? text.holderName(s.value) : constant(s.constant);
}

}  // namespace

std::string pythonSequence(const std::vector<std::string>& items, bool tuple, const char* open, const char* close) {
  std::string out = open;
  for (std::size_t i = 0; i < items.size(); ++i) out += (i ? ", " : "") + items[i];
  if (tuple && items.size() == 1) out += ",";
  return out + close;
}

ArgumentText::ArgumentText(const Program& p)
    : m_p(p), m_holder(p.values.size(), kNone), m_irNames(p.source.format == "ir-json") {
  // A reference prints the FX node holding the value: the op, or the getitem that picks it.
  for (const auto& n : p.nodes)
    for (ValueId v : n.outputs) m_holder[static_cast<std::size_t>(v)] = n.id;
}

const std::string& ArgumentText::holderName(ValueId v) const {
  const NodeId holder = m_holder.at(static_cast<std::size_t>(v));
  return holder != kNone ? m_p.node(holder).name : m_p.value(v).name;
}

std::string ArgumentText::tensor(const TensorRef& t) const {
  return m_irNames ? t.name : holderName(t.value);  // IR inputs name the tensor itself (topk_0)
}

std::string ArgumentText::operator()(const Argument& a) const {
  const auto floatRepr = [](double d) { return pythonFloatRepr(d); };
  return std::visit(
      Overloaded{
          [](const arg::None&) -> std::string { return "None"; },
          [&](const arg::Tensor& t) { return tensor(t.tensor); },
          [&](const arg::OptionalTensor& t) { return optionalTensor(*this, t.tensor); },
          [&](const arg::Tensors& t) { return listOf(t.tensors, [&](const TensorRef& r) { return tensor(r); }); },
          [&](const arg::OptionalTensors& t) {
            return listOf(t.tensors, [&](const std::optional<TensorRef>& r) { return optionalTensor(*this, r); });
          },
          [](const arg::Int& i) { return intRepr(i.value); },
          [](const arg::Ints& i) { return listOf(i.values, intRepr); },
          [](const arg::IntLists& l) {
            return listOf(l.values, [](const std::vector<int64_t>& x) {
              std::vector<std::string> items;
              for (int64_t i : x) items.push_back(intRepr(i));
              return pythonSequence(items, true, "(", ")");
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
          [&](const arg::SymInt& s) { return symbol(*this, s.sym, intRepr); },
          [&](const arg::SymFloat& s) { return symbol(*this, s.sym, floatRepr); },
          [&](const arg::SymBool& s) { return symbol(*this, s.sym, boolRepr); },
          [&](const arg::SymInts& s) {
            return listOf(s.values, [&](const Symbolic<int64_t>& x) { return symbol(*this, x, intRepr); });
          },
          [&](const arg::SymFloats& s) {
            return listOf(s.values, [&](const Symbolic<double>& x) { return symbol(*this, x, floatRepr); });
          },
          [&](const arg::SymBools& s) {
            return listOf(s.values, [&](const Symbolic<bool>& x) { return symbol(*this, x, boolRepr); });
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
            for (const auto& [key, v] : m.entries) items.push_back(pythonStringRepr(key) + ": " + (*this)(v));
            return pythonSequence(items, false, "{", "}");
          },
          [&](const arg::OutputOf& o) { return m_p.node(o.producer).name + ", " + std::to_string(o.index); },
          [](const arg::Attribute& at) { return pythonLiteral(at.value); },
          [](const arg::Unknown& u) { return u.text; }},
      static_cast<const ArgumentVariant&>(a));
}

}  // namespace torchir
