#include "HostChannel.h"

#include <poll.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

namespace torchir {
namespace {

constexpr std::size_t kHeaderBytes = 8;

void putUint32(unsigned char* at, std::uint32_t v) {
  for (int i = 0; i < 4; ++i) at[i] = static_cast<unsigned char>(v >> (8 * i));
}

std::uint32_t getUint32(const unsigned char* at) {
  std::uint32_t v = 0;
  for (int i = 3; i >= 0; --i) v = (v << 8) | at[i];
  return v;
}

std::string systemError(const char* what) { return std::string(what) + ": " + std::strerror(errno); }

/// How long a wait for the worker's answer polls before it sleeps: a small op answers within it,
/// and a thread put to sleep and woken costs a call tens of microseconds on a virtual machine.
constexpr double kSpinSeconds = 300e-6;

/// Waits until the socket is readable or the deadline passes (<= 0: none).
bool pollReadable(int socket, double deadline) {
  while (true) {
    int timeoutMs = -1;
    if (deadline > 0) {
      const double left = deadline - monotonicSeconds();
      if (left <= 0) return false;
      timeoutMs = static_cast<int>(std::min(left * 1000, 1e9)) + 1;  // poll's int milliseconds
    }
    pollfd p{socket, POLLIN, 0};
    const int r = poll(&p, 1, timeoutMs);
    if (r > 0) return true;
    if (r < 0 && errno != EINTR) throw HostChannelError(systemError("poll"));
  }
}

void sendAll(int socket, const char* data, std::size_t size) {
  while (size > 0) {
    const ssize_t n = send(socket, data, size, MSG_NOSIGNAL);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      const bool unread = n < 0 && errno == EPIPE;
      throw HostChannelError(systemError("the Python worker stopped reading"), unread);
    }
    data += n;
    size -= static_cast<std::size_t>(n);
  }
}

}  // namespace

UniqueFd& UniqueFd::operator=(UniqueFd&& o) noexcept {
  if (this != &o) {
    if (m_fd >= 0) close(m_fd);
    m_fd = o.release();
  }
  return *this;
}

UniqueFd::~UniqueFd() {
  if (m_fd >= 0) close(m_fd);
}

double monotonicSeconds() {
  timespec t{};
  clock_gettime(CLOCK_MONOTONIC, &t);
  return static_cast<double>(t.tv_sec) + static_cast<double>(t.tv_nsec) * 1e-9;
}

void sendHostMessage(int socket, const nlohmann::json& body, const std::vector<int>& fds) {
  const std::string text = body.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
  if (text.size() > kMaxHostMessageBytes || fds.size() > kMaxHostMessageFds)
    throw HostChannelError("a call's arguments are too large to send to the Python worker");
  unsigned char header[kHeaderBytes];
  putUint32(header, static_cast<std::uint32_t>(text.size()));
  putUint32(header + 4, static_cast<std::uint32_t>(fds.size()));
  // header and body in one sendmsg: the worker wakes once for the whole request
  iovec iov[2] = {{header, kHeaderBytes}, {const_cast<char*>(text.data()), text.size()}};
  msghdr msg{};
  msg.msg_iov = iov;
  msg.msg_iovlen = 2;
  std::vector<char> control(CMSG_SPACE(sizeof(int) * (fds.empty() ? 1 : fds.size())), 0);
  if (!fds.empty()) {
    msg.msg_control = control.data();
    msg.msg_controllen = CMSG_SPACE(sizeof(int) * fds.size());
    cmsghdr* c = CMSG_FIRSTHDR(&msg);
    c->cmsg_level = SOL_SOCKET;
    c->cmsg_type = SCM_RIGHTS;
    c->cmsg_len = CMSG_LEN(sizeof(int) * fds.size());
    std::memcpy(CMSG_DATA(c), fds.data(), sizeof(int) * fds.size());
  }
  ssize_t n;
  do n = sendmsg(socket, &msg, MSG_NOSIGNAL);
  while (n < 0 && errno == EINTR);
  if (n <= 0) {
    const bool unread = n < 0 && errno == EPIPE;
    throw HostChannelError(systemError("the Python worker stopped reading"), unread);
  }
  // the descriptors went with the first byte sent; what did not fit goes plain
  const auto sent = static_cast<std::size_t>(n);
  if (sent < kHeaderBytes) {
    sendAll(socket, reinterpret_cast<const char*>(header) + sent, kHeaderBytes - sent);
    sendAll(socket, text.data(), text.size());
  } else {
    sendAll(socket, text.data() + (sent - kHeaderBytes), text.size() - (sent - kHeaderBytes));
  }
}

