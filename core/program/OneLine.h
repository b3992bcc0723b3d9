#pragma once
// Messages that name things from a file (record, tensor and node names) must stay one line and
// readable: a name can hold newlines, escape sequences or megabytes of text.
#include <algorithm>
#include <string>
#include <string_view>

namespace torchir {

/// `text` with control characters as `\n`, `\x1b`, ... and the rest cut after `limit` bytes (at a
/// character boundary) with "...".
inline std::string oneLine(std::string_view text, std::size_t limit = 600) {
  std::string out;
  out.reserve(std::min(text.size(), limit) + 8);
  static const char* hex = "0123456789abcdef";
  for (std::size_t i = 0; i < text.size(); ++i) {
    if (out.size() >= limit) {
      while (!out.empty() && (static_cast<unsigned char>(out.back()) & 0xC0) == 0x80) out.pop_back();  // a split character
      if (!out.empty() && static_cast<unsigned char>(out.back()) >= 0xC0) out.pop_back();
      out += "...";
      break;
    }
    const auto c = static_cast<unsigned char>(text[i]);
    if (c == '\n') out += "\\n";
    else if (c == '\r') out += "\\r";
    else if (c == '\t') out += "\\t";
    else if (c < 0x20 || c == 0x7f) out += {'\\', 'x', hex[c >> 4], hex[c & 15]};
    else out += static_cast<char>(c);
  }
  return out;
}

/// The first line of a message (libtorch's errors go on with context lines and a backtrace).
inline std::string firstLine(std::string_view text) {
  const auto end = text.find('\n');
  return oneLine(end == std::string_view::npos ? text : text.substr(0, end));
}

}  // namespace torchir
