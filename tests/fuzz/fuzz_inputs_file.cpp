// An inputs file (--inputs F.safetensors) for a program of two user inputs, `x` and `y`.
#include "FuzzInput.h"
#include "formats/InputsFile.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, std::size_t size) {
  static const torchir::Program program = [] {
    torchir::Program p;
    for (const char* name : {"x", "y"}) {
      torchir::Value v;
      v.id = static_cast<torchir::ValueId>(p.values.size());
      v.name = name;
      p.values.push_back(v);
      p.inputs.push_back(torchir::InputSpec{torchir::InputKind::UserInput, v.id, {}, true});
    }
    return p;
  }();
  torchir::fuzz::MemoryFile file(data, size);
  torchir::fuzz::expectLoadErrorOrSuccess([&] {
    for (const auto& t : torchir::readInputsFile(program, file.path())) t.contiguousBytes();
  });
  return 0;
}
