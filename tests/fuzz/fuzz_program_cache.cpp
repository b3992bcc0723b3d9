// A program cache entry's graph (ProgramCodec), as a damaged or hostile entry would hold it:
// decoding checks every count, index, kind and what the JSON reader guarantees, then what opening
// it shows (the module tree, the FX table, the summary) and what a comparison of the program with
// itself walks. Seeds: make_program_cache_seeds encodes the zoo's programs.
#include <string_view>

#include "FuzzInput.h"
#include "ModuleHintsWalk.h"
#include "compare/NodeMatching.h"
#include "formats/ProgramCodec.h"
#include "program/FxTable.h"
#include "program/ModuleTree.h"
#include "program/ProgramSummary.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, std::size_t size) {
  torchir::fuzz::expectLoadErrorOrSuccess([&] {
    torchir::Program p =
        torchir::decodeProgramGraph(std::string_view(reinterpret_cast<const char*>(data), size), "fuzz.program");
    torchir::buildModuleTree(p);
    torchir::fxTable(p);
    torchir::summarize(p);
    torchir::matchNodes(p, p);
    torchir::fuzz::walkModuleHints(p);
    (void)torchir::encodeProgramGraph(p);
  });
  return 0;
}
