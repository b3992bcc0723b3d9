// An ETDump (size prefix, verified flatbuffer, runs, profile and debug events), its tensors read
// against a debug buffer of fixed size: every view must lie inside it or say why it does not.
#include <vector>

#include "FuzzInput.h"
#include "executorch/EtDump.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, std::size_t size) {
  static const auto buffer = torchir::fuzz::fixedDebugBuffer();
  torchir::fuzz::expectLoadErrorOrSuccess([&] {
    const torchir::EtDump d = torchir::readEtDumpBytes(reinterpret_cast<const std::byte*>(data), size, "fuzz.etdp", buffer);
    for (const auto& run : d.runs)
      for (const auto& e : run.debugs)
        for (const auto& t : e.tensors)
          if (t.hasData()) (void)t.contiguousBytes();
  });
  return 0;
}
