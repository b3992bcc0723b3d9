#include "PythonWorker.h"

#include <signal.h>
#include <spawn.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <fcntl.h>
#include <unistd.h>

#include <cstring>

#include "PythonHostScript.h"
#include "program/OneLine.h"

extern char** environ;

namespace torchir {
namespace {

constexpr int kChildSocket = 3;          // the worker finds its end of the socket here
constexpr int kChildArena = 4;           // and the arena here
constexpr double kStartSeconds = 300;    // importing torch and the user's modules

/// The worker went away without reading a request (HostChannelError::unread): it may be sent again.
struct RequestUnread {
  std::string message;
};

std::string signalName(int signal) {
  const char* name = strsignal(signal);
  return "signal " + std::to_string(signal) + (name ? std::string(" (") + name + ")" : "");
}

std::vector<std::string> strings(const nlohmann::json& j) {
  std::vector<std::string> out;
  if (j.is_array())
    for (const auto& e : j)
      if (e.is_string()) out.push_back(oneLine(e.get<std::string>(), 200));
  return out;
}

std::string text(const nlohmann::json& j, const char* key) {
  auto it = j.find(key);
  return it != j.end() && it->is_string() ? it->get<std::string>() : std::string();
}

/// `fd` moved above the numbers the worker gets its descriptors at, so that giving it fd 3 and 4
/// never overwrites one with the other (or leaves one close-on-exec on a dup2 onto itself).
int aboveChildFds(int fd) {
  if (fd < 0) return fd;
  const int moved = fcntl(fd, F_DUPFD_CLOEXEC, 10);
  close(fd);
  return moved;
}

void unmapArena(HostArena& arena) {
  if (arena.data) munmap(arena.data, arena.size);
  arena = {};
}

}  // namespace

PythonWorker::PythonWorker(PythonHostOptions options, int threads) : m_options(std::move(options)), m_threads(threads) {}

PythonWorker::~PythonWorker() {
  std::lock_guard<std::mutex> lock(m_mutex);
  stop();
}

pid_t PythonWorker::pid() const { return m_pid; }

void PythonWorker::stop() {
  m_socket = UniqueFd();
  unmapArena(m_arena);
  m_arenaFd = UniqueFd();
  if (m_pid <= 0) return;
  kill(m_pid, SIGKILL);
  int status = 0;
  while (waitpid(m_pid, &status, 0) < 0 && errno == EINTR) {
  }
  m_pid = -1;
}

std::string PythonWorker::howItEnded() {
  m_socket = UniqueFd();
  unmapArena(m_arena);
  m_arenaFd = UniqueFd();
  if (m_pid <= 0) return "the Python worker is gone";
  // It closed its end: it is exiting. A worker that closed the socket but lives on is stopped.
  int status = 0;
  pid_t r = 0;
  for (int i = 0; i < 100 && (r = waitpid(m_pid, &status, WNOHANG)) == 0; ++i) usleep(10000);
  if (r == 0) {
    kill(m_pid, SIGKILL);
    while (waitpid(m_pid, &status, 0) < 0 && errno == EINTR) {
    }
  }
  m_pid = -1;
  if (WIFSIGNALED(status)) return "the Python worker was killed by " + signalName(WTERMSIG(status));
  if (WIFEXITED(status)) return "the Python worker exited with status " + std::to_string(WEXITSTATUS(status));
  return "the Python worker ended";
}

void PythonWorker::start(const std::function<bool()>& cancelled) {
  unmapArena(m_arena);  // a start that failed before may have left one
  m_arenaFd = UniqueFd();
  int pair[2];
  if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, pair) != 0)
    throw PythonCallError(std::string("cannot make a socket for the Python worker: ") + std::strerror(errno));
  UniqueFd ours(pair[0]), theirs(aboveChildFds(pair[1]));
  m_arenaFd = UniqueFd(aboveChildFds(memfd_create("torchir-arena", MFD_CLOEXEC | MFD_ALLOW_SEALING)));
  // sealed at its size: a worker cannot shrink it under our mapping
  if (!m_arenaFd || ftruncate(m_arenaFd.get(), static_cast<off_t>(kArenaBytes)) != 0 ||
      fcntl(m_arenaFd.get(), F_ADD_SEALS, F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_SEAL) != 0)
    throw PythonCallError(std::string("cannot make shared memory for the Python worker: ") + std::strerror(errno));
  void* arena = mmap(nullptr, kArenaBytes, PROT_READ | PROT_WRITE, MAP_SHARED, m_arenaFd.get(), 0);
  if (arena == MAP_FAILED) throw PythonCallError(std::string("cannot map the Python worker's arena: ") + std::strerror(errno));
  m_arena = {static_cast<unsigned char*>(arena), kArenaBytes};
  m_buffers->workerStarted();
  std::vector<std::string> args = {m_options.python, "-c", reinterpret_cast<const char*>(kPythonHostScript), std::to_string(kChildSocket),
                                   "--threads", std::to_string(m_threads), "--arena",
                                   std::to_string(kChildArena) + ":" + std::to_string(kArenaBytes)};
  for (const auto& m : m_options.imports) args.insert(args.end(), {"--import", m});
  for (const auto& f : m_options.executorFiles) args.insert(args.end(), {"--executors", f});
  std::vector<char*> argv;
  for (auto& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);

  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0);
  posix_spawn_file_actions_adddup2(&actions, 2, 1);  // what the user's ops print goes to our stderr, never stdout
  posix_spawn_file_actions_adddup2(&actions, theirs.get(), kChildSocket);  // dup2 clears close-on-exec
  posix_spawn_file_actions_adddup2(&actions, m_arenaFd.get(), kChildArena);
  posix_spawn_file_actions_addclosefrom_np(&actions, kChildArena + 1);  // nothing else of ours lives on in it
  pid_t pid = -1;
  // posix_spawnp: a name without a slash is looked up on PATH, as a shell would
  const int r = posix_spawnp(&pid, m_options.python.c_str(), &actions, nullptr, argv.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  if (r != 0) throw PythonCallError("cannot start the Python '" + oneLine(m_options.python, 300) + "': " + std::strerror(r));
  m_pid = pid;
  m_socket = std::move(ours);
  theirs = UniqueFd();

  HostMessage ready;
  try {
    switch (waitReadable(m_socket.get(), monotonicSeconds() + kStartSeconds, cancelled)) {
      case WaitEnd::Ready: break;
      case WaitEnd::Cancelled:
        stop();
        throw PythonCallCancelled{};
      case WaitEnd::TimedOut:
        throw HostChannelError("did not start within " + std::to_string(static_cast<int>(kStartSeconds)) + " s");
    }
    ready = receiveHostMessage(m_socket.get(), monotonicSeconds() + 10);
  } catch (const HostChannelError& e) {
    const std::string ended = m_pid > 0 ? howItEnded() : "";
    throw PythonCallError("the Python '" + oneLine(m_options.python, 300) + "' did not start the op host: " + e.what() +
                          (ended.empty() ? "" : " (" + ended + ")"));
  }
  const nlohmann::json& b = ready.body;
  PythonHostReport report;
  report.python = m_options.python;
  report.executable = oneLine(text(b, "executable"), 300);
  report.pythonVersion = oneLine(text(b, "python"), 40);
  report.torchVersion = oneLine(text(b, "torch"), 40);
  report.executors = strings(b.value("executors", nlohmann::json::array()));
  if (report.torchVersion.empty()) {
    report.error = "the Python " + (report.executable.empty() ? m_options.python : report.executable) +
                   " cannot import torch (" + oneLine(text(b, "torch_error"), 300) +
                   "): name a Python whose environment has torch " + TORCHIR_TORCH_VERSION;
  } else if (report.torchVersion.substr(0, report.torchVersion.find('+')) !=
             std::string(TORCHIR_TORCH_VERSION).substr(0, std::string(TORCHIR_TORCH_VERSION).find('+'))) {
    report.warnings.push_back("the Python " + report.executable + " has torch " + report.torchVersion +
                              "; torchir runs torch " + TORCHIR_TORCH_VERSION +
                              ": its ops may expect other schemas or give other bits");
  }
  if (const auto errors = b.find("import_errors"); errors != b.end() && errors->is_array())
    for (const auto& e : *errors) {
      if (!e.is_object()) continue;
      const std::string line = "cannot import " + oneLine(text(e, "module"), 300) + " in " + report.executable + ": " +
                               oneLine(text(e, "error"), 400);
      report.error = report.error.empty() ? line : report.error;
    }
  {
    std::lock_guard<std::mutex> shown(m_reportMutex);
    m_report = std::move(report);
  }
  if (m_report->torchVersion.empty()) howItEnded();  // it exits after saying so: reaped, not left a zombie
}

