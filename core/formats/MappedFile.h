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

  /// How the map will be read, for the kernel's read-around on a page fault (several MB on some
  /// disks): Scattered while a reader visits a record header here and there (a .pt2's hundreds of
  /// weights would otherwise read most of the file to open it), Normal for reading weights.
  /// Sequential for a record read from start to end once (a program's JSON): the kernel reads
  /// ahead of the reader and maps pages in runs, instead of one page per fault.
  enum class Access { Normal, Scattered, Sequential };
  void advise(Access access) const;
  /// The same for the pages holding bytes [offset, offset + length) only.
  void advise(Access access, std::size_t offset, std::size_t length) const;

  const std::byte* data() const { return m_data; }
  std::size_t size() const { return m_size; }
  const std::string& path() const { return m_path; }
  /// The file, open as long as the map (-1 for an empty file): another process may map it too.
  int descriptor() const { return m_fd; }

 private:
  MappedFile(std::string path, const std::byte* data, std::size_t size, int fd)
      : m_path(std::move(path)), m_data(data), m_size(size), m_fd(fd) {}
  std::string m_path;
  const std::byte* m_data;
  std::size_t m_size;
  int m_fd;
};

}  // namespace torchir
