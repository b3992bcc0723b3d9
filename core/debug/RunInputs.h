#pragma once
// Where a run's inputs come from, chosen one way for every front end: a file the user names,
// random numbers of a seed, else the archive's sample inputs, else random numbers of seed 0.
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "exec/Session.h"

namespace torchir {

/// What the user asked for (a seed wins over a file); nothing asked: the samples, else random
/// numbers of seed 0.
struct InputsChoice {
  std::string file;                    // an inputs file (safetensors, torch.save), by input name
  std::optional<uint64_t> randomSeed;  // random numbers even where the archive has samples
  bool randomWhenNone = true;  // false: a program with user inputs and no samples is refused
  /// Inputs already made (a body call's operands), with the words for them: they win over all else.
  std::shared_ptr<const std::vector<TensorData>> given = {};
  std::string givenDescription = {};
};

/// The inputs chosen, and the words for them ("sample inputs from the archive").
struct RunInputs {
  std::optional<std::vector<TensorData>> tensors;  // none: random numbers of `seed`
  uint64_t seed = 0;
  std::string description;
  bool fromFile = false;
};

/// Throws LoadError naming the inputs file when it cannot be read, or the program when it has no
/// inputs to give and `choice` asks for no random ones.
RunInputs chooseInputs(const Program& p, const InputsChoice& choice);

/// Gives `inputs` to `session`; the session's refusal, or ok.
Diagnosis giveInputs(Session& session, const RunInputs& inputs);

}  // namespace torchir
