#include "RunInputs.h"

#include <filesystem>

#include "formats/InputsFile.h"
#include "program/LoadError.h"

namespace torchir {
namespace {

bool samplesUsable(const Program& p) {
  if (p.sampleInputs.empty()) return false;
  for (const auto& t : p.sampleInputs)
    if (!t.hasData()) return false;  // a meta-device export stores shapes only
  return true;
}

std::size_t userInputCount(const Program& p) {
  std::size_t n = 0;
  for (const auto& s : p.inputs) n += s.kind == InputKind::UserInput;
  return n;
}

}  // namespace

RunInputs chooseInputs(const Program& p, const InputsChoice& choice) {
  RunInputs in;
  if (choice.given) {
    in.tensors = *choice.given;
    in.description = choice.givenDescription;
  } else if (!choice.randomSeed && !choice.file.empty()) {
    in.tensors = readInputsFile(p, choice.file);
    in.description = "inputs from " + std::filesystem::path(choice.file).filename().string();
    in.fromFile = true;
  } else if (!choice.randomSeed && samplesUsable(p)) {
    in.tensors = p.sampleInputs;
    in.description = "sample inputs from the archive";
  } else {
    if (!choice.randomSeed && !choice.randomWhenNone && userInputCount(p) > 0)
      throw LoadError(p.source.path, "no inputs: pass --inputs F.safetensors or --random-inputs SEED");
    in.seed = choice.randomSeed.value_or(0);
    in.description = userInputCount(p) == 0 ? "no inputs" : "random inputs (seed " + std::to_string(in.seed) + ")";
  }
  return in;
}

Diagnosis giveInputs(Session& session, const RunInputs& inputs) {
  return inputs.tensors ? session.setInputs(*inputs.tensors) : session.setRandomInputs(inputs.seed);
}

}  // namespace torchir
