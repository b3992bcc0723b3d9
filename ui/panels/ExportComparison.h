#pragma once
#include <QString>

#include "exec/ExecTypes.h"
#include "program/Program.h"

namespace torchir::ui {

/// What differs between the tensors a node's run produced and what export recorded for them: one
/// phrase per differing output ("output 0: export recorded float32[3, 3], this run gave
/// float64[3, 3]"), empty when they agree. Symbolic dimensions match any size (their ranges are
/// checked when inputs are set).
QString exportDifference(const torchir::Program& program, torchir::NodeId node, const torchir::NodeRecord& record);

}  // namespace torchir::ui
