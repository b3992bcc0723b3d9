#pragma once
// Helpers for the fuzz targets: the readers take paths, so the fuzzer's bytes become a file in
// memory (memfd), named by /proc/self/fd/N as any file would be.
#include <sys/mman.h>
#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "program/LoadError.h"
#include "program/TensorData.h"

namespace torchir::fuzz {

/// The bytes as an anonymous regular file; closed when it goes out of scope.
class MemoryFile {
 public:
  MemoryFile(const uint8_t* data, std::size_t size) : m_fd(memfd_create("fuzz", MFD_CLOEXEC)) {
    for (std::size_t at = 0; m_fd >= 0 && at < size;) {
      const ssize_t n = ::write(m_fd, data + at, size - at);
      if (n <= 0) break;
      at += static_cast<std::size_t>(n);
    }
  }
  ~MemoryFile() {
    if (m_fd >= 0) ::close(m_fd);
  }
  MemoryFile(const MemoryFile&) = delete;
  MemoryFile& operator=(const MemoryFile&) = delete;
  std::string path() const { return "/proc/self/fd/" + std::to_string(m_fd); }

 private:
  int m_fd;
};

/// 4 KB of bytes standing for an ETDump's debug buffer: every tensor view must lie inside it.
inline std::shared_ptr<const Storage> fixedDebugBuffer() {
  static const std::vector<std::byte> bytes(4096, std::byte{0x3f});
  auto buffer = std::make_shared<Storage>();
  buffer->data = bytes.data();
  buffer->nbytes = bytes.size();
  buffer->origin = "debug buffer";
  return buffer;
}

/// Runs `read`; a LoadError (the readers' one way to refuse a file) is an expected outcome, and
/// its message must be one line. Anything else escapes and the fuzzer reports it.
template <class F>
void expectLoadErrorOrSuccess(F&& read) {
  try {
    read();
  } catch (const LoadError& e) {
    const std::string what = e.what();
    if (what.find('\n') != std::string::npos) __builtin_trap();
  }
}

}  // namespace torchir::fuzz
