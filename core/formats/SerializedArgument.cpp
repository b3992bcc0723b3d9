#include "SerializedArgument.h"

#include "LenientJson.h"

namespace torchir {
namespace {

namespace od = json::od;

class ArgumentReader {
 public:
  ArgumentReader(const json::Reader& r, const ValueLookup& lookup) : m_r(r), m_lookup(lookup) {}

  std::optional<Argument> argument(od::value v) {
    std::optional<Argument> out;
    const bool ok = json::readUnion(m_r, v, [&](std::string_view kind, od::value body) {
      out = ofKind(kind, body);
      return out.has_value();
    });
    if (!ok) return std::nullopt;
    return out;
  }

  std::optional<Argument> ofKind(std::string_view k, od::value b) { return kindBody(k, b); }

 private:
  // Each reads one kind's body; false when it does not have the schema's shape.
  bool name(od::value v, TensorRef& out) {
    bool named = false;
    const bool ok = json::forEachField(m_r, v, [&](std::string_view key, od::value x) {
      std::string_view s;
      if (key != "name" || named) return true;
      if (json::stringOf(x, s)) return false;
      out.value = m_lookup(s);
      out.name.assign(s);
      return named = true;
    });
    return ok && named;
  }
  bool optionalTensor(od::value v, std::optional<TensorRef>& out) {
    return json::readUnion(m_r, v, [&](std::string_view kind, od::value body) {
      if (kind == "as_none") return out.reset(), true;
      TensorRef t;
      if (kind != "as_tensor" || !name(body, t)) return false;
      out = std::move(t);
      return true;
    });
  }
  static bool integer(od::value v, int64_t& out) {
    const auto i = json::exactInt(v);
    if (i) out = *i;
    return i.has_value();
  }
  static bool code(od::value v, int& out) {
    int64_t i = 0;
    if (!integer(v, i) || i < INT32_MIN || i > INT32_MAX) return false;
    out = static_cast<int>(i);
    return true;
  }
  static bool floating(od::value v, double& out) {
    const auto f = json::floatOf(v);
    if (f) out = *f;
    return f.has_value();
  }
  static bool boolean(od::value v, bool& out) { return v.get_bool().get(out) == simdjson::SUCCESS; }
  static bool string(od::value v, std::string& out) {
    std::string_view s;
    if (json::stringOf(v, s)) return false;
    out.assign(s);
    return true;
  }
  template <class T, class Read>
  bool list(od::value v, std::vector<T>& out, Read read) {
    return json::forEach(m_r, v, [&](od::value x) {
      T item{};
      if (!read(x, item)) return false;
      out.push_back(std::move(item));
      return true;
    });
  }
  /// `{"as_name": "s0"}` (a value of the graph) or `{"<constKey>": constant}`.
  template <class T, class Read>
  bool symbol(od::value v, const char* constKey, Symbolic<T>& out, Read read) {
    return json::readUnion(m_r, v, [&](std::string_view kind, od::value body) {
      std::string_view s;
      if (kind == "as_name" && json::stringOf(body, s) == simdjson::SUCCESS) return out.value = m_lookup(s), true;
      return kind == constKey && read(body, out.constant);
    });
  }
  bool symInt(od::value v, Symbolic<int64_t>& out) { return symbol(v, "as_int", out, integer); }
  bool symFloat(od::value v, Symbolic<double>& out) { return symbol(v, "as_float", out, floating); }
  bool symBool(od::value v, Symbolic<bool>& out) { return symbol(v, "as_bool", out, boolean); }

  template <class T, class Read>
  std::optional<Argument> one(od::value b, Read read) {
    T out{};
    if (!read(b, out)) return std::nullopt;
    return Argument(std::move(out));
  }

