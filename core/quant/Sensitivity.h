#pragma once
// Layer sensitivity (the quantization debugger): which quantized layer, kept in float alone, gives back the most of the
// output's accuracy. Each layer's run starts where the change matters, at the layer, from the
// quantized run's own values (the run up to it is shared by all), and makes again only the nodes
// that depend on it: a what-if of the one run (exec/WhatIfRun), through the session's kernels.
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "quant/KeepInFloat.h"
#include "quant/LayerSensitivity.h"
#include "compare/NodeMatching.h"
#include "compare/OutputSqnr.h"
#include "exec/Session.h"

namespace torchir {

/// `a` (quantized) and `b` (its float program) have both run to the end; `matching` pairs a's
/// nodes with b's. a's run is made once more first, holding every value and, where an in-place
/// op writes a value, the value as each later node read it. `progress(done, total)` is called
/// before each layer; false cancels. Both runs end as they were.
SensitivityResult layerSensitivity(Session& a, const Session& b, const NodeMatching& matching,
                                   const std::function<bool(std::size_t, std::size_t)>& progress = {},
                                   RunObserver* outer = nullptr);

}  // namespace torchir
