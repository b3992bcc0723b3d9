#pragma once
// Runtime values as the argument and output views show them. Only inside libtorchir_aten.
#include <ATen/core/ivalue.h>

#include "exec/ExecTypes.h"

namespace torchir {

ValueSummary summarize(const c10::IValue& v);

}  // namespace torchir
