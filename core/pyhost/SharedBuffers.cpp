#include "SharedBuffers.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cstring>
#include <stdexcept>

namespace torchir {
namespace {

constexpr std::size_t kMaxBufferBytes = std::size_t{1} << 46;

std::atomic<std::size_t> made{0};

/// Whether a buffer of `size` bytes suits a tensor of `bytes`: it fits, and wastes at most as much
/// as the tensor takes (a small result must not hold a large buffer for its life).
bool suits(std::size_t size, std::size_t bytes) { return size >= bytes && size - bytes <= bytes + SharedBuffers::kGrain; }

std::shared_ptr<SharedMemory> mapShared(UniqueFd fd, std::size_t size) {
  void* p = mmap(nullptr, size, PROT_READ | PROT_WRITE, MAP_SHARED, fd.get(), 0);
  if (p == MAP_FAILED) throw std::runtime_error(std::string("cannot map shared memory for a tensor: ") + std::strerror(errno));
  auto m = std::make_shared<SharedMemory>();
  m->fd = std::move(fd);
  m->data = static_cast<unsigned char*>(p);
  m->size = size;
  ++made;
  return m;
}

}  // namespace

SharedMemory::~SharedMemory() {
  if (data) munmap(data, size);
}

std::size_t SharedBuffers::buffersMade() { return made.load(); }

void SharedBuffers::workerStarted() {
  std::lock_guard<std::mutex> lock(m_mutex);
  for (Buffer& b : m_buffers) b.workerHasIt = b.workerMayHaveIt = b.introduced = false;
  m_forgotten.clear();
}

SharedBuffers::Buffer* SharedBuffers::find(std::uint32_t id) {
  for (Buffer& b : m_buffers)
    if (b.id == id) return &b;
  return nullptr;
}

SharedBuffers::Lent SharedBuffers::lend(Buffer& b, State state) {
  b.state = state;
  b.lastUse = ++m_clock;
  b.introduced = !b.workerHasIt;  // the worker has it once the message is sent
  return {b.id, b.memory->data, b.memory->size, b.workerHasIt ? -1 : b.memory->fd.get()};
}

SharedBuffers::Buffer& SharedBuffers::add(std::shared_ptr<SharedMemory> memory) {
  Buffer b;
  b.id = m_nextId++;
  b.memory = std::move(memory);
  m_buffers.push_back(std::move(b));
  return m_buffers.back();
}

SharedBuffers::Lent SharedBuffers::borrow(std::size_t bytes) {
  if (bytes == 0 || bytes > kMaxBufferBytes) throw std::runtime_error("a tensor of " + std::to_string(bytes) + " bytes cannot go to Python");
  std::lock_guard<std::mutex> lock(m_mutex);
  // the smallest that suits, one the worker has mapped first (no descriptor, no faults there)
  Buffer* best = nullptr;
  for (Buffer& b : m_buffers)
    if (b.state == State::Free && suits(b.memory->size, bytes) &&
        (!best || std::make_pair(!b.workerHasIt, b.memory->size) < std::make_pair(!best->workerHasIt, best->memory->size)))
      best = &b;
  if (best) return lend(*best, State::Input);
  const std::size_t size = (bytes + kGrain - 1) / kGrain * kGrain;
  UniqueFd fd(memfd_create("torchir-tensor", MFD_CLOEXEC | MFD_ALLOW_SEALING));
  // sealed at its size: the worker cannot shrink it under our mapping
  if (!fd || ftruncate(fd.get(), static_cast<off_t>(size)) != 0 ||
      fcntl(fd.get(), F_ADD_SEALS, F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_SEAL) != 0)
    throw std::runtime_error(std::string("cannot make shared memory for a tensor: ") + std::strerror(errno));
  return lend(add(mapShared(std::move(fd), size)), State::Input);
}

std::vector<SharedBuffers::Lent> SharedBuffers::spares(std::size_t maxFds) {
  std::lock_guard<std::mutex> lock(m_mutex);
  std::vector<Buffer*> free;
  for (Buffer& b : m_buffers)
    if (b.state == State::Free) free.push_back(&b);
  // the worker's own mappings first, then the most recently used
  std::sort(free.begin(), free.end(), [](const Buffer* a, const Buffer* b) {
    return std::make_pair(!a->workerHasIt, -static_cast<int64_t>(a->lastUse)) <
           std::make_pair(!b->workerHasIt, -static_cast<int64_t>(b->lastUse));
  });
  std::vector<Lent> out;
  for (Buffer* b : free) {
    if (out.size() == kMaxSpares) break;
    if (!b->workerHasIt) {
      if (maxFds == 0) continue;
      --maxFds;
    }
    out.push_back(lend(*b, State::Spare));
  }
  return out;
}

std::shared_ptr<const SharedMemory> SharedBuffers::leaseLocked(Buffer& b) {
  b.state = State::Leased;
  b.lastUse = ++m_clock;
  // the pool may go first (the worker replaced): the memory then goes with the result
  struct Holder {
    std::weak_ptr<SharedBuffers> pool;
    std::shared_ptr<SharedMemory> memory;
    std::uint32_t id;
    ~Holder() {
      if (auto p = pool.lock()) p->released(id);
    }
  };
  auto holder = std::make_shared<Holder>();  // made in place: a copy's end would release the buffer
  holder->pool = weak_from_this();
  holder->memory = b.memory;
  holder->id = b.id;
  return std::shared_ptr<const SharedMemory>(holder, holder->memory.get());
}

std::shared_ptr<const SharedMemory> SharedBuffers::lease(std::uint32_t id, std::size_t bytes) {
  std::lock_guard<std::mutex> lock(m_mutex);
  Buffer* b = find(id);
  if (!b || b->state != State::Spare)
    throw std::runtime_error("the Python worker returned a tensor in shared memory this call did not offer");
  if (bytes > b->memory->size) throw std::runtime_error("the Python worker returned a tensor larger than its shared memory");
  return leaseLocked(*b);
}

std::shared_ptr<const SharedMemory> SharedBuffers::adopt(UniqueFd fd, std::size_t bytes) {
  struct stat st {};
  if (!fd || fstat(fd.get(), &st) != 0 || st.st_size < 0 || static_cast<std::size_t>(st.st_size) < bytes)
    throw std::runtime_error("the Python worker returned a tensor with fewer bytes than it says");
  if (static_cast<std::size_t>(st.st_size) > kMaxBufferBytes) throw std::runtime_error("the Python worker returned too large a memory");
  // mapped as the result's storage for as long as it lives: only memory that cannot shrink under it
  const int seals = fcntl(fd.get(), F_GET_SEALS);
  if (seals < 0 || !(seals & F_SEAL_SHRINK) || !(seals & F_SEAL_SEAL))
    throw std::runtime_error("the Python worker returned a tensor in memory it did not seal at its size");
  if (seals & (F_SEAL_WRITE | F_SEAL_FUTURE_WRITE))
    throw std::runtime_error("the Python worker returned a tensor in memory sealed against the writes of later calls");
  auto memory = mapShared(std::move(fd), static_cast<std::size_t>(st.st_size));
  std::lock_guard<std::mutex> lock(m_mutex);
  return leaseLocked(add(std::move(memory)));  // the worker closed its own: it has none mapped
}

void SharedBuffers::endCall() {
  std::lock_guard<std::mutex> lock(m_mutex);
  for (Buffer& b : m_buffers) {
    if (b.state == State::Input || b.state == State::Spare) b.state = State::Free;
    b.introduced = false;
  }
  trim();
}

void SharedBuffers::released(std::uint32_t id) {
  std::lock_guard<std::mutex> lock(m_mutex);
  if (Buffer* b = find(id); b && b->state == State::Leased) {
    b->state = State::Free;
    b->lastUse = ++m_clock;
    trim();
  }
}

void SharedBuffers::trim() {
  std::size_t freeBytes = 0, freeCount = 0;
  for (const Buffer& b : m_buffers)
    if (b.state == State::Free) {
      freeBytes += b.memory->size;
      ++freeCount;
    }
  // the most recent stays, however large: a program calls with the same sizes run after run
  while ((freeBytes > kKeepFreeBytes || freeCount > kKeepFreeBuffers) && freeCount > 1) {
    auto oldest = m_buffers.end();
    for (auto it = m_buffers.begin(); it != m_buffers.end(); ++it)
      if (it->state == State::Free && (oldest == m_buffers.end() || it->lastUse < oldest->lastUse)) oldest = it;
    freeBytes -= oldest->memory->size;
    --freeCount;
    if (oldest->workerHasIt || oldest->workerMayHaveIt) m_forgotten.push_back(oldest->id);
    m_buffers.erase(oldest);
  }
}

std::vector<std::uint32_t> SharedBuffers::forgotten() {
  std::lock_guard<std::mutex> lock(m_mutex);
  return m_forgotten;
}

void SharedBuffers::sent() {
  std::lock_guard<std::mutex> lock(m_mutex);
  for (Buffer& b : m_buffers)
    if (b.introduced) b.workerMayHaveIt = true;
}

void SharedBuffers::answered(std::size_t forgottenTold) {
  std::lock_guard<std::mutex> lock(m_mutex);
  for (Buffer& b : m_buffers)
    if (b.introduced) {
      b.workerHasIt = true;
      b.introduced = false;
    }
  m_forgotten.erase(m_forgotten.begin(), m_forgotten.begin() + static_cast<std::ptrdiff_t>(std::min(forgottenTold, m_forgotten.size())));
}

}  // namespace torchir
