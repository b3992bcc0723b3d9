// A whole .pt2 (zip, models/model.json, weight and constant configs, pickled weights of older
// layouts, sample inputs), then what opening it shows: the FX table, the summary, the modules.
#include "FuzzInput.h"
#include "program/FxTable.h"
#include "program/ModuleTree.h"
#include "program/ProgramSummary.h"
#include "formats/Pt2Reader.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, std::size_t size) {
  torchir::fuzz::MemoryFile file(data, size);
  torchir::fuzz::expectLoadErrorOrSuccess([&] {
    torchir::Program p = torchir::readPt2(file.path());
    torchir::buildModuleTree(p);
    torchir::fxTable(p);
    torchir::summarize(p);
  });
  return 0;
}
