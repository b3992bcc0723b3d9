#include "CommandSession.h"

#include <algorithm>
#include <cstdlib>
#include <iostream>

#include "exec/AtenBackend.h"
#include "formats/InputsFile.h"
#include "program/OneLine.h"

namespace torchir::cli {

namespace {

bool endsWith(const std::string& s, const std::string& tail) {
  return s.size() >= tail.size() && s.compare(s.size() - tail.size(), tail.size(), tail) == 0;
}

/// Starts the worker the options name (when they import something, so that its executors register
/// before a session resolves its nodes); false, the error printed, when it cannot serve.
bool preparePython(const PythonHostOptions& python) {
  const AtenBackend& backend = atenBackend();
  backend.setPythonHost(python);
  if (python.imports.empty() && python.executorFiles.empty()) return true;  // started when an op asks
  try {
    const PythonHostReport report = backend.preparePythonHost();
    for (const std::string& w : report.warnings) std::cerr << "warning: " << w << "\n";
    if (!report.error.empty()) {
      std::cerr << "error: " << report.error << "\n";
      return false;
    }
  } catch (const std::runtime_error& e) {
    std::cerr << "error: " << e.what() << "\n";
    return false;
  }
  return true;
}

/// `--python-import auto`: the modules the programs point to whose source (in the named Python's
/// path) defines an op the dispatcher lacks, nearest first, as the diagnoses of a planned session
/// name them. The user asked for them by saying auto.
std::vector<std::string> modulesDefiningMissingOps(const std::vector<const Program*>& programs,
                                                   const std::vector<std::string>& named) {
  std::vector<std::string> found;
  for (const Program* p : programs) {
    if (!p) continue;
    for (const Diagnosis& d : atenBackend().createSession(*p)->plannedProblems())
      if (!d.pythonImports.empty() && std::find(found.begin(), found.end(), d.pythonImports.front()) == found.end() &&
          std::find(named.begin(), named.end(), d.pythonImports.front()) == named.end()) {
        std::cerr << "note: --python-import auto: importing " << d.pythonImports.front() << ", whose source defines "
                  << d.opType << "\n";
        found.push_back(d.pythonImports.front());
      }
  }
  return found;
}

/// --python (else $TORCHIR_PYTHON), --python-import (auto: what the programs point to), the .py
/// files of --executors, --python-timeout: false, the error printed, when they do not make a Python
/// that can serve.
bool applyPythonOptions(const Args& args, const std::vector<const Program*>& programs) {
  PythonHostOptions python;
  python.python = args.option("--python");
  if (python.python.empty())
    if (const char* env = std::getenv("TORCHIR_PYTHON")) python.python = env;
  python.imports = args.all("--python-import");
  const auto autoAt = std::remove(python.imports.begin(), python.imports.end(), "auto");
  const bool automatic = autoAt != python.imports.end();
  python.imports.erase(autoAt, python.imports.end());
  for (const std::string& f : args.all("--executors"))
    if (endsWith(f, ".py")) python.executorFiles.push_back(f);
  if (args.flag("--python-timeout")) {
    char* end = nullptr;
    const std::string text = args.option("--python-timeout");
    const double seconds = std::strtod(text.c_str(), &end);
    if (text.empty() || *end || !(seconds > 0) || seconds > 1e7) {
      std::cerr << "error: --python-timeout takes a number of seconds, not '" << oneLine(text) << "'\n";
      return false;
    }
    python.callTimeoutSeconds = seconds;
  }
  if (!python.named() && (automatic || !python.imports.empty() || !python.executorFiles.empty())) {
    std::cerr << "error: " << (automatic || !python.imports.empty() ? "--python-import" : "a pytorch-ir executor file")
              << " needs a Python to run in: name it with --python PATH (or TORCHIR_PYTHON)\n";
    return false;
  }
  if (!python.named()) return true;
  if (!preparePython(python)) return false;
  if (!automatic) return true;
  std::vector<std::string> found;
  try {
    found = modulesDefiningMissingOps(programs, python.imports);
  } catch (const std::runtime_error& e) {
    std::cerr << "error: " << e.what() << "\n";
    return false;
  }
  if (found.empty()) {
    std::cerr << "note: --python-import auto: the program points to no module whose source defines an op it lacks\n";
    return true;
  }
  python.imports.insert(python.imports.end(), found.begin(), found.end());
  return preparePython(python);
}

}  // namespace

bool applyBackendOptions(const Args& args, const std::vector<const Program*>& programs) {
  for (const std::string& f : args.all("--executors")) {
    if (endsWith(f, ".py")) continue;  // run by the Python host
    try {
      atenBackend().loadExecutors(f);
    } catch (const std::runtime_error& e) {
      std::cerr << "error: " << e.what() << "\n";
      return false;
    }
  }
  if (args.flag("--threads")) {
    // Intra-op threads; results match eager PyTorch's bit for bit at the same count.
    const std::string threads = args.option("--threads");
    if (threads.empty() || threads.size() > 4 || threads.find_first_not_of("0123456789") != std::string::npos ||
        std::stoi(threads) < 1) {
      std::cerr << "error: --threads takes a positive number, not '" << threads << "'\n";
      return false;
    }
    atenBackend().setThreads(std::stoi(threads));
  }
  // after --threads: a worker started here runs ops on the same number of threads as we do
  return applyPythonOptions(args, programs);
}

std::shared_ptr<const Program> keptProgram(const Program& program) {
  return std::shared_ptr<const Program>(std::shared_ptr<void>(), &program);  // loadForCommand keeps it
}

DebugTarget commandTarget(const Program& program, const Args& args, bool randomWhenNone) {
  DebugTarget target;
  target.program = keptProgram(program);
  target.path = program.source.path;
  target.constantsPath = args.option("--constants");
  target.inputs.file = args.option("--inputs");
  if (args.flag("--random-inputs")) target.inputs.randomSeed = std::stoull(args.option("--random-inputs", "0"));
  target.inputs.randomWhenNone = randomWhenNone;
  target.castWeights = args.flag("--cast-weights");
  return target;
}

}  // namespace torchir::cli
