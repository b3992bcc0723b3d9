#pragma once
// The status bar's texts about the program shown and its comparison.
#include <QString>

#include "program/Program.h"
#include "session/ComparisonResult.h"

namespace torchir::ui {

/// The permanent status-bar text for a program: "pt2 · torch 2.14.1 · 193 nodes".
QString programStatusText(const torchir::Program& program);

/// "Compared 12 nodes with float64: the first divergence is at 'sub'", with the nodes that only
/// one side has.
QString comparisonStatusText(const ComparisonResult& comparison, const torchir::Program& program);

}  // namespace torchir::ui
