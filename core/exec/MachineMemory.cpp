#include "MachineMemory.h"

#include <unistd.h>

#include <algorithm>
#include <charconv>
#include <fstream>
#include <sstream>
#include <vector>

namespace torchir {
namespace {

/// A limit file's number ("max" and the v1 "no limit", a page-rounded INT64_MAX, read as none).
std::optional<std::size_t> readLimit(const std::string& path) {
  std::ifstream in(path);
  if (!in) return std::nullopt;
  char text[32] = {};
  in.read(text, sizeof text - 1);  // a limit is at most 20 digits: anything longer is not one
  const std::size_t n = static_cast<std::size_t>(in.gcount());
  std::size_t value = 0;
  const auto [end, ec] = std::from_chars(text, text + n, value);
  if (ec != std::errc() || end == text) return std::nullopt;
  for (const char* c = end; c < text + n; ++c)
    if (*c != '\n' && *c != ' ') return std::nullopt;  // "12abc" is no limit
  if (value >= (std::size_t(1) << 62)) return std::nullopt;
  return value;
}

/// `dir` and each folder above it up to `root`: a parent's limit binds its children too.
std::optional<std::size_t> lowestOnPath(const std::string& root, const std::string& path, const char* file) {
  std::optional<std::size_t> lowest;
  std::string dir = path;
  for (int depth = 0; depth < 64; ++depth) {  // the kernel's paths are shallow; bounded all the same
    if (const auto limit = readLimit(root + dir + (dir.empty() || dir.back() != '/' ? "/" : "") + file))
      lowest = std::min(lowest.value_or(*limit), *limit);
    if (dir.empty() || dir == "/") break;
    const auto slash = dir.find_last_of('/');
    dir = slash == std::string::npos ? std::string() : dir.substr(0, slash);
  }
  return lowest;
}

}  // namespace

std::optional<std::size_t> cgroupMemoryLimit(const std::string& cgroupFile, const std::string& root) {
  std::optional<std::size_t> lowest;
  auto take = [&](std::optional<std::size_t> limit) {
    if (limit) lowest = std::min(lowest.value_or(*limit), *limit);
  };
  std::istringstream lines(cgroupFile);
  std::string line;
  for (int count = 0; count < 256 && std::getline(lines, line); ++count) {
    // "ID:CONTROLLERS:PATH"; v2's is "0::PATH"
    const auto first = line.find(':');
    const auto second = first == std::string::npos ? first : line.find(':', first + 1);
    if (second == std::string::npos) continue;
    const std::string controllers = line.substr(first + 1, second - first - 1);
    const std::string path = line.substr(second + 1);
    if (path.empty() || path[0] != '/' || path.find("/..") != std::string::npos) continue;
    if (controllers.empty()) {
      // v2: unified at the root (pure v2) or at root/unified (hybrid)
      take(lowestOnPath(root, path, "memory.max"));
      take(lowestOnPath(root + "/unified", path, "memory.max"));
      continue;
    }
    std::istringstream names(controllers);
    for (std::string name; std::getline(names, name, ',');)
      if (name == "memory") take(lowestOnPath(root + "/memory", path, "memory.limit_in_bytes"));
  }
  return lowest;
}

std::size_t usableMemory() {
  static const std::size_t usable = [] {
    const long pages = sysconf(_SC_PHYS_PAGES), size = sysconf(_SC_PAGE_SIZE);
    std::size_t physical = pages > 0 && size > 0 ? static_cast<std::size_t>(pages) * static_cast<std::size_t>(size)
                                                 : std::size_t(16) << 30;
    std::ifstream in("/proc/self/cgroup");
    std::string text(64 * 1024, '\0');
    in.read(text.data(), static_cast<std::streamsize>(text.size()));
    text.resize(static_cast<std::size_t>(in.gcount()));
    if (const auto limit = cgroupMemoryLimit(text, "/sys/fs/cgroup")) physical = std::min(physical, *limit);
    return physical;
  }();
  return usable;
}

}  // namespace torchir
