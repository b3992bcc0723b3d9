#pragma once
// Runs a node through a registered custom executor (ExecutorRegistry.h).
#include "ArgumentBuilder.h"
#include "ExecutorRegistry.h"

namespace torchir {

/// Gathers the node's tensor inputs (in argument order) and its other arguments as attrs, calls
/// the executor and stores its results in the node's outputs, in order. Records the arguments.
/// Throws MissingValue, or std::runtime_error when the executor returns too few tensors.
void runCustomExecutor(const Executor& executor, const Program& program, const Node& node, FrameValues& values,
                       std::vector<ArgumentRecord>& records);

}  // namespace torchir