std::optional<PythonHostReport> PythonWorker::lastReport() const {
  std::lock_guard<std::mutex> shown(m_reportMutex);
  return m_report;
}

void PythonWorker::startIfNotRunning(const std::function<bool()>& cancelled) {
  // A worker that ended while idle (killed, out of memory) is reaped and replaced: its death
  // must not fail a call that never reached it.
  if (m_pid > 0) {
    int status = 0;
    pid_t r;
    while ((r = waitpid(m_pid, &status, WNOHANG)) < 0 && errno == EINTR) {
    }
    if (r == m_pid) {
      m_pid = -1;
      m_socket = UniqueFd();
    }
  }
  if (m_pid <= 0) start(cancelled);
}

PythonHostReport PythonWorker::report(const std::function<bool()>& cancelled) {
  std::lock_guard<std::mutex> lock(m_mutex);
  if (!m_report) start(cancelled);
  return *m_report;
}

HostMessage PythonWorker::call(const nlohmann::json& request, const std::vector<int>& fds,
                               const std::function<bool()>& cancelled) {
  std::optional<HostMessage> reply;
  exchange([&](const HostMemory&, std::vector<int>& out) { out = fds; return request; },
           [&](HostMessage& r, const HostMemory&) { reply = std::move(r); }, cancelled);
  return std::move(*reply);
}

