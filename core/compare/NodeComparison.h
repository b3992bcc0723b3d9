#pragma once
// One node of a run compared with the node of a reference run that stands for it.
#include <optional>
#include <string>

#include "compare/TensorMetrics.h"
#include "program/Program.h"

namespace torchir {

/// One node of A and the node of B that stands for it.
struct NodeComparison {
  NodeId a = kNone, b = kNone;
  /// The output that differs most (of a multi-output node), and how.
  int output = 0;
  TensorMetrics metrics;
  double tolerance = 0;
  /// The node's own error: max relative difference of A's output from B's op run on A's inputs
  /// (infinite where A's op makes NaN or Inf and B's does not). A node that adds error has a
  /// large one; a node that inherits it, a small one.
  std::optional<double> ownRel;
  /// The same own error as SQNR (dB). For a quantized node, B's op is run on the values A's
  /// inputs had before their quantize/dequantize (the float activations) and B's weights: what
  /// quantizing this layer alone costs it.
  std::optional<double> ownSqnrDb;
  std::string ownProblem;  // why the own error was not measured, when it was wanted
  bool diverges = false;
  /// Diverges and adds error of its own (or none of its inputs diverged): where a stop lands.
  bool startsDivergence = false;
  /// NaN or Inf in A's output from finite inputs.
  bool makesNonfinite = false;
  std::string problem;  // why nothing was compared (B failed before it, a value was released, ...)
  /// A device's time for the instruction this node ends (an ETDump's median, ms): core/device.
  std::optional<double> deviceMs;
};

}  // namespace torchir
