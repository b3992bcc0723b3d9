#pragma once
// pytorch-ir attribute values (the Python values IR.save wrote) to the IValue an op schema wants.
#include <ATen/core/ivalue.h>
#include <ATen/core/jit_type.h>

#include <optional>

#include "program/Argument.h"

namespace torchir {

/// Converts `attr` to `type` (the argument's real type). Accepts what the framework writes and
/// what its users stringify: dtype "torch.float32"/"float32", device "meta"/"cpu" (meta becomes the
/// CPU: a meta export creates tensors on the CPU when it runs), layout "torch.strided", memory
/// format "torch.channels_last", non-finite floats. `listSize` is the schema's N for `int[2]`, to
/// broadcast a single int as Python does. Throws std::runtime_error when the value does not fit.
c10::IValue irAttributeValue(const Literal& attr, const c10::TypePtr& type, std::optional<int32_t> listSize = {});

/// A number in a Tensor slot (`x * 0.5` -> attrs {"other": 0.5}) as Python passes it: a 0-dim
/// wrapped-number tensor, so type promotion treats it as a scalar.
c10::IValue irWrappedNumber(const Literal& attr);

}  // namespace torchir
