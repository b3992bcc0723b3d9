#pragma once
#include <cstddef>
#include <memory>
#include <string>

namespace torchir {

/// A read-only memory map of a whole file. Weights point into it, so it lives as long as they do.
class MappedFile {
 public:
  /// Throws LoadError when the file cannot be opened or mapped.
  static std::shared_ptr<const MappedFile> open(const std::string& path);
  ~MappedFile();
  MappedFile(const MappedFile&) = delete;
  MappedFile& operator=(const MappedFile&) = delete;

  const std::byte* data() const { return m_data; }
  std::size_t size() const { return m_size; }
  const std::string& path() const { return m_path; }

 private:
  MappedFile(std::string path, const std::byte* data, std::size_t size)
      : m_path(std::move(path)), m_data(data), m_size(size) {}
  std::string m_path;
  const std::byte* m_data;
  std::size_t m_size;
};

}  // namespace torchir
