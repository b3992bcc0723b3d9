#pragma once
// One message to or from the Python op host: an 8-byte header (body length, number of file
// descriptors, little-endian uint32s) carrying the descriptors (SCM_RIGHTS), then a JSON body.
// The host is a process of the user's own Python: what it sends is still checked before use.
#include <nlohmann/json.hpp>

#include <functional>
#include <stdexcept>
#include <string>
#include <vector>

namespace torchir {

/// A file descriptor closed when it goes.
class UniqueFd {
 public:
  UniqueFd() = default;
  explicit UniqueFd(int fd) : m_fd(fd) {}
  UniqueFd(UniqueFd&& o) noexcept : m_fd(o.release()) {}
  UniqueFd& operator=(UniqueFd&& o) noexcept;
  UniqueFd(const UniqueFd&) = delete;
  UniqueFd& operator=(const UniqueFd&) = delete;
  ~UniqueFd();
  int get() const { return m_fd; }
  int release() {
    const int fd = m_fd;
    m_fd = -1;
    return fd;
  }
  explicit operator bool() const { return m_fd >= 0; }

 private:
  int m_fd = -1;
};

struct HostMessage {
  nlohmann::json body;
  std::vector<UniqueFd> fds;
};

/// The host went away or said something that is not a message: the call cannot complete.
class HostChannelError : public std::runtime_error {
 public:
  explicit HostChannelError(const std::string& message, bool unread = false)
      : std::runtime_error(message), m_unread(unread) {}
  /// The worker's end closed with what we sent still unread in it (a send's EPIPE, or
  /// ECONNRESET before any of the reply): the worker never began the request.
  bool unread() const { return m_unread; }

 private:
  bool m_unread = false;
};

/// Why waiting on the host ended early.
enum class WaitEnd { Ready, TimedOut, Cancelled };

constexpr std::size_t kMaxHostMessageBytes = std::size_t{256} << 20;
constexpr std::size_t kMaxHostMessageFds = 64;

/// Sends `body` with `fds` (borrowed) on the socket. Throws HostChannelError.
void sendHostMessage(int socket, const nlohmann::json& body, const std::vector<int>& fds);

/// Waits for the socket to become readable, asking `cancelled` every 50 ms, until `deadline`
/// seconds of monotonic time (clock_gettime CLOCK_MONOTONIC; <= 0: no limit).
WaitEnd waitReadable(int socket, double deadline, const std::function<bool()>& cancelled);

/// Reads one message: the header with its descriptors, then the body (by `deadline`, as
/// waitReadable's). Throws HostChannelError for an end of stream, a header over the bounds,
/// truncated descriptors, a body that does not come in time or is not JSON.
HostMessage receiveHostMessage(int socket, double deadline = 0);

/// Monotonic seconds, for deadlines.
double monotonicSeconds();

}  // namespace torchir
