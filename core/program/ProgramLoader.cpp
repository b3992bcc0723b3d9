#include "ProgramLoader.h"

#include <fstream>

#include "LoadError.h"
#include "Pt2Reader.h"

namespace torchir {

Program loadProgram(const std::string& path, const LoadOptions& options) {
  std::ifstream f(path, std::ios::binary);
  if (!f) throw LoadError(path, "cannot open file");
  char magic[2] = {0, 0};
  f.read(magic, 2);
  (void)options;
  if (magic[0] == 'P' && magic[1] == 'K') return readPt2(path);
  throw LoadError(path, "neither a .pt2 archive nor an IR JSON file");
}

}  // namespace torchir
