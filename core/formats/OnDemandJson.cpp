#include "OnDemandJson.h"

#include <limits>

#include "LenientJson.h"
#include "program/LoadError.h"

namespace torchir::json {

void Reader::fail(std::string_view what) const { throw LoadError(m_file, std::string(what)); }

void Reader::fail(simdjson::error_code e, std::string_view what) const {
  switch (e) {
    case simdjson::INCORRECT_TYPE:
    case simdjson::NO_SUCH_FIELD:
    case simdjson::NUMBER_OUT_OF_RANGE:
    case simdjson::INDEX_OUT_OF_BOUNDS: fail(what);
    default: fail(m_record + " is not valid JSON (" + simdjson::error_message(e) + ")");
  }
}

std::optional<std::string_view> keyInPlace(const od::raw_json_string& key) {
  // The text's closing quote is there (simdjson's first pass pairs every quote before On-Demand
  // reads), so the scan ends at it at the latest; a key past this length is unescaped instead.
  constexpr std::size_t kLongestPlainKey = 256;
  const char* text = key.raw();
  for (std::size_t n = 0; n < kLongestPlainKey; ++n) {
    if (text[n] == '"') return std::string_view(text, n);
    if (text[n] == '\\') return std::nullopt;
  }
  return std::nullopt;
}

od::object Reader::object(od::value v, std::string_view what) const {
  od::object o;
  if (const auto e = v.get_object().get(o)) fail(e, std::string(what) + " is not an object");
  return o;
}

od::array Reader::array(od::value v, std::string_view what) const {
  od::array a;
  if (const auto e = v.get_array().get(a)) fail(e, std::string(what) + " is not an array");
  return a;
}

simdjson::error_code stringOf(od::value& v, std::string_view& out) {
  // The token runs from the opening quote to the next token: without a backslash, the first
  // quote after the opening one closes the string.
  const std::string_view token = v.raw_json_token();
  if (token.size() >= 2 && token.front() == '"') {
    const auto end = token.find_first_of("\"\\", 1);
    if (end != std::string_view::npos && token[end] == '"') {
      od::raw_json_string consumed;  // the value is read: On-Demand moves past it
      if (const auto e = v.get_raw_json_string().get(consumed)) return e;
      out = token.substr(1, end - 1);
      return simdjson::SUCCESS;
    }
  }
  return v.get_string().get(out);
}

std::string_view Reader::string(od::value v, std::string_view what) const {
  std::string_view s;
  if (const auto e = stringOf(v, s)) fail(e, std::string(what) + " is not a string");
  return s;
}

bool Reader::boolean(od::value v, std::string_view what) const {
  bool b = false;
  if (const auto e = v.get_bool().get(b)) fail(e, std::string(what) + " is not true or false");
  return b;
}

int64_t Reader::int64(od::value v, std::string_view what) const {
  const auto i = exactInt(v);
  if (!i) fail(std::string(what) + " is not a 64-bit integer");
  return *i;
}

void parseObject(std::string_view text, std::size_t readable, const Reader& r,
                 const std::function<void(od::object)>& build) {
  auto attempt = [&](simdjson::padded_string_view view) {
    od::parser parser;
    od::document doc;
    od::object top;
    if (const auto e = parser.iterate(view).get(doc)) r.fail(e, r.record() + " is not JSON");
    if (const auto e = doc.get_object().get(top)) r.fail(e, r.record() + " is not a JSON object");
    try {
      build(top);
    } catch (const simdjson::simdjson_error& e) {
      r.fail(e.error(), r.record());
    }
  };
  try {
    if (readable >= text.size() + simdjson::SIMDJSON_PADDING) {
      attempt(simdjson::padded_string_view(text.data(), text.size(), readable));
    } else {
      const simdjson::padded_string padded(text);
      attempt(padded);
    }
  } catch (const LoadError&) {
    const JsonScan scan = scanJson(text, kMaxJsonDepth);
    refuseDeepJson(scan, r.file(), r.record());
    if (!scan.bareNonFinite) throw;
    const simdjson::padded_string quoted(quoteNonFinite(text));
    attempt(quoted);
  }
}

od::json_type typeOf(const Reader& r, od::value& v) {
  od::json_type t;
  if (const auto e = v.type().get(t)) r.fail(e, "a value");
  return t;
}

std::optional<int64_t> exactInt(od::value& v) {
  od::json_type t;
  bool integer = false;
  int64_t i = 0;
  if (v.type().get(t) || t != od::json_type::number || v.is_integer().get(integer) || !integer) return std::nullopt;
  if (v.get_int64().get(i)) return std::nullopt;  // past int64
  return i;
}

std::optional<double> floatOf(od::value& v) {
  od::json_type t;
  if (v.type().get(t)) return std::nullopt;
  if (t == od::json_type::number) {
    double d = 0;
    if (v.get_double().get(d)) return std::nullopt;
    return d;
  }
  std::string_view s;
  if (t != od::json_type::string || v.get_string().get(s)) return std::nullopt;
  if (const auto marked = nonFiniteMarker(s)) return marked;
  if (s == "Infinity") return std::numeric_limits<double>::infinity();
  if (s == "-Infinity") return -std::numeric_limits<double>::infinity();
  if (s == "NaN") return std::numeric_limits<double>::quiet_NaN();
  return std::nullopt;
}

std::string rawText(const Reader& r, od::value v) {
  std::string_view text;
  switch (typeOf(r, v)) {
    case od::json_type::object: {
      od::object o = r.object(v, "a value");
      if (const auto e = o.raw_json().get(text)) r.fail(e, "a value");
      break;
    }
    case od::json_type::array: {
      od::array a = r.array(v, "a value");
      if (const auto e = a.raw_json().get(text)) r.fail(e, "a value");
      break;
    }
    default: text = v.raw_json_token(); break;
  }
  while (!text.empty() && (text.back() == ' ' || text.back() == '\n' || text.back() == '\r' || text.back() == '\t'))
    text.remove_suffix(1);
  return std::string(text);
}

}  // namespace torchir::json
