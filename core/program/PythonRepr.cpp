#include "PythonRepr.h"

#include <charconv>
#include <cmath>
#include <cstdio>

namespace torchir {

std::string pythonFloatRepr(double v) {
  if (std::isnan(v)) return "nan";
  if (std::isinf(v)) return v > 0 ? "inf" : "-inf";
  // Shortest round-trip digits in scientific form, then laid out the way float_repr_style does.
  char buf[64];
  auto res = std::to_chars(buf, buf + sizeof buf, v, std::chars_format::scientific);
  std::string sci(buf, res.ptr);
  const auto e = sci.find('e');
  std::string mant = sci.substr(0, e);
  const int exp = std::stoi(sci.substr(e + 1));
  bool negative = false;
  if (mant[0] == '-') {
    negative = true;
    mant.erase(0, 1);
  }
  std::string digits;
  for (char c : mant)
    if (c != '.') digits.push_back(c);
  std::string out;
  if (exp < -4 || exp >= 16) {
    out = digits.substr(0, 1);
    if (digits.size() > 1) out += "." + digits.substr(1);
    char ebuf[16];
    std::snprintf(ebuf, sizeof ebuf, "e%c%02d", exp < 0 ? '-' : '+', std::abs(exp));
    out += ebuf;
  } else if (exp < 0) {
    out = "0." + std::string(static_cast<std::size_t>(-exp - 1), '0') + digits;
  } else {
    const auto intLen = static_cast<std::size_t>(exp + 1);
    if (digits.size() <= intLen)
      out = digits + std::string(intLen - digits.size(), '0') + ".0";
    else
      out = digits.substr(0, intLen) + "." + digits.substr(intLen);
  }
  return negative ? "-" + out : out;
}

std::string pythonStringRepr(std::string_view s) {
  const bool useDouble = s.find('\'') != std::string_view::npos && s.find('"') == std::string_view::npos;
  const char q = useDouble ? '"' : '\'';
  std::string out(1, q);
  for (char c : s) {
    if (c == q || c == '\\') out += '\\';
    if (c == '\n') {
      out += "\\n";
      continue;
    }
    if (c == '\t') {
      out += "\\t";
      continue;
    }
    out += c;
  }
  out += q;
  return out;
}

}  // namespace torchir
