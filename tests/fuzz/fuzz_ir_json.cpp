// pytorch-ir's IR JSON: parsing (bare NaN/Infinity), the builder, nested-list constants.
#include "FuzzInput.h"
#include "program/FxTable.h"
#include "formats/IrReader.h"
#include "program/ProgramSummary.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, std::size_t size) {
  torchir::fuzz::MemoryFile file(data, size);
  torchir::fuzz::expectLoadErrorOrSuccess([&] {
    const torchir::Program p = torchir::readIrJson(file.path());
    torchir::fxTable(p);
    torchir::summarize(p);
  });
  return 0;
}
