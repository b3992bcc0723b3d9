#include "ArgumentJson.h"

#include "program/DType.h"
#include "LenientJson.h"
#include "program/PythonRepr.h"

namespace torchir {
namespace {

using Json = nlohmann::ordered_json;

template <class T>
Json symbolJson(const Symbolic<T>& s, const std::function<std::string(ValueId)>& nameOf) {
  return s.isValue() ? Json(nameOf(s.value)) : Json(s.constant);
}

template <class T>
Json listJson(const std::vector<T>& items) {
  Json out = Json::array();
  for (const auto& x : items) out.push_back(x);
  return out;
}

}  // namespace

Literal literalFromJson(const Json& j) {
  Literal l;
  if (j.is_boolean()) l.value = j.get<bool>();
  else if (const auto i = exactInt64(j)) l.value = *i;
  else if (j.is_number()) l.value = j.get<double>();
  else if (j.is_string()) l.value = j.get<std::string>();
  else if (j.is_array()) {
    Literal::List list;
    list.reserve(j.size());
    for (const auto& x : j) list.push_back(literalFromJson(x));  // bounded: file JSON nests at most kMaxJsonDepth
    l.value = std::move(list);
  } else if (j.is_object()) {
    Literal::Dict dict;
    for (const auto& [k, x] : j.items()) {
      dict.keys.push_back(k);
      dict.values.push_back(literalFromJson(x));
    }
    l.value = std::move(dict);
  }
  return l;
}

Json literalJson(const Literal& l) {
  return std::visit(Overloaded{[](std::monostate) { return Json(); }, [](bool b) { return Json(b); },
                               [](int64_t i) { return Json(i); }, [](double d) { return Json(d); },
                               [](const std::string& s) { return Json(s); },
                               [](const Literal::List& list) {
                                 Json out = Json::array();
                                 for (const auto& x : list) out.push_back(literalJson(x));
                                 return out;
                               },
                               [](const Literal::Dict& dict) {
                                 Json out = Json::object();
                                 for (std::size_t i = 0; i < dict.keys.size() && i < dict.values.size(); ++i)
                                   out[dict.keys[i]] = literalJson(dict.values[i]);
                                 return out;
                               }},
                    l.value);
}

Json pythonJson(const Argument& a, const std::function<std::string(ValueId)>& nameOf) {
  auto tensorName = [&](const std::optional<TensorRef>& t) { return t ? Json(nameOf(t->value)) : Json(); };
  return std::visit(
      Overloaded{
          [](const arg::None&) { return Json(); },
          [&](const arg::Tensor& t) { return Json(nameOf(t.tensor.value)); },
          [&](const arg::OptionalTensor& t) { return tensorName(t.tensor); },
          [&](const arg::Tensors& t) {
            Json out = Json::array();
            for (const auto& r : t.tensors) out.push_back(nameOf(r.value));
            return out;
          },
          [&](const arg::OptionalTensors& t) {
            Json out = Json::array();
            for (const auto& r : t.tensors) out.push_back(tensorName(r));
            return out;
          },
          [](const arg::Int& i) { return Json(i.value); }, [](const arg::Ints& i) { return listJson(i.values); },
          [](const arg::IntLists& l) {
            Json out = Json::array();
            for (const auto& x : l.values) out.push_back(listJson(x));
            return out;
          },
          [](const arg::Float& f) { return Json(f.value); }, [](const arg::Floats& f) { return listJson(f.values); },
          [](const arg::Bool& b) { return Json(b.value); },
          [](const arg::Bools& b) {
            Json out = Json::array();
            for (bool x : b.values) out.push_back(x);
            return out;
          },
          [](const arg::String& s) { return Json(s.value); }, [](const arg::Strings& s) { return listJson(s.values); },
          [&](const arg::SymInt& s) { return symbolJson(s.sym, nameOf); },
          [&](const arg::SymFloat& s) { return symbolJson(s.sym, nameOf); },
          [&](const arg::SymBool& s) { return symbolJson(s.sym, nameOf); },
          [&](const arg::SymInts& s) {
            Json out = Json::array();
            for (const auto& x : s.values) out.push_back(symbolJson(x, nameOf));
            return out;
          },
          [&](const arg::SymFloats& s) {
            Json out = Json::array();
            for (const auto& x : s.values) out.push_back(symbolJson(x, nameOf));
            return out;
          },
          [&](const arg::SymBools& s) {
            Json out = Json::array();
            for (const auto& x : s.values) out.push_back(symbolJson(x, nameOf));
            return out;
          },
          [](const arg::ScalarType& t) {
            return Json(dtypePythonName(dtypeFromSerialized(t.code).value_or(DType::Unknown)));
          },
          [](const arg::Layout& l) { return Json(layoutPythonName(l.code)); },
          [](const arg::MemoryFormat& m) { return Json(memoryFormatPythonName(m.code)); },
          [](const arg::Device& d) { return Json(d.type + (d.index ? ":" + std::to_string(*d.index) : "")); },
          [](const arg::Complex& c) {  // str(complex)
            return Json("(" + pythonFloatRepr(c.real) + (c.imag < 0 ? "" : "+") + pythonFloatRepr(c.imag) + "j)");
          },
          [](const arg::Operator& o) { return Json(o.name.rfind("torch.ops.", 0) == 0 ? o.name.substr(10) : o.name); },
          [&](const arg::Graph& g) { return Json(nameOf(g.value)); },
          [&](const arg::CustomObject& c) { return Json(nameOf(c.value)); },
          [&](const arg::StringToArgument& m) {
            Json out = Json::object();
            for (const auto& [k, v] : m.entries) out[k] = pythonJson(v, nameOf);
            return out;
          },
          [](const arg::OutputOf& o) { return Json::array({o.producer, o.index}); },
          [](const arg::Attribute& at) { return literalJson(at.value); },
          [](const arg::Unknown& u) { return Json::parse(u.text, nullptr, false); }},
      static_cast<const ArgumentVariant&>(a));
}

}  // namespace torchir
