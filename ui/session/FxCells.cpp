#include "session/FxCells.h"

#include <future>

namespace torchir::ui {

FxCells fxCellsOf(const torchir::Program& program) {
  const std::size_t rows = program.nodes.size();
  FxCells cells(rows);
  auto make = [&program, &cells](std::size_t first, std::size_t last) {
    torchir::fxTableRows(program, first, last, [&cells](std::size_t i, torchir::FxRow&& row) { cells[i] = cellsOf(row); });
  };
  // Below a few thousand rows a thread costs more than it saves.
  constexpr std::size_t kRowsWorthAThread = 4096;
  if (rows < kRowsWorthAThread) {
    make(0, rows);
    return cells;
  }
  auto secondHalf = std::async(std::launch::async, make, rows / 2, rows);
  make(0, rows / 2);
  secondHalf.get();
  return cells;
}

}  // namespace torchir::ui
