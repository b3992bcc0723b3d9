#pragma once
// What can be known about a program without running it: the Problems panel and `torchir check`.
#include <string>
#include <vector>

#include "program/Program.h"

namespace torchir {

class AtenBackend;

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
/// node order. `inputs`, when given, are checked against the export (count, dtype, shape, dynamic
/// ranges). `backend` makes a session to find the nodes it cannot run.
std::vector<Problem> checkProgram(const Program& program, const AtenBackend& backend,
                                  const std::vector<TensorData>* inputs = nullptr);

/// Whether any of them would stop a run.
bool stopsARun(const std::vector<Problem>& problems);

}  // namespace torchir
