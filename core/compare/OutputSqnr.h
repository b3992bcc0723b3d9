#pragma once
// The SQNR of a run's user outputs against a reference run's: the comparison's one number for the
// whole program.
#include <functional>
#include <optional>
#include <vector>

#include "exec/Session.h"

namespace torchir {

/// The program's user outputs, in order (not its mutated buffers or tokens).
std::vector<ValueId> userOutputs(const Program& p);

/// The SQNR of the user outputs of a, whose values `valueOfA` gives (its own, or values a what-if
/// made instead), against b's: the lowest over the floating outputs (torchao's SQNR, the run
/// under test as the signal).
double outputSqnrDb(const Session& a, const Session& b,
                    const std::function<std::optional<TensorData>(ValueId)>& valueOfA);

}  // namespace torchir
