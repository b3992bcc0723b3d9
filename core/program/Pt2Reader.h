#pragma once
#include <string>

#include "Program.h"

namespace torchir {

/// Reads a `.pt2` written by torch.export.save: the program, its weights and constants
/// (memory-mapped, shared storages kept shared) and the layout it was written in.
/// Throws LoadError with one line naming the file and the problem.
Program readPt2(const std::string& path);

}  // namespace torchir
