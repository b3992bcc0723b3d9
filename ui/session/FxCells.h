#pragma once
#include <QString>
#include <array>
#include <vector>

#include "program/FxTable.h"

namespace torchir::ui {

/// The FX table's cells (opcode, name, target, args, kwargs) as the table view shows them. Converted
/// on the loader thread: for a 30k-node program that is 150k strings the GUI thread need not make.
using FxCells = std::vector<std::array<QString, 5>>;

inline std::array<QString, 5> cellsOf(const torchir::FxRow& row) {
  return {QString::fromStdString(row.opcode), QString::fromStdString(row.name), QString::fromStdString(row.target),
          QString::fromStdString(row.args), QString::fromStdString(row.kwargs)};
}

inline FxCells toFxCells(const std::vector<torchir::FxRow>& rows) {
  FxCells cells;
  cells.reserve(rows.size());
  for (const torchir::FxRow& row : rows) cells.push_back(cellsOf(row));
  return cells;
}

/// The program's cells, made in two halves at once (on the calling thread and one more): a
/// 100k-node program's 850k cells take 0.4 s on one core, which the window waits for.
FxCells fxCellsOf(const torchir::Program& program);

}  // namespace torchir::ui
