// The ExportedProgram JSON (`models/model.json`) alone: parsing (the nodes' from_node provenance
// too), the graph builder, the FX table, pairing the program with itself as a comparison does, and
// the modules a missing op's diagnosis would name.
#include <string_view>

#include "FuzzInput.h"
#include "ModuleHintsWalk.h"
#include "compare/NodeMatching.h"
#include "formats/ExportedProgramReader.h"
#include "program/FxTable.h"
#include "program/ModuleTree.h"
#include "program/ProgramSummary.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, std::size_t size) {
  torchir::fuzz::expectLoadErrorOrSuccess([&] {
    torchir::Program p;
    const std::string text(reinterpret_cast<const char*>(data), size);  // the fuzzer's bytes are not padded
    torchir::readExportedProgram(text, text.capacity(), "fuzz.pt2", "models/model.json", p);
    torchir::buildModuleTree(p);
    torchir::fxTable(p);
    torchir::summarize(p);
    torchir::matchNodes(p, p);
    torchir::fuzz::walkModuleHints(p);
  });
  return 0;
}
