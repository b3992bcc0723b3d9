#include "session/LoadedProgram.h"

#include "compare/KeepInFloat.h"
#include "program/FxTable.h"

namespace torchir::ui {

void deriveViews(LoadedProgram& loaded) {
  loaded.fxCells = toFxCells(torchir::fxTable(loaded.program));
  loaded.quantizedLayers = torchir::quantizedLayers(loaded.program);
}

}  // namespace torchir::ui
