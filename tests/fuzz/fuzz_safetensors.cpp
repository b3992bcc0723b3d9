// A .safetensors file, then every tensor's elements read as the tensor viewer reads them.
#include "FuzzInput.h"
#include "formats/Safetensors.h"
#include "program/TensorValues.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, std::size_t size) {
  torchir::fuzz::MemoryFile file(data, size);
  torchir::fuzz::expectLoadErrorOrSuccess([&] {
    for (const auto& [name, t] : torchir::readSafetensors(file.path())) {
      const auto bytes = t.contiguousBytes();
      if (t.numel() > 0) torchir::elementAsDouble(t, t.numel() - 1);
    }
  });
  return 0;
}
