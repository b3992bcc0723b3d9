#include "MappedFile.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "LoadError.h"

namespace torchir {

std::shared_ptr<const MappedFile> MappedFile::open(const std::string& path) {
  // O_NONBLOCK: opening a FIFO or a device would otherwise wait for a writer; it is refused below.
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK);
  if (fd < 0) throw LoadError(path, std::strerror(errno));
  struct stat st {};
  if (::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
    ::close(fd);
    throw LoadError(path, "not a regular file");
  }
  const auto size = static_cast<std::size_t>(st.st_size);
  void* p = nullptr;
  if (size > 0) {
    p = ::mmap(nullptr, size, PROT_READ, MAP_PRIVATE, fd, 0);
    if (p == MAP_FAILED) {
      const int err = errno;
      ::close(fd);
      throw LoadError(path, std::string("cannot map: ") + std::strerror(err));
    }
  }
  ::close(fd);  // the mapping keeps the file alive
  return std::shared_ptr<const MappedFile>(new MappedFile(path, static_cast<const std::byte*>(p), size));
}

void MappedFile::advise(Access access) const {
  // advice only: a kernel that refuses it reads the file as before
  if (m_data) ::madvise(const_cast<std::byte*>(m_data), m_size, access == Access::Scattered ? MADV_RANDOM : MADV_NORMAL);
}

MappedFile::~MappedFile() {
  if (m_data) ::munmap(const_cast<std::byte*>(m_data), m_size);
}

}  // namespace torchir
