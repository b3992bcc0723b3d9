#include "ProgramLoader.h"

#include <algorithm>
#include <cstring>

#include "AllocatorTuning.h"
#include "program/LoadError.h"
#include "MappedFile.h"
#include "IrReader.h"
#include "program/ModuleTree.h"
#include "Pt2Reader.h"
#include "WeightsFile.h"

namespace torchir {

Program loadProgram(const std::string& path, const LoadOptions& options) {
  char magic[2] = {0, 0};
  {
    const auto file = MappedFile::open(path);  // regular files only: a FIFO would block a read
    if (file->size() > 0) std::memcpy(magic, file->data(), std::min<std::size_t>(file->size(), 2));
  }
  const LargeProgramAllocation tuned;
  Program program;
  if (magic[0] == 'P' && magic[1] == 'K') program = readPt2(path);
  else if (magic[0] == '{' || magic[0] == ' ' || magic[0] == '\n') program = readIrJson(path);
  else throw LoadError(path, "neither a .pt2 archive nor an IR JSON file");
  buildModuleTree(program);
  if (!options.weightsPath.empty()) supplyWeights(program, options.weightsPath);
  if (!options.constantsPath.empty()) supplyWeights(program, options.constantsPath);
  return program;
}

}  // namespace torchir
