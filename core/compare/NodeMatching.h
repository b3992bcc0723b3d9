#pragma once
// Which node of a reference program stands for each node of the program under test.
#include <utility>
#include <vector>

#include "program/Program.h"

namespace torchir {

struct NodeMatching {
  std::vector<NodeId> bOf;                 // per node of A: its node in B, or kNone
  std::vector<NodeId> unmatchedA, unmatchedB;  // op nodes only one side has, in program order
  /// Quantization itself (quantize, dequantize, choose_qparams, a subclass's inner tensor): op
  /// nodes with no float counterpart by nature, not "only in" a side.
  std::vector<NodeId> quantizationA, quantizationB;
  /// Nodes of B that A folded into one of its own (a conv and the batch norm after it, one conv
  /// with the norm in its weights after pt2e's prepare): (node of B, node of A that now makes
  /// their value). A's node is compared with the last of them.
  std::vector<std::pair<NodeId, NodeId>> foldedB;
  /// Nodes of A made from the same original node as a paired one (an op decomposed in place):
  /// the last of them stands for it.
  std::vector<NodeId> partsA;
  /// How many pairs each rule made.
  int byOrigin = 0, byDebugHandle = 0, byName = 0, byPlace = 0;

  /// Op nodes of A that are not quantization, and how many of them pair.
  int opNodesA = 0, opNodesB = 0;
  int paired() const { return byOrigin + byDebugHandle + byName + byPlace; }
  /// Two exports of one model pair most of their nodes; less than half of the smaller side is
  /// two different programs, whose table would be noise.
  bool twins() const;
};

/// The same program on both sides: every node stands for itself.
NodeMatching identityMatching(const Program& p);

/// Two programs (two exports of one model, before and after a change, or a quantized program and
/// its float export): op nodes are paired by the oldest ancestor of their `from_node` provenance
/// (what torchao's numeric debugger pairs by), then by `numeric_debug_handle`, then by name when
/// the op is the same too, then by innermost module path, op and order among those (the third
/// `linear` of `layers.2.mlp`). Quantize/dequantize nodes are counted as quantization.
NodeMatching matchNodes(const Program& a, const Program& b);

}  // namespace torchir
