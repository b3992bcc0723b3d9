#pragma once
#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>

namespace torchir {

/// Parses JSON as Python's json module writes it: bare `NaN`, `Infinity` and `-Infinity` are
/// accepted and become floating-point numbers. Throws nlohmann::json::parse_error.
nlohmann::json parseLenientJson(std::string_view text);
/// The same, keeping the order of object keys (pytorch-ir's attrs are ordered).
nlohmann::ordered_json parseLenientOrderedJson(std::string_view text);

/// JSON from a file nests at most this deep: walking, copying or freeing a tree recurses once per
/// level, so deeper text is refused before it is parsed. A program with subgraphs nested ten deep
/// stays under 150.
constexpr int kMaxJsonDepth = 512;

/// parseLenientJson for a file's text: throws LoadError naming `file` and `what` (a record, a
/// header) with the problem in one line: syntax error at a byte, or nesting past kMaxJsonDepth.
nlohmann::json parseFileJson(std::string_view text, const std::string& file, const std::string& what);
nlohmann::ordered_json parseFileOrderedJson(std::string_view text, const std::string& file, const std::string& what);

/// The deepest nesting of arrays and objects in JSON text (strings skipped), stopping once it
/// passes `limit`: linear, no recursion, no allocation.
int jsonNestingDepth(std::string_view text, int limit);

/// What one linear walk of JSON text tells before it is parsed: its depth (as jsonNestingDepth)
/// and whether a letter N or I stands outside a string (Python's bare NaN and Infinity).
struct JsonScan {
  int depth = 0;
  bool bareNonFinite = false;
};
JsonScan scanJson(std::string_view text, int limit);

/// Throws LoadError naming `file` and `what` when the text nests deeper than kMaxJsonDepth.
void refuseDeepJson(const JsonScan& scan, const std::string& file, const std::string& what);

/// The text with bare NaN, Infinity and -Infinity replaced by marker strings, for parsers that
/// take strict JSON; nonFiniteMarker() reads a marker back as its float.
std::string quoteNonFinite(std::string_view text);
std::optional<double> nonFiniteMarker(std::string_view s);

/// An integer JSON number that fits int64 exactly; nullopt for floats (`2.5`, `2.0`), strings,
/// or unsigned numbers past INT64_MAX, which a plain get<int64_t>() would truncate or wrap.
template <class Json>
std::optional<int64_t> exactInt64(const Json& v) {
  if (v.is_number_unsigned()) {
    const auto u = v.template get<uint64_t>();
    if (u > static_cast<uint64_t>(INT64_MAX)) return std::nullopt;
    return static_cast<int64_t>(u);
  }
  if (v.is_number_integer()) return v.template get<int64_t>();
  return std::nullopt;
}

/// A float of the ExportedProgram schema: a number, or the strings "Infinity", "-Infinity", "NaN".
double serializedFloat(const nlohmann::json& value);

/// Writes JSON the way Python's `json.dumps(obj, indent=2)` does: same separators, floats as
/// Python repr (`1e-05`, `Infinity`, `NaN`), non-ASCII escaped. Keys keep the object's order.
std::string dumpPythonJson(const nlohmann::ordered_json& value, int indent = 2);

}  // namespace torchir
