// A whole ExecuTorch program (.pte): identifier, extended header, the verified flatbuffer, its
// plans, segments and named data, then what `torchir info` prints of each instruction.
#include "FuzzInput.h"
#include "executorch/PteProgram.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, std::size_t size) {
  torchir::fuzz::MemoryFile file(data, size);
  torchir::fuzz::expectLoadErrorOrSuccess([&] {
    const torchir::PteProgram p = torchir::readPte(file.path());
    for (const auto& plan : p.plans)
      for (const auto& chain : plan.chains)
        for (const auto& i : chain.instructions) (void)plan.instructionText(i);
    (void)p.constantBytes();
  });
  return 0;
}
