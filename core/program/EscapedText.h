#pragma once
// Text from an input (a node name, a value name, a module path or class, a target, a stack trace, a
// file's name) written into a file of another language must stay data there, whatever it holds:
// quotes, newlines, markup, a formula start, code, bytes that are not UTF-8 (a file's name can hold
// them). One helper per language; every writer of that language uses it, and
// tests/writers/check_writers.py feeds each writer a program of hostile names and parses what it
// wrote. Header-only: torchir_core and torchir_layout both use it.
#include <cstdint>
#include <cstdio>
#include <string>
#include <string_view>

namespace torchir {

namespace utf8 {
/// What a byte starts: `n` bytes in all (0: it starts nothing), the second one in [lo, hi]
/// (Unicode's table 3-7), the later ones in [80, BF].
struct Lead {
  std::size_t n = 0;
  unsigned lo = 0x80, hi = 0xBF;
};
inline Lead leadOf(unsigned char c) {
  if (c < 0x80) return {1};
  if (c >= 0xC2 && c <= 0xDF) return {2};
  if (c >= 0xE0 && c <= 0xEF) return {3, c == 0xE0 ? 0xA0u : 0x80u, c == 0xED ? 0x9Fu : 0xBFu};
  if (c >= 0xF0 && c <= 0xF4) return {4, c == 0xF0 ? 0x90u : 0x80u, c == 0xF4 ? 0x8Fu : 0xBFu};
  return {};
}
/// How many bytes from `s[i]` fit the sequence its first byte starts (at least 1).
inline std::size_t fitting(std::string_view s, std::size_t i) {
  const Lead l = leadOf(static_cast<unsigned char>(s[i]));
  std::size_t k = 1;
  for (; k < l.n && i + k < s.size(); ++k) {
    const auto b = static_cast<unsigned char>(s[i + k]);
    if (k == 1 ? b < l.lo || b > l.hi : b < 0x80 || b > 0xBF) break;
  }
  return k;
}
}  // namespace utf8

/// The length of the well-formed UTF-8 sequence that starts at `s[i]` (1 to 4), or 0 when none does
/// (a stray continuation byte, an overlong form, a surrogate, past U+10FFFF, a cut sequence).
inline std::size_t utf8SequenceLength(std::string_view s, std::size_t i) {
  const std::size_t n = utf8::leadOf(static_cast<unsigned char>(s[i])).n;
  return n != 0 && utf8::fitting(s, i) == n ? n : 0;
}

/// `s` with each maximal ill-formed part (a lead byte and the bytes that still fitted its sequence,
/// or one stray byte) replaced by U+FFFD, as nlohmann's error_handler_t::replace and Python's
/// decode("utf-8", "replace") do.
inline std::string validUtf8(std::string_view s) {
  std::string out;
  out.reserve(s.size());
  for (std::size_t i = 0; i < s.size();) {
    const std::size_t k = utf8::fitting(s, i);
    if (utf8::leadOf(static_cast<unsigned char>(s[i])).n == k) out.append(s.substr(i, k));
    else out += "\xEF\xBF\xBD";
    i += k;
  }
  return out;
}

/// XML character data or a double-quoted attribute value (SVG): `& < > " '` as entities; tab,
/// newline and carriage return as character references (a parser reads a raw carriage return as a
/// newline, and both as spaces in an attribute); what XML 1.0 cannot hold at all (the other C0
/// controls, U+FFFE, U+FFFF) and bytes that are not UTF-8 as U+FFFD.
inline std::string xmlEscaped(std::string_view s) {
  const std::string v = validUtf8(s);
  std::string out;
  out.reserve(v.size());
  for (std::size_t i = 0; i < v.size(); ++i) {
    const auto c = static_cast<unsigned char>(v[i]);
    switch (c) {
      case '&': out += "&amp;"; break;
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '"': out += "&quot;"; break;
      case '\'': out += "&apos;"; break;
      case '\t': out += "&#9;"; break;
      case '\n': out += "&#10;"; break;
      case '\r': out += "&#13;"; break;
      default:
        if (c < 0x20) out += "\xEF\xBF\xBD";
        else if (c == 0xEF && i + 2 < v.size() && static_cast<unsigned char>(v[i + 1]) == 0xBF &&
                 (static_cast<unsigned char>(v[i + 2]) == 0xBE || static_cast<unsigned char>(v[i + 2]) == 0xBF))
          out += "\xEF\xBF\xBD", i += 2;  // U+FFFE, U+FFFF
        else out += static_cast<char>(c);
    }
  }
  return out;
}

/// A CSV field (RFC 4180) that holds text: quoted, quotes doubled, when it holds a comma, a quote,
/// a newline or a carriage return. A text that starts with `=`, `+`, `-`, `@`, a tab or a carriage
/// return, which a spreadsheet would run as a formula (OWASP's CSV injection), gets a single quote
/// before it, as spreadsheets expect. Bytes that are not UTF-8 become U+FFFD. Never for numbers: a
/// negative number starts with `-`.
inline std::string csvTextField(std::string_view s) {
  std::string v = validUtf8(s);
  if (!v.empty() && std::string_view("=+-@\t\r").find(v.front()) != std::string_view::npos) v.insert(0, 1, '\'');
  if (v.find_first_of(",\"\n\r") == std::string::npos) return v;
  std::string out = "\"";
  for (char c : v) out += c == '"' ? std::string("\"\"") : std::string(1, c);
  return out + "\"";
}

/// A Python str literal, in ASCII, whose value is `s` as Python's os.fsdecode reads bytes: UTF-8,
/// each byte that is not UTF-8 as the surrogate escape U+DC80+byte, so a file's name round-trips
/// into a path Python opens. Quotes, backslashes and every non-printable or non-ASCII character are
/// escapes: the literal can never end early, and the source stays one line of ASCII.
inline std::string pythonStrLiteral(std::string_view s) {
  std::string out = "\"";
  char buf[16];
  for (std::size_t i = 0; i < s.size();) {
    const auto c = static_cast<unsigned char>(s[i]);
    const std::size_t n = utf8SequenceLength(s, i);
    if (n == 0) {
      std::snprintf(buf, sizeof buf, "\\udc%02x", c);
      out += buf;
      ++i;
      continue;
    }
    if (n == 1) {
      if (c == '"' || c == '\\') out += '\\', out += static_cast<char>(c);
      else if (c == '\n') out += "\\n";
      else if (c == '\r') out += "\\r";
      else if (c == '\t') out += "\\t";
      else if (c < 0x20 || c == 0x7f) std::snprintf(buf, sizeof buf, "\\x%02x", c), out += buf;
      else out += static_cast<char>(c);
      ++i;
      continue;
    }
    uint32_t cp = c & (n == 2 ? 0x1F : n == 3 ? 0x0F : 0x07);
    for (std::size_t k = 1; k < n; ++k) cp = (cp << 6) | (static_cast<unsigned char>(s[i + k]) & 0x3F);
    std::snprintf(buf, sizeof buf, cp > 0xFFFF ? "\\U%08x" : "\\u%04x", cp);
    out += buf;
    i += n;
  }
  return out + "\"";
}

/// JSON text of a document that holds strangers' strings: nlohmann's dump() throws type_error 316 on
/// a string that is not UTF-8 (a file's name can be one); this writes U+FFFD for its bad bytes
/// instead, so the output is always JSON. `Json` is nlohmann::json or nlohmann::ordered_json.
template <class Json>
std::string jsonText(const Json& j, int indent = -1) {
  return j.dump(indent, ' ', false, Json::error_handler_t::replace);
}

}  // namespace torchir
