#pragma once
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>

namespace torchir {

/// Parses JSON as Python's json module writes it: bare `NaN`, `Infinity` and `-Infinity` are
/// accepted and become floating-point numbers. Throws nlohmann::json::parse_error.
nlohmann::json parseLenientJson(std::string_view text);
/// The same, keeping the order of object keys (pytorch-ir's attrs are ordered).
nlohmann::ordered_json parseLenientOrderedJson(std::string_view text);

/// A float of the ExportedProgram schema: a number, or the strings "Infinity", "-Infinity", "NaN".
double serializedFloat(const nlohmann::json& value);

/// Writes JSON the way Python's `json.dumps(obj, indent=2)` does: same separators, floats as
/// Python repr (`1e-05`, `Infinity`, `NaN`), non-ASCII escaped. Keys keep the object's order.
std::string dumpPythonJson(const nlohmann::ordered_json& value, int indent = 2);

}  // namespace torchir
