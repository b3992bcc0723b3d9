#pragma once
// A worker process started from the user's Python, which imports the user's modules and calls
// ops defined in Python for us (torchir_host.py, embedded). One call at a time; a worker that
// crashed, was killed, hung past the limit or was stopped is replaced by a new one at the next call.
#include <sys/types.h>

#include <atomic>
#include <mutex>
#include <optional>

#include "HostChannel.h"
#include "PythonHostOptions.h"
#include "SharedBuffers.h"

namespace torchir {

/// A call that did not complete: the worker raised (`traceback` set), died, or took too long.
class PythonCallError : public std::runtime_error {
 public:
  PythonCallError(const std::string& message, std::string traceback = {}, bool workerEnded = false)
      : std::runtime_error(message), m_traceback(std::move(traceback)), m_workerEnded(workerEnded) {}
  const std::string& traceback() const { return m_traceback; }
  /// The worker died, hung or could not be reached: the next call starts a new one.
  bool workerEnded() const { return m_workerEnded; }

 private:
  std::string m_traceback;
  bool m_workerEnded = false;
};

/// The run was stopped while a call was in the worker (the worker is stopped with it).
struct PythonCallCancelled {};

/// A region both processes map for the whole life of a worker: small tensors travel through it
/// without a file descriptor, a mapping or a system call of their own.
struct HostArena {
  unsigned char* data = nullptr;
  std::size_t size = 0;
};

/// What one call's tensors travel through: the arena for small ones, shared buffers for the rest.
struct HostMemory {
  HostArena arena;
  SharedBuffers& buffers;
};

class PythonWorker {
 public:
  /// Tensors up to this size go through the arena when they fit; larger ones through shared buffers.
  static constexpr std::size_t kArenaTensorBytes = 64 * 1024;
  static constexpr std::size_t kArenaBytes = 4 * 1024 * 1024;

  /// `threads`: intra-op threads the worker's torch uses (ours, for the same bits).
  PythonWorker(PythonHostOptions options, int threads);
  ~PythonWorker();
  PythonWorker(const PythonWorker&) = delete;
  PythonWorker& operator=(const PythonWorker&) = delete;

  /// What the worker said when it last started (it is started if it never was). Throws
  /// PythonCallError when the Python cannot be started; a Python without torch is the report's error;
  /// `cancelled` true while it starts (importing torch and the user's modules) throws PythonCallCancelled.
  PythonHostReport report(const std::function<bool()>& cancelled = {});
  /// The report of the worker's last start without starting one (nullopt: never started).
  std::optional<PythonHostReport> lastReport() const;
  /// Sends `request` with `fds` (borrowed) and returns the reply, which has "ok": true. A reply
  /// with "ok": false throws PythonCallError carrying the traceback; a dead or silent worker
  /// throws PythonCallError naming why; `cancelled` true while waiting throws PythonCallCancelled.
  HostMessage call(const nlohmann::json& request, const std::vector<int>& fds, const std::function<bool()>& cancelled);
  /// One call with tensors, under the worker's lock from start to end: `makeRequest(memory, fds)`
  /// writes the message (and small tensors into the arena, large ones into buffers it borrows,
  /// the descriptors to send into `fds`, borrowed); `takeReply(reply, memory)` reads the answer
  /// before another call may reuse the arena or the buffers it lent. Throws as call() does.
  void exchange(const std::function<nlohmann::json(const HostMemory&, std::vector<int>&)>& makeRequest,
                const std::function<void(HostMessage&, const HostMemory&)>& takeReply,
                const std::function<bool()>& cancelled);
  /// The worker's process id, -1 when none runs (tests stop it from outside).
  pid_t pid() const;
  const PythonHostOptions& options() const { return m_options; }

 private:
  void start(const std::function<bool()>& cancelled);              // requires m_mutex
  void startIfNotRunning(const std::function<bool()>& cancelled);  // requires m_mutex
  void stop();                                   // kills and reaps; requires m_mutex
  std::string howItEnded();                      // reaps a worker that went away; requires m_mutex
  PythonHostOptions m_options;
  int m_threads;
  mutable std::mutex m_mutex;       // held for a whole call
  mutable std::mutex m_reportMutex;  // m_report's reads outside a call take this alone, never waiting on one
  std::atomic<pid_t> m_pid{-1};
  UniqueFd m_socket;
  UniqueFd m_arenaFd;
  HostArena m_arena;  // mapped while a worker runs
  std::shared_ptr<SharedBuffers> m_buffers = std::make_shared<SharedBuffers>();  // outlive workers
  HostMessage callLocked(const nlohmann::json& request, const std::vector<int>& fds,
                         const std::function<bool()>& cancelled);  // requires m_mutex; throws RequestUnread too
  std::optional<PythonHostReport> m_report;
};

}  // namespace torchir
