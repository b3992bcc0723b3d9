#pragma once
// Ops defined in Python, run by the user's own Python (pyhost/PythonWorker): an op the dispatcher
// does not hold is asked of the host, registered with the dispatcher under the schema the host
// gives, and called through a boxed kernel that passes its arguments to the worker through
// shared memory. pytorch-ir executor files' executors join the executor registry. The rest of
// the engine sees dispatcher ops and executors as any other.
#include <ATen/core/dispatch/Dispatcher.h>

#include <functional>
#include <optional>
#include <string>

#include "pyhost/PythonHostOptions.h"
#include "pyhost/PythonWorker.h"

namespace torchir {

/// Names the Python that serves ops defined in Python (empty python: none). A change replaces the
/// worker; ops registered already stay in the dispatcher and call the new one.
void setPythonHost(const PythonHostOptions& options);
PythonHostOptions pythonHost();

/// Starts the worker when a Python is named and imports something (so its executors register
/// before a session resolves its nodes), and returns its report; an empty report when none is
/// named. Throws PythonCallError when it cannot start.
PythonHostReport preparePythonHost();

/// The op `ns::name` (overload "" for .default) as the named Python defines it, registered with the
/// dispatcher on the first ask; nullopt when no Python is named or it does not define the op.
std::optional<c10::OperatorHandle> pythonOperator(const std::string& name, const std::string& overload);
/// Why the named Python does not serve `ns::name.overload` ("" when it does or none is named).
std::string pythonOperatorProblem(const std::string& name, const std::string& overload);
/// What the sources of modules in the named Python's path say of `ns::name`.
struct PythonOpSources {
  std::vector<std::string> defining;  // register it (custom_op, define, a Library's kernel of it)
  std::vector<std::string> naming;    // only name it ("ns::name": a register_fake, a mention)
};
/// Those of `modules`, then those of the installed `packages`, as the worker reads their files
/// (it imports none of them), less the modules the Python imports already. Empty when no Python
/// is named or it cannot say.
PythonOpSources pythonModulesDefining(const std::string& name, const std::vector<std::string>& modules,
                                      const std::vector<std::string>& packages);
/// Whether the dispatcher's op was registered here, to be run in Python.
bool isPythonOperator(const c10::OperatorHandle& op);
/// "Python 3.11.7 (/usr/bin/python3)": what a node run in Python says it ran in.
std::string pythonHostLabel();
/// The worker's process id (-1: none runs): tests stop it from outside.
int pythonWorkerPid();

/// What calls to Python passed since the process started (PythonCallTraffic).
PythonCallTraffic pythonCallTraffic();

/// While alive on a thread, a Python call made there ends when `cancelled` says so (the run's Stop).
class PythonCallCancelScope {
 public:
  explicit PythonCallCancelScope(std::function<bool()> cancelled);
  ~PythonCallCancelScope();
  PythonCallCancelScope(const PythonCallCancelScope&) = delete;
  PythonCallCancelScope& operator=(const PythonCallCancelScope&) = delete;

 private:
  std::function<bool()> m_cancelled;
  const std::function<bool()>* m_outer = nullptr;
};

}  // namespace torchir
