#pragma once
// The files an IR JSON's tensors are kept in, found next to it: one rule for the studio and the
// command line.
#include <string>

#include "ProgramLoader.h"

namespace torchir {

/// Completes the load options of an IR JSON (`X.ir.json` or `X.json`), which carries no tensors:
/// with no weights given, the first of `X.weights.safetensors`, `X.safetensors`, `X.state_dict.pt`,
/// `X.pt`, `X.pth`, `X.bin` next to it that is a regular file; with no constants given,
/// `X.constants.safetensors` if it is one. Paths given are kept; other programs come back unchanged.
LoadOptions withCompanionFiles(const std::string& programPath, LoadOptions options);

}  // namespace torchir
