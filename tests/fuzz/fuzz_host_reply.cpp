// A message from the Python op host, as the socket delivers it: header (length, descriptor
// count), then JSON. The host is the user's Python: its bytes are read with every bound checked.
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>

#include "pyhost/HostChannel.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, std::size_t size) {
  int pair[2];
  if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, pair) != 0) return 0;
  torchir::UniqueFd reader(pair[0]), writer(pair[1]);
  // what fits in the socket's buffer at once: a reader never waits on a writer that is not there
  const std::size_t n = std::min<std::size_t>(size, 64 * 1024);
  if (n > 0 && write(writer.get(), data, n) != static_cast<ssize_t>(n)) return 0;
  writer = torchir::UniqueFd();  // then the end of the stream
  try {
    torchir::receiveHostMessage(reader.get(), torchir::monotonicSeconds() + 1);
  } catch (const torchir::HostChannelError&) {
  }
  return 0;
}
