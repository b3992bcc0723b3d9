#include "FilePages.h"

#include <fcntl.h>

#include <iterator>
#include <map>
#include <mutex>

namespace torchir {

namespace {

struct Noted {
  std::size_t bytes;
  int fd;
  std::size_t offset;
  std::size_t count;  // bridged tensors on these bytes: each session bridges its own
};

struct Registry {
  std::mutex lock;
  std::map<const std::byte*, Noted> byStart;
};

Registry& registry() {
  static Registry* r = new Registry;  // tensors may be freed during static destruction
  return *r;
}

}  // namespace

void noteFilePages(const Storage& storage) {
  if (storage.fileDescriptor < 0 || !storage.data || storage.nbytes == 0) return;
  Registry& r = registry();
  const std::lock_guard<std::mutex> hold(r.lock);
  auto [it, added] = r.byStart.try_emplace(storage.data, Noted{storage.nbytes, storage.fileDescriptor, storage.fileOffset, 0});
  ++it->second.count;
}

void forgetFilePages(const Storage& storage) {
  if (storage.fileDescriptor < 0 || !storage.data || storage.nbytes == 0) return;
  Registry& r = registry();
  const std::lock_guard<std::mutex> hold(r.lock);
  const auto it = r.byStart.find(storage.data);
  if (it != r.byStart.end() && --it->second.count == 0) r.byStart.erase(it);
}

std::optional<FilePlace> filePlace(const void* p, std::size_t length) {
  const auto* at = static_cast<const std::byte*>(p);
  Registry& r = registry();
  const std::lock_guard<std::mutex> hold(r.lock);
  const auto next = r.byStart.upper_bound(at);
  if (next == r.byStart.begin()) return std::nullopt;
  const auto& [start, noted] = *std::prev(next);
  const auto into = static_cast<std::size_t>(at - start);
  if (into > noted.bytes || length > noted.bytes - into) return std::nullopt;
  const int fd = ::fcntl(noted.fd, F_DUPFD_CLOEXEC, 0);
  if (fd < 0) return std::nullopt;
  return FilePlace{fd, noted.offset + into};
}

}  // namespace torchir