WaitEnd waitReadable(int socket, double deadline, const std::function<bool()>& cancelled) {
  constexpr double kSlice = 0.05;  // how often `cancelled` is asked
  const double spinEnd = monotonicSeconds() + kSpinSeconds;
  for (pollfd p{socket, POLLIN, 0}; monotonicSeconds() < spinEnd; p.revents = 0)
    if (poll(&p, 1, 0) > 0) return WaitEnd::Ready;
  while (true) {
    const double now = monotonicSeconds();
    if (deadline > 0 && now >= deadline) return WaitEnd::TimedOut;
    const double sliceEnd = deadline > 0 ? std::min(deadline, now + kSlice) : now + kSlice;
    if (pollReadable(socket, sliceEnd)) return WaitEnd::Ready;
    if (cancelled && cancelled()) return WaitEnd::Cancelled;
  }
}

HostMessage receiveHostMessage(int socket, double deadline) {
  HostMessage message;
  unsigned char header[kHeaderBytes];
  std::size_t got = 0;
  while (got < kHeaderBytes) {
    if (!pollReadable(socket, deadline)) throw HostChannelError("the Python worker did not answer in time");
    iovec iov{header + got, kHeaderBytes - got};
    alignas(cmsghdr) char control[CMSG_SPACE(sizeof(int) * kMaxHostMessageFds)];
    msghdr msg{};
    msg.msg_iov = &iov;
    msg.msg_iovlen = 1;
    msg.msg_control = control;
    msg.msg_controllen = sizeof control;
    const ssize_t n = recvmsg(socket, &msg, MSG_CMSG_CLOEXEC);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) {
      const bool unread = errno == ECONNRESET && got == 0;
      throw HostChannelError(systemError("reading from the Python worker"), unread);
    }
    for (cmsghdr* c = CMSG_FIRSTHDR(&msg); c; c = CMSG_NXTHDR(&msg, c)) {
      if (c->cmsg_level != SOL_SOCKET || c->cmsg_type != SCM_RIGHTS || c->cmsg_len < CMSG_LEN(0)) continue;
      const std::size_t count = (c->cmsg_len - CMSG_LEN(0)) / sizeof(int);
      for (std::size_t i = 0; i < count; ++i) {
        int fd;
        std::memcpy(&fd, CMSG_DATA(c) + i * sizeof(int), sizeof fd);
        message.fds.emplace_back(fd);  // owned at once: closed on every error below
      }
    }
    if (msg.msg_flags & MSG_CTRUNC) throw HostChannelError("the Python worker sent more descriptors than a message holds");
    if (n == 0) throw HostChannelError("the Python worker closed its end");
    got += static_cast<std::size_t>(n);
  }
  const std::uint32_t length = getUint32(header);
  const std::uint32_t fdCount = getUint32(header + 4);
  if (length > kMaxHostMessageBytes) throw HostChannelError("the Python worker sent a message over 256 MiB");
  if (fdCount != message.fds.size())
    throw HostChannelError("the Python worker's message carries " + std::to_string(message.fds.size()) +
                           " descriptors; its header says " + std::to_string(fdCount));
  std::string body(length, '\0');
  for (std::size_t at = 0; at < body.size();) {
    if (!pollReadable(socket, deadline)) throw HostChannelError("the Python worker did not answer in time");
    const ssize_t n = recv(socket, body.data() + at, body.size() - at, 0);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) throw HostChannelError(systemError("reading from the Python worker"));
    if (n == 0) throw HostChannelError("the Python worker closed its end in the middle of a message");
    at += static_cast<std::size_t>(n);
  }
  try {
    message.body = nlohmann::json::parse(body);
  } catch (const nlohmann::json::exception& e) {
    throw HostChannelError(std::string("the Python worker sent a message that is not JSON: ") + e.what());
  }
  if (!message.body.is_object()) throw HostChannelError("the Python worker sent a message that is not a JSON object");
  return message;
}

}  // namespace torchir
