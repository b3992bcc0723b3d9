#include "ProgramLoader.h"

#include <cerrno>
#include <cstring>
#include <fstream>

#include "AllocatorTuning.h"
#include "LoadError.h"
#include "IrReader.h"
#include "ModuleTree.h"
#include "Pt2Reader.h"
#include "WeightsFile.h"

namespace torchir {

Program loadProgram(const std::string& path, const LoadOptions& options) {
  std::ifstream f(path, std::ios::binary);
  if (!f) throw LoadError(path, std::strerror(errno));
  char magic[2] = {0, 0};
  f.read(magic, 2);
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
