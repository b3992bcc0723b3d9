#pragma once
#include <QString>

#include "program/Program.h"

namespace torchir::ui {

/// The permanent status-bar text for a program: "pt2 · torch 2.14.1 · 193 nodes".
QString programStatusText(const torchir::Program& program);

}  // namespace torchir::ui
