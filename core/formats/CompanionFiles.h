#pragma once
// The files an IR JSON's tensors are kept in, found next to it: one rule for the studio and the
// command line.
#include <initializer_list>
#include <string>

#include "ProgramLoader.h"

namespace torchir {

/// The first of `paths` that is a regular file, or empty: how every file kept beside another is found.
std::string firstRegularFile(std::initializer_list<std::string> paths);

/// Completes the load options of an IR JSON (`X.ir.json` or `X.json`), which carries no tensors:
/// with no weights given, the first of `X.weights.safetensors`, `X.safetensors`, `X.state_dict.pt`,
/// `X.pt`, `X.pth`, `X.bin` next to it that is a regular file; with no constants given,
/// `X.constants.safetensors` if it is one. Paths given are kept; other programs come back unchanged.
LoadOptions withCompanionFiles(const std::string& programPath, LoadOptions options);

}  // namespace torchir