void PythonWorker::exchange(const std::function<nlohmann::json(const HostMemory&, std::vector<int>&)>& makeRequest,
                            const std::function<void(HostMessage&, const HostMemory&)>& takeReply,
                            const std::function<bool()>& cancelled) {
  std::lock_guard<std::mutex> lock(m_mutex);
  // A worker that died just before (its threads still on their way out, its end of the socket
  // with them) never read the request: that one call goes to a new worker. A worker that read
  // it and then died may have begun the op: that call fails.
  for (int attempt = 0;; ++attempt) {
    startIfNotRunning(cancelled);
    // the buffers this attempt lent are free again when it ends, however it ends
    struct EndCall {
      SharedBuffers& buffers;
      ~EndCall() { buffers.endCall(); }
    } endCall{*m_buffers};
    const HostMemory memory{m_arena, *m_buffers};
    std::vector<int> fds;
    nlohmann::json request = makeRequest(memory, fds);
    const std::vector<std::uint32_t> forgotten = m_buffers->forgotten();
    if (!forgotten.empty()) request["forget"] = forgotten;
    try {
      HostMessage reply = callLocked(request, fds, cancelled);
      m_buffers->answered(forgotten.size());
      takeReply(reply, memory);
      return;
    } catch (const RequestUnread& unread) {
      if (attempt > 0) throw PythonCallError(unread.message, {}, /*workerEnded=*/true);
    }
  }
}

HostMessage PythonWorker::callLocked(const nlohmann::json& request, const std::vector<int>& fds,
                                     const std::function<bool()>& cancelled) {
  if (!m_report->error.empty()) throw PythonCallError(m_report->error);
  const double deadline = monotonicSeconds() + m_options.callTimeoutSeconds;
  HostMessage reply;
  try {
    sendHostMessage(m_socket.get(), request, fds);
    m_buffers->sent();
    switch (waitReadable(m_socket.get(), deadline, cancelled)) {
      case WaitEnd::Ready: break;
      case WaitEnd::Cancelled:
        stop();
        throw PythonCallCancelled{};
      case WaitEnd::TimedOut: {
        stop();
        char limit[32];
        std::snprintf(limit, sizeof limit, "%g", m_options.callTimeoutSeconds);
        throw PythonCallError(std::string("the call took longer than ") + limit +
                                  " s (the limit --python-timeout sets); the Python worker was stopped",
                              {}, /*workerEnded=*/true);
      }
    }
    reply = receiveHostMessage(m_socket.get(), deadline);
  } catch (const HostChannelError& e) {
    const std::string message = howItEnded() + " (" + e.what() + ")";
    if (e.unread()) throw RequestUnread{message};
    throw PythonCallError(message, {}, /*workerEnded=*/true);
  }
  const auto ok = reply.body.find("ok");
  if (ok == reply.body.end() || !ok->is_boolean())
    throw PythonCallError("the Python worker's reply has no \"ok\"");
  if (!ok->get<bool>()) {
    const std::string error = text(reply.body, "error");
    throw PythonCallError(oneLine(error.empty() ? "the Python op failed" : error, 2000),
                          text(reply.body, "traceback").substr(0, 64 * 1024));
  }
  return reply;
}

}  // namespace torchir
