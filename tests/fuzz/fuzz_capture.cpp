// A capture from a stranger (capture/CaptureFile): the safetensors container, then the JSON of
// its metadata, every field checked.
#include "FuzzInput.h"
#include "capture/CaptureFile.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, std::size_t size) {
  torchir::fuzz::MemoryFile file(data, size);
  torchir::fuzz::expectLoadErrorOrSuccess([&] {
    const torchir::Capture c = torchir::readCapture(file.path());
    for (const auto& [node, patches] : c.patches)
      for (const auto& p : patches)
        if (p.kind == torchir::ArgumentPatch::Kind::Replace) p.tensor.contiguousBytes();
  });
  return 0;
}
