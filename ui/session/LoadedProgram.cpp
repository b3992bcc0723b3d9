#include "session/LoadedProgram.h"

#include "compare/KeepInFloat.h"
#include "program/FxTable.h"

namespace torchir::ui {

void deriveViews(LoadedProgram& loaded) {
  loaded.fxCells = fxCellsOf(loaded.program);
  loaded.quantizedLayers = torchir::quantizedLayers(loaded.program);
  loaded.missingData = loaded.program.missingData();
  loaded.weightsOfOtherDtype = torchir::weightsOfOtherDtype(loaded.program);
}

}  // namespace torchir::ui
