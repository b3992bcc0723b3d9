#pragma once
// Shared memory for the tensors over the arena's size, kept between calls: torchir makes and owns
// each buffer, and both processes keep it mapped. A buffer's pages are faulted in once; a call
// copies a large input into one and the worker copies a large result into another. A fresh
// memfd per tensor and call costs more than the copy (zeroed pages, faulted in on both sides:
// 60 ms against 7 ms for 64 MB on the 2-core machine of docs/benchmarks.md).
//
// A buffer is free, lent to one call (an input, or a spare the worker may put a result in), or
// leased to a result until the last tensor over it goes. The worker writes a buffer only while
// answering a call that lent it; it is the user's own Python, as trusted as the user's modules.
#include <nlohmann/json.hpp>

#include <cstdint>
#include <memory>
#include <mutex>
#include <vector>

#include "HostChannel.h"

namespace torchir {

/// A memfd mapped shared here, unmapped and closed when the last holder goes.
struct SharedMemory {
  UniqueFd fd;
  unsigned char* data = nullptr;
  std::size_t size = 0;
  SharedMemory() = default;
  SharedMemory(const SharedMemory&) = delete;
  SharedMemory& operator=(const SharedMemory&) = delete;
  ~SharedMemory();
};

class SharedBuffers : public std::enable_shared_from_this<SharedBuffers> {
 public:
  static constexpr std::size_t kGrain = std::size_t{2} << 20;            // sizes are rounded up to this
  static constexpr std::size_t kKeepFreeBytes = std::size_t{256} << 20;  // free memory kept for later calls (and the last buffer freed)
  static constexpr std::size_t kKeepFreeBuffers = 32;
  static constexpr std::size_t kMaxSpares = 16;  // offered to one call for its results

  /// One call's view of a buffer: where its bytes are, and the descriptor to send when this worker
  /// has not mapped it yet (-1 when it has; borrowed from the buffer).
  struct Lent {
    std::uint32_t id = 0;
    unsigned char* data = nullptr;
    std::size_t size = 0;
    int fdToSend = -1;
  };

  /// A new worker has none of the buffers mapped; what the last one was told to forget is moot.
  void workerStarted();
  /// A free buffer of at least `bytes` for an input of the call under way (a new one if none
  /// fits), lent until endCall. Throws std::runtime_error when the memory cannot be made.
  Lent borrow(std::size_t bytes);
  /// The free buffers the worker may put this call's results in, at most `maxFds` of them with a
  /// descriptor to send; lent until endCall unless a result takes one (lease).
  std::vector<Lent> spares(std::size_t maxFds);
  /// The worker put a result of `bytes` in spare `id`: it is the result's until the holder goes.
  /// Throws std::runtime_error when `id` was not offered to this call, or is already taken or too small.
  std::shared_ptr<const SharedMemory> lease(std::uint32_t id, std::size_t bytes);
  /// A result in a memfd of the worker's own (no spare fitted): kept as a buffer of this pool,
  /// leased to the result. Throws std::runtime_error for memory that may shrink or is too small.
  std::shared_ptr<const SharedMemory> adopt(UniqueFd fd, std::size_t bytes);
  /// The call ended: its inputs and untaken spares are free again; free memory past the bounds goes.
  void endCall();
  /// Buffers the worker has mapped that are gone here: the next request tells it to unmap them.
  std::vector<std::uint32_t> forgotten();
  /// The request is sent: the worker may have mapped the buffers whose descriptors it carried.
  void sent();
  /// The worker answered the request without an error: it mapped those buffers and forgot the
  /// first `forgottenTold` of forgotten(). (A request it refused is sent again in full.)
  void answered(std::size_t forgottenTold);

  /// How many buffers were made or adopted since the process started (each a memfd faulted in).
  static std::size_t buffersMade();

 private:
  enum class State { Free, Input, Spare, Leased };
  struct Buffer {
    std::uint32_t id = 0;
    std::shared_ptr<SharedMemory> memory;
    State state = State::Free;
    bool workerHasIt = false;      // mapped by the worker running now
    bool workerMayHaveIt = false;  // sent to it, maybe mapped: forgotten when it goes
    bool introduced = false;   // its descriptor is in the request being made
    std::uint64_t lastUse = 0;
  };
  Buffer* find(std::uint32_t id);
  Lent lend(Buffer& b, State state);
  Buffer& add(std::shared_ptr<SharedMemory> memory);
  std::shared_ptr<const SharedMemory> leaseLocked(Buffer& b);
  void released(std::uint32_t id);
  void trim();
  std::mutex m_mutex;  // results are released from any thread
  std::vector<Buffer> m_buffers;
  std::vector<std::uint32_t> m_forgotten;
  std::uint32_t m_nextId = 0;
  std::uint64_t m_clock = 0;
};

}  // namespace torchir
