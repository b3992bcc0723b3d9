#pragma once
#include "exec/ExecTypes.h"

namespace torchir {

/// Classifies libtorch's message for a failed call and explains it in the terms of the node's
/// arguments: which tensors disagree, and what the user can change.
void explainFailure(Diagnosis& d);

}  // namespace torchir
