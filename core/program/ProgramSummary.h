#pragma once
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "Program.h"

namespace torchir {

/// What `pytorch-ir info` reports, with the same meanings, plus what only we know.
struct ProgramSummary {
  std::string modelName;
  int numNodes = 0;    // op nodes: every call_function, getitem included
  int numInputs = 0;   // user inputs
  int numOutputs = 0;  // user outputs
  int numWeights = 0;  // parameters, buffers and lifted constants
  int64_t totalParameters = 0;  // elements of all of them
  std::vector<std::pair<std::string, std::vector<Dim>>> inputShapes, outputShapes;
  std::vector<std::pair<std::string, int>> opDistribution;  // most frequent first, ties by first use
  std::vector<std::string> missingData;
  /// Quantization: nodes by role (quantRoleName), in order of first use; the dtypes the quantize
  /// nodes make and integer weights hold, with counts; tensor-subclass weights by class.
  std::vector<std::pair<std::string, int>> quantNodes, quantDtypes, subclassWeights;
};

ProgramSummary summarize(const Program& program);

}  // namespace torchir
