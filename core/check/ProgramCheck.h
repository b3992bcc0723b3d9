#pragma once
// What can be known about a program without running it: the Problems panel and `torchir check`.
#include <optional>
#include <string>
#include <vector>

#include "program/Program.h"

namespace torchir {

class Session;

enum class Severity : uint8_t {
  Error,    // a run would stop here
  Warning,  // a run goes on, but not as the export recorded
  Info      // worth knowing (dynamic dimensions, what pytorch-ir's conversion refuses)
};
std::string_view severityName(Severity s);

struct Problem {
  Severity severity = Severity::Error;
  std::string kind;  // "op not found", "missing data", "weight dtype", "input dtype", ...
  NodeId node = kNone;  // the node it is about (a weight's or input's placeholder); kNone for the program
  std::string nodeName;
  std::string message;  // one line
};

/// Every problem of `program` that can be found before running it, errors first, each group in
/// node order. `session` (a session of `program`) tells the nodes the engine cannot run; `inputs`,
/// when given, are checked against the export's dtypes.
std::vector<Problem> checkProgram(const Program& program, const Session& session,
                                  const std::vector<TensorData>* inputs = nullptr);

/// The same on a session of the engine made for it; with `inputs`, the engine's own check of them
/// first (count, rank, static sizes, dynamic ranges), a refusal being the first problem. Nothing
/// runs. Throws what making the session throws (no backend).
std::vector<Problem> checkBeforeRunning(const Program& program, const std::vector<TensorData>* inputs = nullptr);

/// Whether any of them would stop a run.
bool stopsARun(const std::vector<Problem>& problems);

}  // namespace torchir
