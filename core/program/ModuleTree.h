#pragma once
#include "Program.h"

namespace torchir {

/// Fills program.modules from each node's module stack: one Module per distinct path, children in
/// first-use order, each node under its innermost module (the root for nodes outside any module).
void buildModuleTree(Program& program);

}  // namespace torchir
