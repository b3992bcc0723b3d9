#include "session/LoadedProgram.h"

#include <future>

#include "compare/KeepInFloat.h"
#include "program/FxTable.h"

namespace torchir::ui {

void deriveViews(LoadedProgram& loaded) {
  // Beside the cells (themselves made on two threads): the graph and the smaller walks.
  auto graph = std::async(std::launch::async, [&loaded] {
    auto g = std::make_shared<const torchir::layout::ViewGraph>(loaded.program);
    loaded.quantizedLayers = torchir::quantizedLayers(loaded.program);
    loaded.missingData = loaded.program.missingData();
    loaded.weightsOfOtherDtype = torchir::weightsOfOtherDtype(loaded.program);
    return g;
  });
  loaded.fxCells = fxCellsOf(loaded.program);
  loaded.viewGraph = graph.get();
}

}  // namespace torchir::ui
