#pragma once
// A zip of stored (uncompressed) entries, written in memory: the frame around fuzzed records.
#include <zlib.h>

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace torchir::fuzz {

inline std::string storedZip(const std::vector<std::pair<std::string, std::string>>& entries) {
  std::string out, directory;
  auto le = [](std::string& s, uint64_t v, int n) {
    for (int i = 0; i < n; ++i) s.push_back(static_cast<char>((v >> (8 * i)) & 0xff));
  };
  for (const auto& [name, data] : entries) {
    const auto crc = crc32(0, reinterpret_cast<const Bytef*>(data.data()), static_cast<uInt>(data.size()));
    const auto offset = out.size();
    le(out, 0x04034b50, 4), le(out, 20, 2), le(out, 0, 2), le(out, 0, 2), le(out, 0, 4), le(out, crc, 4);
    le(out, data.size(), 4), le(out, data.size(), 4), le(out, name.size(), 2), le(out, 0, 2);
    out += name + data;
    le(directory, 0x02014b50, 4), le(directory, 20, 2), le(directory, 20, 2), le(directory, 0, 2);
    le(directory, 0, 2), le(directory, 0, 4), le(directory, crc, 4), le(directory, data.size(), 4);
    le(directory, data.size(), 4), le(directory, name.size(), 2), le(directory, 0, 2), le(directory, 0, 2);
    le(directory, 0, 2), le(directory, 0, 2), le(directory, 0, 4), le(directory, offset, 4);
    directory += name;
  }
  const auto start = out.size();
  out += directory;
  le(out, 0x06054b50, 4), le(out, 0, 2), le(out, 0, 2), le(out, entries.size(), 2), le(out, entries.size(), 2);
  le(out, directory.size(), 4), le(out, start, 4), le(out, 0, 2);
  return out;
}

}  // namespace torchir::fuzz
