#pragma once
// Layer sensitivity in a comparison's report and its JSON: the ranked gains as the report's chart.
#include "compare/ComparisonReport.h"
#include "quant/LayerSensitivity.h"

namespace torchir {

/// One bar per layer in the ranking's order, as long as the dB the output gains with that layer
/// alone in float.
ReportChart sensitivityChart(const SensitivityResult& r, const Program& a);

}  // namespace torchir
