#pragma once
#include <string>
#include <string_view>

namespace torchir {

/// Python's repr() of a float: shortest round-trip digits, `1e-05`, `inf`, `nan`, `2.0`.
std::string pythonFloatRepr(double v);
/// Python's repr() of a str: single quotes unless the text holds one and no double quote.
std::string pythonStringRepr(std::string_view s);

}  // namespace torchir
