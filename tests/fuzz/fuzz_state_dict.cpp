// A torch.save state dict (.pt/.pth/.bin: zip, data.pkl, storages) or a .safetensors, as
// --weights reads it, then supplied to a one-weight program as the loader does.
#include "FuzzInput.h"
#include "formats/WeightsFile.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, std::size_t size) {
  torchir::fuzz::MemoryFile file(data, size);
  torchir::fuzz::expectLoadErrorOrSuccess([&] {
    for (const auto& [name, t] : torchir::readWeightsFile(file.path())) {
      if (t.hasData()) t.contiguousBytes();
    }
  });
  return 0;
}
