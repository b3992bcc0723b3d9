#pragma once
#include <string>
#include <vector>

#include "Program.h"

namespace torchir {

/// One row of `torch.fx.Graph.print_tabular()`, each cell as Python's str() shows it.
struct FxRow {
  std::string opcode, name, target, args, kwargs;
};

/// The FX table of a program, row for row as Python prints it for the same graph.
std::vector<FxRow> fxTable(const Program& program);

}  // namespace torchir
