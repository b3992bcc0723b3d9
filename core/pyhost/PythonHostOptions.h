#pragma once
// Which Python runs the ops defined in Python, and what it imports: only the user's flags and
// settings fill this, never a program file.
#include <cstddef>
#include <string>
#include <vector>

namespace torchir {

struct PythonHostOptions {
  std::string python;                      // the interpreter (a path, or a name on PATH); empty: no host
  std::vector<std::string> imports;        // modules imported first (they register torch.library ops)
  std::vector<std::string> executorFiles;  // pytorch-ir executor files (`register_executor`), imported by path
  double callTimeoutSeconds = 600;         // one call longer than this stops the worker
  bool named() const { return !python.empty(); }
  bool operator==(const PythonHostOptions& o) const {
    return python == o.python && imports == o.imports && executorFiles == o.executorFiles &&
           callTimeoutSeconds == o.callTimeoutSeconds;
  }
};

/// What the host said when it started: which Python and torch, what it serves, what failed.
struct PythonHostReport {
  std::string python;      // the interpreter named
  std::string executable;  // sys.executable
  std::string pythonVersion, torchVersion;
  std::vector<std::string> executors;  // the names pytorch-ir executor files registered
  std::vector<std::string> warnings;   // one line each: another torch version than ours
  std::string error;                   // one line: why it cannot serve (no torch, an import failed, ...)
};

/// The bytes of tensors over the shared arena's size that calls to Python passed since the
/// process started: copied into shared memory, or named as the pages of a file mapped here (a
/// weight read from a .pt2 or a safetensors file), which the worker maps without a copy.
struct PythonCallTraffic {
  std::size_t copiedBytes = 0;
  std::size_t fileBytes = 0;
  std::size_t buffersMade = 0;  // shared buffers made for large tensors (each a memfd faulted in)
};

}  // namespace torchir
