#include "MappedFile.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

#include "program/LoadError.h"

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
  if (size == 0) {
    ::close(fd);
    return std::shared_ptr<const MappedFile>(new MappedFile(path, nullptr, 0, -1));
  }
  // kept open while mapped: a weight passed to the Python worker is named by it and an offset
  return std::shared_ptr<const MappedFile>(new MappedFile(path, static_cast<const std::byte*>(p), size, fd));
}

void MappedFile::advise(Access access) const { advise(access, 0, m_size); }

void MappedFile::advise(Access access, std::size_t offset, std::size_t length) const {
  if (!m_data || offset >= m_size) return;
  length = std::min(length, m_size - offset);
  // madvise takes whole pages: from the page holding the first byte (the map starts on one)
  const auto page = static_cast<std::size_t>(::sysconf(_SC_PAGESIZE));
  const std::size_t start = offset / page * page;
  const int advice = access == Access::Scattered    ? MADV_RANDOM
                     : access == Access::Sequential ? MADV_SEQUENTIAL
                                                    : MADV_NORMAL;
  // advice only: a kernel that refuses it reads the file as before
  ::madvise(const_cast<std::byte*>(m_data) + start, offset + length - start, advice);
}

MappedFile::~MappedFile() {
  if (m_data) ::munmap(const_cast<std::byte*>(m_data), m_size);
  if (m_fd >= 0) ::close(m_fd);
}

}  // namespace torchir
