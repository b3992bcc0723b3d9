#pragma once
// Tensor-subclass weights (torchao's quantized weights) in a run, without Python: the weight is
// held as its inner tensors by attribute, and `export.access_subclass_inner_tensor` picks one.
#include <functional>
#include <memory>

#include "NodeKernels.h"

namespace torchir {

/// How a run holds a subclass weight: a dict of its inner tensors by attribute (a nested subclass
/// as a dict in it), each made by `place` (the session's dtype and device).
c10::IValue subclassValue(const TensorSubclass& subclass, const std::function<at::Tensor(at::Tensor)>& place);

/// Whether the node is `export.access_subclass_inner_tensor` (a .pt2's target or the IR's).
bool isSubclassInnerTarget(const std::string& target);

/// Its kernel: the inner tensor named by the node's `attr` of the subclass its first argument holds.
std::unique_ptr<NodeKernel> subclassInnerKernel(const Program& p, const Node& n);

}  // namespace torchir
