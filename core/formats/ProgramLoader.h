#pragma once
#include <string>

#include "program/Program.h"

namespace torchir {

class ProgramCache;

/// Files that complete a program: weights and constants from elsewhere (IR JSON, meta exports).
struct LoadOptions {
  std::string weightsPath;    // .safetensors or a torch.save state dict (.pt, .pth, .bin)
  std::string constantsPath;  // .safetensors
  /// Where a big `.pt2`'s graph is looked up before its JSON is read, and where a miss is noted.
  ProgramCache* cache = nullptr;
};

/// Opens a `.pt2` archive (an ExecuTorch ETRecord too) or a pytorch-ir IR JSON, chosen by the
/// file's first bytes; for an ExecuTorch `.pte`, the ETRecord beside it.
/// Throws LoadError with one line naming the file and the problem.
Program loadProgram(const std::string& path, const LoadOptions& options = {});

}  // namespace torchir
