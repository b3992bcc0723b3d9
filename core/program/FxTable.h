#pragma once
#include <cstddef>
#include <functional>
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

/// Rows `first` to `last` (exclusive) of the same table, each handed to `take(row, cells)` as it
/// is made. Reads the program only: several ranges may be made at once on several threads.
void fxTableRows(const Program& program, std::size_t first, std::size_t last,
                 const std::function<void(std::size_t, FxRow&&)>& take);

}  // namespace torchir
