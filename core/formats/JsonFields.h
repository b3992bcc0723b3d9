#pragma once
// Reading a JSON object we wrote into a file that anyone may have written instead: every field asked
// for by name and type, a wrong one refused with where it stands ("records[3].schema is not text")
// and the file's name, in one line. Enums are read back by their names, so adding a value to one
// needs nothing here.
#include <cmath>
#include <limits>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

#include "program/DType.h"
#include "formats/LenientJson.h"
#include "program/LoadError.h"
#include "program/TensorData.h"

namespace torchir {

/// The value of `Enum` whose name (`nameOf`) is `name`: every value of its underlying type is asked,
/// so no count of values is written down anywhere. "?" (what a name function says of no value) is
/// never a name.
template <class Enum>
std::optional<Enum> enumNamed(std::string_view name, std::string_view (*nameOf)(Enum)) {
  using U = std::underlying_type_t<Enum>;
  static_assert(std::numeric_limits<U>::max() <= 0xffff, "an enum of a small fixed underlying type");
  if (name == "?") return std::nullopt;
  for (long i = std::numeric_limits<U>::min(); i <= static_cast<long>(std::numeric_limits<U>::max()); ++i)
    if (nameOf(static_cast<Enum>(i)) == name) return static_cast<Enum>(i);
  return std::nullopt;
}

class JsonFields {
 public:
  using Json = nlohmann::json;
  /// `prefix` goes before each problem: "capture: ".
  JsonFields(std::string path, std::string prefix) : m_path(std::move(path)), m_prefix(std::move(prefix)) {}

  [[noreturn]] void fail(const std::string& what) const { throw LoadError(m_path, m_prefix + what); }

  const Json& at(const Json& o, const char* key, const std::string& where) const {
    if (!o.is_object()) fail(where + " is not an object");
    const auto it = o.find(key);
    if (it == o.end()) fail(where + " has no '" + key + "'");
    return *it;
  }
  std::string text(const Json& o, const char* key, const std::string& where) const {
    const Json& v = at(o, key, where);
    if (!v.is_string()) fail(where + "." + key + " is not text");
    return v.get<std::string>();
  }
  bool flag(const Json& o, const char* key, const std::string& where) const {
    const Json& v = at(o, key, where);
    if (!v.is_boolean()) fail(where + "." + key + " is not true or false");
    return v.get<bool>();
  }
  /// A number, or "inf", "-inf", "nan" (how realJson writes what JSON has no number for).
  double number(const Json& o, const char* key, const std::string& where) const {
    const Json& v = at(o, key, where);
    if (v.is_number()) return v.get<double>();
    if (v == "inf") return INFINITY;
    if (v == "-inf") return -INFINITY;
    if (v == "nan") return NAN;
    fail(where + "." + key + " is not a number");
  }
  int64_t integer(const Json& o, const char* key, const std::string& where) const {
    const auto v = exactInt64(at(o, key, where));
    if (!v) fail(where + "." + key + " is not a 64-bit integer");
    return *v;
  }
  const Json& array(const Json& o, const char* key, const std::string& where) const {
    const Json& v = at(o, key, where);
    if (!v.is_array()) fail(where + "." + key + " is not a list");
    return v;
  }
  std::vector<int64_t> ints(const Json& o, const char* key, const std::string& where) const {
    const Json& list = array(o, key, where);
    if (list.size() > TensorData::kMaxRank)
      fail(where + "." + key + " has more than " + std::to_string(TensorData::kMaxRank) + " entries");
    std::vector<int64_t> out;
    for (const Json& e : list) {
      const auto v = exactInt64(e);
      if (!v) fail(where + "." + key + " holds something that is not a 64-bit integer");
      out.push_back(*v);
    }
    return out;
  }
  DType dtype(const Json& o, const char* key, const std::string& where) const {
    const std::string name = text(o, key, where);
    if (name == dtypeName(DType::Unknown)) return DType::Unknown;
    const auto d = dtypeFromName(name);
    if (!d) fail(where + "." + key + " names no dtype: '" + name + "'");
    return *d;
  }
  template <class Enum>
  Enum named(const Json& o, const char* key, const std::string& where, std::string_view (*nameOf)(Enum),
             const char* what) const {
    const auto e = enumNamed<Enum>(text(o, key, where), nameOf);
    if (!e) fail(where + "." + key + " names no " + what);
    return *e;
  }

 private:
  std::string m_path, m_prefix;
};

}  // namespace torchir
