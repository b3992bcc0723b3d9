#pragma once
// How every panel writes shapes and tensor summaries, so the same tensor reads the same in the FX
// table, the arguments panel, the tensor viewer and the export comparison.
#include <QString>
#include <vector>

#include "exec/ExecTypes.h"
#include "program/Program.h"

namespace torchir::ui {

/// "[1, 64, 56, 56]" (also for strides).
QString sizesText(const std::vector<int64_t>& sizes);
/// A statistic or element, six significant digits: "0.170375", "1.5e-06".
QString numberText(double v);
/// "[1, 64, s0, 56]": concrete sizes, or the symbol where a dimension is dynamic.
QString exportedShapeText(const torchir::Value& value);
/// "float32[1, 64, 56, 56]" for a tensor; the value's text for anything else.
QString valueSummaryText(const torchir::ValueSummary& value);

}  // namespace torchir::ui
