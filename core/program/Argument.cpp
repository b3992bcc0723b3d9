#include "Argument.h"

#include "PythonRepr.h"

namespace torchir {

std::string pythonLiteral(const Literal& l) {
  return std::visit(
      Overloaded{[](std::monostate) -> std::string { return "None"; },
                 [](bool b) -> std::string { return b ? "True" : "False"; },
                 [](int64_t i) { return std::to_string(i); }, [](double d) { return pythonFloatRepr(d); },
                 [](const std::string& s) { return pythonStringRepr(s); },
                 [](const Literal::List& list) {
                   std::string out = "[";
                   for (std::size_t i = 0; i < list.size(); ++i) out += (i ? ", " : "") + pythonLiteral(list[i]);
                   return out + "]";
                 },
                 [](const Literal::Dict& dict) {
                   std::string out = "{";
                   for (std::size_t i = 0; i < dict.keys.size() && i < dict.values.size(); ++i)
                     out += (i ? ", " : "") + pythonStringRepr(dict.keys[i]) + ": " + pythonLiteral(dict.values[i]);
                   return out + "}";
                 }},
      l.value);
}

const char* layoutPythonName(int code) {
  static const char* names[] = {"torch.strided", "torch.sparse_coo", "torch.sparse_csr", "torch.sparse_csc",
                                "torch.sparse_bsr", "torch.sparse_bsc", "torch._mkldnn", "torch.strided"};
  return code >= 0 && code <= 7 ? names[code] : "torch.strided";
}

const char* memoryFormatPythonName(int code) {
  static const char* names[] = {"torch.contiguous_format", "torch.contiguous_format", "torch.channels_last",
                                "torch.channels_last_3d", "torch.preserve_format"};
  return code >= 0 && code <= 4 ? names[code] : "torch.contiguous_format";
}

std::string_view argumentTypeName(const Argument& a) {
  return std::visit(Overloaded{[](const arg::None&) { return "None"; }, [](const arg::Tensor&) { return "Tensor"; },
                               [](const arg::OptionalTensor&) { return "Tensor?"; },
                               [](const arg::Tensors&) { return "Tensor[]"; },
                               [](const arg::OptionalTensors&) { return "Tensor?[]"; },
                               [](const arg::Int&) { return "int"; }, [](const arg::Ints&) { return "int[]"; },
                               [](const arg::IntLists&) { return "int[][]"; }, [](const arg::Float&) { return "float"; },
                               [](const arg::Floats&) { return "float[]"; }, [](const arg::Bool&) { return "bool"; },
                               [](const arg::Bools&) { return "bool[]"; }, [](const arg::String&) { return "str"; },
                               [](const arg::Strings&) { return "str[]"; }, [](const arg::SymInt&) { return "SymInt"; },
                               [](const arg::SymInts&) { return "SymInt[]"; },
                               [](const arg::SymFloat&) { return "SymFloat"; },
                               [](const arg::SymFloats&) { return "SymFloat[]"; },
                               [](const arg::SymBool&) { return "SymBool"; },
                               [](const arg::SymBools&) { return "SymBool[]"; },
                               [](const arg::ScalarType&) { return "ScalarType"; },
                               [](const arg::Layout&) { return "Layout"; },
                               [](const arg::MemoryFormat&) { return "MemoryFormat"; },
                               [](const arg::Device&) { return "Device"; }, [](const arg::Complex&) { return "complex"; },
                               [](const arg::Operator&) { return "operator"; }, [](const arg::Graph&) { return "graph"; },
                               [](const arg::CustomObject&) { return "object"; },
                               [](const arg::StringToArgument&) { return "Dict(str, Any)"; },
                               [](const arg::OutputOf&) { return "output"; },
                               [](const arg::Attribute&) { return "attribute"; },
                               [](const arg::Unknown&) { return "unknown"; }},
                    static_cast<const ArgumentVariant&>(a));
}

namespace {
template <class T>
void collectSymbol(const Symbolic<T>& s, std::vector<ValueId>& out) {
  if (s.isValue()) out.push_back(s.value);
}
template <class T>
void collectSymbols(const std::vector<Symbolic<T>>& syms, std::vector<ValueId>& out) {
  for (const auto& s : syms) collectSymbol(s, out);
}
}  // namespace

void collectValues(const Argument& a, std::vector<ValueId>& out) {
  if (const auto* t = a.as<arg::Tensor>()) out.push_back(t->tensor.value);
  else if (const auto* o = a.as<arg::OptionalTensor>()) {
    if (o->tensor) out.push_back(o->tensor->value);
  } else if (const auto* ts = a.as<arg::Tensors>()) {
    for (const auto& r : ts->tensors) out.push_back(r.value);
  } else if (const auto* os = a.as<arg::OptionalTensors>()) {
    for (const auto& r : os->tensors)
      if (r) out.push_back(r->value);
  } else if (const auto* si = a.as<arg::SymInt>()) collectSymbol(si->sym, out);
  else if (const auto* sf = a.as<arg::SymFloat>()) collectSymbol(sf->sym, out);
  else if (const auto* sb = a.as<arg::SymBool>()) collectSymbol(sb->sym, out);
  else if (const auto* sis = a.as<arg::SymInts>()) collectSymbols(sis->values, out);
  else if (const auto* sfs = a.as<arg::SymFloats>()) collectSymbols(sfs->values, out);
  else if (const auto* sbs = a.as<arg::SymBools>()) collectSymbols(sbs->values, out);
  else if (const auto* g = a.as<arg::Graph>()) out.push_back(g->value);
  else if (const auto* c = a.as<arg::CustomObject>()) out.push_back(c->value);
  else if (const auto* m = a.as<arg::StringToArgument>()) {
    for (const auto& [key, v] : m->entries) collectValues(v, out);  // bounded: the reader limits nesting
  }
}

}  // namespace torchir
