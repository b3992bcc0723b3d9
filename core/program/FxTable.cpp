#include "FxTable.h"

#include "LenientJson.h"
#include "PythonRepr.h"

namespace torchir {
namespace {

using nlohmann::json;

std::string join(const std::vector<std::string>& items, bool tuple, const char* open, const char* close) {
  std::string out = open;
  for (std::size_t i = 0; i < items.size(); ++i) out += (i ? ", " : "") + items[i];
  if (tuple && items.size() == 1) out += ",";
  return out + close;
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

  std::string symArg(const json& s, std::vector<ValueId>::const_iterator& next) const {
    const auto k = s.begin().key();
    if (k == "as_name") return holderName(*next++);
    if (k == "as_float") return pythonFloatRepr(s.at(k).get<double>());
    if (k == "as_bool") return s.at(k).get<bool>() ? "True" : "False";
    return s.at(k).dump();
  }

  static std::string floatRepr(const json& f) { return pythonFloatRepr(serializedFloat(f)); }

  /// Python repr of one deserialized argument. `next` walks the argument's value ids.
  std::string arg(const json& a, std::vector<ValueId>::const_iterator& next) const {
    if (a.contains("as_node")) return a.at("as_node").get<std::string>() + ", " + std::to_string(a.at("index").get<int>());
    const auto k = a.begin().key();
    const auto& b = a.at(k);
    if (k == "as_none") return "None";
    if (k == "as_tensor" && m_irNames) {
      ++next;
      return b.at("name").get<std::string>();  // IR inputs name the tensor itself (topk_0)
    }
    if (k == "as_tensor" || k == "as_custom_obj" || k == "as_graph") return holderName(*next++);
    if (k == "as_ir_attr") return pythonLiteral(b);
    if (k == "as_tensors") {
      std::vector<std::string> items;
      for (std::size_t i = 0; i < b.size(); ++i) items.push_back(holderName(*next++));
      return join(items, false, "[", "]");
    }
    if (k == "as_optional_tensors") {
      std::vector<std::string> items;
      for (const auto& t : b) items.push_back(t.begin().key() == "as_tensor" ? holderName(*next++) : "None");
      return join(items, false, "[", "]");
    }
    if (k == "as_optional_tensor") return b.begin().key() == "as_tensor" ? holderName(*next++) : "None";
    if (k == "as_int") return b.dump();
    if (k == "as_float") return floatRepr(b);
    if (k == "as_bool") return b.get<bool>() ? "True" : "False";
    if (k == "as_string") return pythonStringRepr(b.get<std::string>());
    if (k == "as_ints") return listOf(b, [](const json& x) { return x.dump(); });
    if (k == "as_floats") return listOf(b, [this](const json& x) { return floatRepr(x); });
    if (k == "as_bools") return listOf(b, [](const json& x) { return std::string(x.get<bool>() ? "True" : "False"); });
    if (k == "as_strings") return listOf(b, [](const json& x) { return pythonStringRepr(x.get<std::string>()); });
    if (k == "as_sym_int" || k == "as_sym_float" || k == "as_sym_bool") return symArg(b, next);
    if (k == "as_sym_ints" || k == "as_sym_floats" || k == "as_sym_bools") {
      std::vector<std::string> items;
      for (const auto& s : b) items.push_back(symArg(s, next));
      return join(items, false, "[", "]");
    }
    if (k == "as_scalar_type") return dtypePythonName(dtypeFromSerialized(b.get<int>()).value_or(DType::Unknown));
    if (k == "as_memory_format") {
      static const char* names[] = {"torch.contiguous_format", "torch.contiguous_format", "torch.channels_last",
                                    "torch.channels_last_3d", "torch.preserve_format"};
      const int i = b.get<int>();
      return i >= 0 && i <= 4 ? names[i] : "torch.contiguous_format";
    }
    if (k == "as_layout") {
      static const char* names[] = {"torch.strided", "torch.sparse_coo", "torch.sparse_csr", "torch.sparse_csc",
                                    "torch.sparse_bsr", "torch.sparse_bsc", "torch._mkldnn", "torch.strided"};
      const int i = b.get<int>();
      return i >= 0 && i <= 7 ? names[i] : "torch.strided";
    }
    if (k == "as_device") {
      std::string out = "device(type=" + pythonStringRepr(b.at("type").get<std::string>());
      if (b.contains("index") && b.at("index").is_number_integer()) out += ", index=" + b.at("index").dump();
      return out + ")";
    }
    if (k == "as_complex") return "(" + floatRepr(b.at("real")) + "+" + floatRepr(b.at("imag")) + "j)";
    if (k == "as_operator") {
      // str() of an OpOverload (auto_functionalized's first argument): "torch.ops.ns.name.overload"
      const std::string op = b.get<std::string>();
      const auto last = op.rfind('.');
      if (op.rfind("torch.ops.", 0) != 0 || last == std::string::npos || op.find('.', 10) == last) return op;
      return "<OpOverload(op='" + op.substr(10, last - 10) + "', overload='" + op.substr(last + 1) + "')>";
    }
    if (k == "as_int_lists") {
      std::vector<std::string> items;
      for (const auto& l : b) items.push_back(join(intStrings(l), true, "(", ")"));
      return join(items, false, "[", "]");
    }
    if (k == "as_string_to_argument") {
      std::vector<std::string> items;
      for (const auto& [key, v] : b.items()) items.push_back(pythonStringRepr(key) + ": " + arg(v, next));
      return join(items, false, "{", "}");
    }
    return b.dump();
  }

  /// A JSON value as the Python literal it was (pytorch-ir attributes).
  std::string pythonLiteral(const json& v) const {
    if (v.is_null()) return "None";
    if (v.is_boolean()) return v.get<bool>() ? "True" : "False";
    if (v.is_number_float()) return pythonFloatRepr(v.get<double>());
    if (v.is_string()) return pythonStringRepr(v.get<std::string>());
    if (v.is_array()) return listOf(v, [this](const json& x) { return pythonLiteral(x); });
    if (v.is_object()) {
      std::vector<std::string> items;
      for (const auto& [key, x] : v.items()) items.push_back(pythonStringRepr(key) + ": " + pythonLiteral(x));
      return join(items, false, "{", "}");
    }
    return v.dump();
  }

  static std::vector<std::string> intStrings(const json& l) {
    std::vector<std::string> out;
    for (const auto& x : l) out.push_back(x.dump());
    return out;
  }

  template <class F>
  static std::string listOf(const json& b, F f) {
    std::vector<std::string> items;
    for (const auto& x : b) items.push_back(f(x));
    return join(items, false, "[", "]");
  }

  FxRow row(const Node& n) const {
    FxRow r{std::string(opcodeName(n.opcode)), n.name, n.target, "()", "{}"};
    std::vector<std::string> args, kwargs;
    for (const auto& a : n.inputs) {
      auto next = a.values.cbegin();
      std::string text = arg(a.arg, next);
      if (a.keyword) kwargs.push_back(pythonStringRepr(a.name) + ": " + text);
      else args.push_back(text);
    }
    if (n.opcode == Opcode::Output) {
      // output((a, b)) for a tuple return, output(a) for a single tensor
      r.args = n.returnsTuple ? "(" + join(args, true, "(", ")") + ",)" : join(args, true, "(", ")");
      return r;
    }
    if (!n.inputs.empty() && n.inputs.front().arg.contains("as_node")) {
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
  Renderer r(program);
  std::vector<FxRow> rows;
  rows.reserve(program.nodes.size());
  for (const auto& n : program.nodes) rows.push_back(r.row(n));
  return rows;
}

}  // namespace torchir
