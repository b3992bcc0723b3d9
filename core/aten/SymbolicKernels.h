#pragma once
// Kernels for what the dispatcher does not hold: Python's operator/math functions on SymInts,
// which export leaves in dynamic-shape programs (`_operator.mul`, `math.ceil`, `torch.sym_max`).
#include <string>

#include "ArgumentBuilder.h"

namespace torchir {

bool isSymbolicTarget(const std::string& target);
/// Computes the node's one output from its int/float/bool arguments; throws std::runtime_error.
void runSymbolic(const Node& node, FrameValues& values, NodeRecord& record);

}  // namespace torchir
