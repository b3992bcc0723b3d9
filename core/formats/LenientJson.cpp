#include "LenientJson.h"

#include <cmath>
#include <cstring>
#include <limits>

#include "program/LoadError.h"
#include "program/PythonRepr.h"

namespace torchir {
namespace {

// Markers for the bare tokens; they start with U+0001, which no real name or attribute holds.
constexpr std::string_view kNaN = "\x01torchir:NaN";
constexpr std::string_view kInf = "\x01torchir:Infinity";
constexpr std::string_view kNegInf = "\x01torchir:-Infinity";

std::string quoteMarkers(std::string_view text) {
  std::string out;
  out.reserve(text.size() + 16);
  bool inString = false;
  for (std::size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (inString) {
      out += c;
      if (c == '\\' && i + 1 < text.size()) out += text[++i];
      else if (c == '"') inString = false;
      continue;
    }
    if (c == '"') inString = true;
    auto token = [&](std::string_view word, std::string_view marker) {
      if (text.compare(i, word.size(), word) != 0) return false;
      out += '"';
      out += "\\u0001";
      out += marker.substr(1);
      out += '"';
      i += word.size() - 1;
      return true;
    };
    if ((c == 'N' && token("NaN", kNaN)) || (c == 'I' && token("Infinity", kInf)) ||
        (c == '-' && token("-Infinity", kNegInf)))
      continue;
    out += c;
  }
  return out;
}

template <class Json>
void restoreMarkers(Json& j) {
  if (j.is_string()) {
    const auto& s = j.template get_ref<const std::string&>();
    if (s.size() > 1 && s[0] == '\x01') {
      if (s == kNaN) j = std::numeric_limits<double>::quiet_NaN();
      else if (s == kInf) j = std::numeric_limits<double>::infinity();
      else if (s == kNegInf) j = -std::numeric_limits<double>::infinity();
    }
  } else if (j.is_structured()) {
    for (auto& child : j) restoreMarkers(child);
  }
}

void escapeString(std::string& out, const std::string& s) {
  out += '"';
  for (std::size_t i = 0; i < s.size(); ++i) {
    const auto c = static_cast<unsigned char>(s[i]);
    switch (c) {
      case '"': out += "\\\""; break;
      case '\\': out += "\\\\"; break;
      case '\n': out += "\\n"; break;
      case '\r': out += "\\r"; break;
      case '\t': out += "\\t"; break;
      case '\b': out += "\\b"; break;
      case '\f': out += "\\f"; break;
      default:
        if (c < 0x20 || c >= 0x80) {
          // decode UTF-8 and escape as Python's ensure_ascii does
          uint32_t cp = c;
          int extra = 0;
          if (c >= 0xF0) cp = c & 0x07, extra = 3;
          else if (c >= 0xE0) cp = c & 0x0F, extra = 2;
          else if (c >= 0xC0) cp = c & 0x1F, extra = 1;
          for (int k = 0; k < extra && i + 1 < s.size(); ++k) cp = (cp << 6) | (static_cast<unsigned char>(s[++i]) & 0x3F);
          char buf[16];
          if (cp >= 0x10000) {
            cp -= 0x10000;
            std::snprintf(buf, sizeof buf, "\\u%04x\\u%04x", 0xD800 + (cp >> 10), 0xDC00 + (cp & 0x3FF));
          } else {
            std::snprintf(buf, sizeof buf, "\\u%04x", cp);
          }
          out += buf;
        } else {
          out += static_cast<char>(c);
        }
    }
  }
  out += '"';
}

void dump(std::string& out, const nlohmann::ordered_json& j, int indent, int depth) {
  const std::string pad = "\n" + std::string(static_cast<std::size_t>(indent * (depth + 1)), ' ');
  const std::string closePad = "\n" + std::string(static_cast<std::size_t>(indent * depth), ' ');
  switch (j.type()) {
    case nlohmann::json::value_t::object: {
      if (j.empty()) {
        out += "{}";
        return;
      }
      out += '{';
      bool first = true;
      for (auto it = j.begin(); it != j.end(); ++it) {
        out += first ? "" : ",";
        first = false;
        out += pad;
        escapeString(out, it.key());
        out += ": ";
        dump(out, it.value(), indent, depth + 1);
      }
      out += closePad + "}";
      return;
    }
    case nlohmann::json::value_t::array: {
      if (j.empty()) {
        out += "[]";
        return;
      }
      out += '[';
      bool first = true;
      for (const auto& v : j) {
        out += first ? "" : ",";
        first = false;
        out += pad;
        dump(out, v, indent, depth + 1);
      }
      out += closePad + "]";
      return;
    }
    case nlohmann::json::value_t::string: escapeString(out, j.get_ref<const std::string&>()); return;
    case nlohmann::json::value_t::number_float: {
      const double v = j.get<double>();
      if (std::isnan(v)) out += "NaN";
      else if (std::isinf(v)) out += v > 0 ? "Infinity" : "-Infinity";
      else out += pythonFloatRepr(v);
      return;
    }
    case nlohmann::json::value_t::null: out += "null"; return;
    default: out += j.dump(); return;  // bool and integers print as Python does
  }
}

}  // namespace

double serializedFloat(const nlohmann::json& f) {
  if (f.is_string()) {
    const auto& s = f.get_ref<const std::string&>();
    if (s == "Infinity") return std::numeric_limits<double>::infinity();
    if (s == "-Infinity") return -std::numeric_limits<double>::infinity();
    if (s == "NaN") return std::numeric_limits<double>::quiet_NaN();
  }
  return f.get<double>();
}

namespace {

/// Strict JSON unless the text holds a marker: most files have no bare NaN/Infinity, and quoting
/// markers in a 30 MB program costs a copy of it plus a walk of the whole tree. Text that mentions
/// NaN or Infinity anywhere (a bare value or inside a string) takes the lenient way.
template <typename Json>
Json parseLenient(std::string_view text) {
  if (text.find("NaN") == std::string_view::npos && text.find("Infinity") == std::string_view::npos)
    return Json::parse(text.begin(), text.end());
  auto j = Json::parse(quoteMarkers(text));
  restoreMarkers(j);
  return j;
}

template <typename Json>
Json parseFile(std::string_view text, const std::string& file, const std::string& what) {
  refuseDeepJson(scanJson(text, kMaxJsonDepth), file, what);
  try {
    return parseLenient<Json>(text);
  } catch (const nlohmann::json::parse_error& e) {
    throw LoadError(file, what + " is not valid JSON (syntax error at byte " + std::to_string(e.byte) + ")");
  } catch (const nlohmann::json::exception&) {
    throw LoadError(file, what + " is not valid JSON");
  }
}

}  // namespace

JsonScan scanJson(std::string_view text, int limit) {
  // Most of a program's bytes are inside strings: memchr (vectorized) jumps to each string's end.
  const char* p = text.data();
  const char* const end = p + text.size();
  JsonScan scan;
  int depth = 0;
  while (p < end) {
    const char c = *p++;
    if (c == '"') {
      for (;;) {
        const auto* quote = static_cast<const char*>(std::memchr(p, '"', static_cast<std::size_t>(end - p)));
        if (!quote) return scan;
        std::size_t backslashes = 0;
        while (quote - backslashes > p && quote[-1 - static_cast<std::ptrdiff_t>(backslashes)] == '\\') ++backslashes;
        p = quote + 1;
        if (backslashes % 2 == 0) break;  // not escaped: the string ends here
      }
    } else if (c == '[' || c == '{') {
      if (++depth > scan.depth && (scan.depth = depth) > limit) return scan;
    } else if (c == ']' || c == '}') {
      --depth;
    } else if (c == 'N' || c == 'I') {
      scan.bareNonFinite = true;
    }
  }
  return scan;
}

int jsonNestingDepth(std::string_view text, int limit) { return scanJson(text, limit).depth; }

void refuseDeepJson(const JsonScan& scan, const std::string& file, const std::string& what) {
  if (scan.depth > kMaxJsonDepth)
    throw LoadError(file, what + " nests deeper than " + std::to_string(kMaxJsonDepth) + " levels");
}

std::string quoteNonFinite(std::string_view text) { return quoteMarkers(text); }

std::optional<double> nonFiniteMarker(std::string_view s) {
  if (s.empty() || s[0] != '\x01') return std::nullopt;
  if (s == kNaN) return std::numeric_limits<double>::quiet_NaN();
  if (s == kInf) return std::numeric_limits<double>::infinity();
  if (s == kNegInf) return -std::numeric_limits<double>::infinity();
  return std::nullopt;
}

nlohmann::json parseFileJson(std::string_view text, const std::string& file, const std::string& what) {
  return parseFile<nlohmann::json>(text, file, what);
}

nlohmann::ordered_json parseFileOrderedJson(std::string_view text, const std::string& file, const std::string& what) {
  return parseFile<nlohmann::ordered_json>(text, file, what);
}

nlohmann::json parseLenientJson(std::string_view text) { return parseLenient<nlohmann::json>(text); }

nlohmann::ordered_json parseLenientOrderedJson(std::string_view text) {
  return parseLenient<nlohmann::ordered_json>(text);
}

std::string dumpPythonJson(const nlohmann::ordered_json& value, int indent) {
  std::string out;
  dump(out, value, indent, 0);
  return out;
}

}  // namespace torchir