  std::optional<Argument> kindBody(std::string_view k, od::value b) {
    auto self = [this](auto method) { return [this, method](od::value v, auto& out) { return (this->*method)(v, out); }; };
    if (k == "as_none") return Argument(arg::None{});
    if (k == "as_tensor") return one<arg::Tensor>(b, [&](od::value v, arg::Tensor& t) { return name(v, t.tensor); });
    if (k == "as_tensors")
      return one<arg::Tensors>(b, [&](od::value v, arg::Tensors& t) { return list(v, t.tensors, self(&ArgumentReader::name)); });
    if (k == "as_optional_tensor")
      return one<arg::OptionalTensor>(b, [&](od::value v, arg::OptionalTensor& t) { return optionalTensor(v, t.tensor); });
    if (k == "as_optional_tensors")
      return one<arg::OptionalTensors>(
          b, [&](od::value v, arg::OptionalTensors& t) { return list(v, t.tensors, self(&ArgumentReader::optionalTensor)); });
    if (k == "as_int") return one<arg::Int>(b, [](od::value v, arg::Int& i) { return integer(v, i.value); });
    if (k == "as_ints") return one<arg::Ints>(b, [&](od::value v, arg::Ints& i) { return list(v, i.values, integer); });
    if (k == "as_int_lists")
      return one<arg::IntLists>(b, [&](od::value v, arg::IntLists& l) {
        return list(v, l.values, [&](od::value x, std::vector<int64_t>& out) { return list(x, out, integer); });
      });
    if (k == "as_float") return one<arg::Float>(b, [](od::value v, arg::Float& f) { return floating(v, f.value); });
    if (k == "as_floats") return one<arg::Floats>(b, [&](od::value v, arg::Floats& f) { return list(v, f.values, floating); });
    if (k == "as_bool") return one<arg::Bool>(b, [](od::value v, arg::Bool& x) { return boolean(v, x.value); });
    if (k == "as_bools")
      return one<arg::Bools>(b, [&](od::value v, arg::Bools& x) {
        return json::forEach(m_r, v, [&](od::value e) {
          bool item = false;
          if (!boolean(e, item)) return false;
          x.values.push_back(item);
          return true;
        });
      });
    if (k == "as_string") return one<arg::String>(b, [](od::value v, arg::String& s) { return string(v, s.value); });
    if (k == "as_strings") return one<arg::Strings>(b, [&](od::value v, arg::Strings& s) { return list(v, s.values, string); });
    if (k == "as_operator") return one<arg::Operator>(b, [](od::value v, arg::Operator& o) { return string(v, o.name); });
    if (k == "as_sym_int") return one<arg::SymInt>(b, [&](od::value v, arg::SymInt& s) { return symInt(v, s.sym); });
    if (k == "as_sym_ints")
      return one<arg::SymInts>(b, [&](od::value v, arg::SymInts& s) { return list(v, s.values, self(&ArgumentReader::symInt)); });
    if (k == "as_sym_float") return one<arg::SymFloat>(b, [&](od::value v, arg::SymFloat& s) { return symFloat(v, s.sym); });
    if (k == "as_sym_floats")
      return one<arg::SymFloats>(
          b, [&](od::value v, arg::SymFloats& s) { return list(v, s.values, self(&ArgumentReader::symFloat)); });
    if (k == "as_sym_bool") return one<arg::SymBool>(b, [&](od::value v, arg::SymBool& s) { return symBool(v, s.sym); });
    if (k == "as_sym_bools")
      return one<arg::SymBools>(b, [&](od::value v, arg::SymBools& s) { return list(v, s.values, self(&ArgumentReader::symBool)); });
    if (k == "as_scalar_type") return one<arg::ScalarType>(b, [](od::value v, arg::ScalarType& t) { return code(v, t.code); });
    if (k == "as_layout") return one<arg::Layout>(b, [](od::value v, arg::Layout& l) { return code(v, l.code); });
    if (k == "as_memory_format")
      return one<arg::MemoryFormat>(b, [](od::value v, arg::MemoryFormat& m) { return code(v, m.code); });
    if (k == "as_device") return one<arg::Device>(b, [&](od::value v, arg::Device& d) { return device(v, d); });
    if (k == "as_complex") return one<arg::Complex>(b, [&](od::value v, arg::Complex& c) { return complex(v, c); });
    if (k == "as_graph" || k == "as_custom_obj") {
      TensorRef named;  // a graph's name is its get_attr node's value; an object's, its placeholder's
      if (!name(b, named)) return std::nullopt;
      if (k == "as_graph") return Argument(arg::Graph{named.value, named.name});
      return Argument(arg::CustomObject{named.value, named.name});
    }
    if (k == "as_string_to_argument")
      return one<arg::StringToArgument>(b, [&](od::value v, arg::StringToArgument& m) {
        if (++m_depth > kMaxJsonDepth) m_r.fail(m_r.record() + " nests deeper than " + std::to_string(kMaxJsonDepth) + " levels");
        const bool ok = json::forEachField(m_r, v, [&](std::string_view key, od::value x) {
          auto item = argument(x);  // bounded by m_depth
          if (!item) return false;
          m.entries.emplace_back(std::string(key), std::move(*item));
          return true;
        });
        --m_depth;  // siblings are not nesting
        return ok;
      });
    return Argument(arg::Unknown{std::string(k), json::rawText(m_r, b)});
  }

  bool device(od::value v, arg::Device& d) {
    bool typed = false;
    const bool ok = json::forEachField(m_r, v, [&](std::string_view key, od::value x) {
      if (key == "type") return typed = string(x, d.type);
      if (key != "index") return true;
      bool null = false;
      if (x.is_null().get(null) == simdjson::SUCCESS && null) return true;
      int index = 0;
      if (!code(x, index)) return false;
      d.index = index;
      return true;
    });
    return ok && typed;
  }

  bool complex(od::value v, arg::Complex& c) {
    bool real = false, imag = false;
    const bool ok = json::forEachField(m_r, v, [&](std::string_view key, od::value x) {
      if (key == "real") return real = floating(x, c.real);
      if (key == "imag") return imag = floating(x, c.imag);
      return true;
    });
    return ok && real && imag;
  }

  const json::Reader& m_r;
  const ValueLookup& m_lookup;
  int m_depth = 0;  // dictionaries of arguments this one is inside
};

}  // namespace

std::optional<Argument> readSerializedArgument(const json::Reader& r, json::od::value v, const ValueLookup& lookup) {
  return ArgumentReader(r, lookup).argument(v);
}

std::optional<Argument> readSerializedArgument(const json::Reader& r, std::string_view kind, json::od::value body,
                                               const ValueLookup& lookup) {
  return ArgumentReader(r, lookup).ofKind(kind, body);
}

}  // namespace torchir
