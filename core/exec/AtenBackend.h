#pragma once
#include <memory>
#include <string>
#include <vector>

#include "exec/Session.h"
#include "program/OpSchema.h"
#include "pyhost/PythonHostOptions.h"

namespace torchir {

/// Everything that needs libtorch, behind an interface without torch types. It lives in the
/// shared library `libtorchir_aten.so`, loaded on first use: libtorch's start-up (~0.3 s of
/// operator registration) is paid only by work that calls ATen, not by `torchir info`.
class AtenBackend {
 public:
  virtual ~AtenBackend() = default;
  /// The schema's arguments of an op named as pytorch-ir names it (`aten.linear.default`);
  /// empty when the dispatcher does not know the op.
  virtual std::vector<SchemaArgSpec> schemaSpecs(const std::string& opType) const = 0;
  /// Loads a shared library that registers custom executors (TORCHIR_REGISTER_EXECUTOR); throws
  /// std::runtime_error naming the library when it cannot be loaded.
  virtual void loadExecutors(const std::string& sharedLibrary) const = 0;
  /// Op types with a registered executor, sorted.
  virtual std::vector<std::string> registeredExecutors() const = 0;
  /// Names the Python that runs ops defined in Python (empty python: none), for sessions made after.
  virtual void setPythonHost(const PythonHostOptions& options) const = 0;
  virtual PythonHostOptions pythonHost() const = 0;
  /// Starts that Python's worker if it imports something (its executors then register) and says
  /// what it found; an empty report when none is named. Throws std::runtime_error when it cannot start.
  virtual PythonHostReport preparePythonHost() const = 0;
  /// The worker's process id, -1 when none runs.
  virtual int pythonWorkerPid() const = 0;
  virtual PythonCallTraffic pythonCallTraffic() const = 0;
  /// libtorch's intra-op threads (at::set_num_threads), for the whole process.
  virtual void setThreads(int threads) const = 0;
  virtual int threads() const = 0;  // ATen's intra-op threads now
  /// A run of `program` through the dispatcher. The program must outlive the session. Throws
  /// std::runtime_error for a device this libtorch or machine does not have, or a Python named
  /// that cannot serve (preparePythonHost's error).
  virtual std::unique_ptr<Session> createSession(const Program& program, const SessionOptions& options = {}) const = 0;
  /// The bytes `torch.save((tuple(args), {}))` writes (libtorch's pickle_save): a .pt2's sample inputs.
  virtual std::string torchSaveArgs(const std::vector<TensorData>& args) const = 0;
  /// Whether `device` ("cpu", "cuda") can run here, and if not, why.
  virtual std::string deviceProblem(const std::string& device) const = 0;
};

/// Loads the backend once (thread-safe); throws std::runtime_error naming what failed.
const AtenBackend& atenBackend();

}  // namespace torchir
