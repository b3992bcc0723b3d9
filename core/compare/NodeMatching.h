#pragma once
// Which node of a reference program stands for each node of the program under test.
#include <vector>

#include "program/Program.h"

namespace torchir {

struct NodeMatching {
  std::vector<NodeId> bOf;                 // per node of A: its node in B, or kNone
  std::vector<NodeId> unmatchedA, unmatchedB;  // op nodes only one side has, in program order
};

/// The same program on both sides: every node stands for itself.
NodeMatching identityMatching(const Program& p);

/// Two programs (two exports of one model, before and after a change): op nodes are matched by
/// name when the op is the same too, the rest by innermost module path, op and order among those
/// (the third `linear` of `layers.2.mlp`).
NodeMatching matchNodes(const Program& a, const Program& b);

}  // namespace torchir
