#pragma once
// From a node's target to what runs it: the one place that reads op names.
#include <ATen/core/dispatch/Dispatcher.h>

#include <optional>
#include <string>

namespace torchir {

/// The dispatcher's operator for a target written as "aten.conv2d.default" (a node's target) or
/// "torch.ops.aten.conv2d.default" (an operator argument): exactly the overload named, never a
/// silent fallback to .default. An op the dispatcher does not hold is asked of the Python the user
/// named (PythonOps.h). nullopt when the name has no overload part or no one defines the op.
std::optional<c10::OperatorHandle> findOperator(const std::string& target);

/// Why the named Python does not serve a target findOperator did not find ("" when none is named).
std::string operatorProblem(const std::string& target);

/// The name as the dispatcher spells it, "aten::conv2d" or "aten::max.dim", for messages; the
/// target itself when it is not of the form ns.op.overload.
std::string qualifiedOperatorName(const std::string& target);

/// Whether the target is a higher-order op (cond, while_loop, wrap_with_set_grad_enabled,
/// auto_functionalized, ...): in a .pt2 it shows without a dot (`torch.ops.higher_order.cond` as
/// "cond"), in pytorch-ir's IR as its full name.
bool isHigherOrderTarget(const std::string& target);

}  // namespace torchir
