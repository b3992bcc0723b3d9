#include "ProgramLoader.h"

#include <algorithm>
#include <cstring>
#include <filesystem>

#include "AllocatorTuning.h"
#include "CompanionFiles.h"
#include "EtRecordLayout.h"
#include "program/LoadError.h"
#include "MappedFile.h"
#include "IrReader.h"
#include "program/ModuleTree.h"
#include "Pt2Reader.h"
#include "WeightsFile.h"

namespace torchir {

namespace {

/// The ETRecord written with the ExecuTorch program `pte`: STEM.etrecord, STEM.etrecord.bin or
/// etrecord.bin in its folder; empty when none is there.
std::string etRecordBeside(const std::string& pte) {
  const std::filesystem::path path(pte);
  const std::string stem = (path.parent_path() / path.stem()).string();
  return firstRegularFile({stem + ".etrecord", stem + ".etrecord.bin", (path.parent_path() / "etrecord.bin").string()});
}

Program load(const std::string& path, const LoadOptions& options, bool followPte) {
  char magic[8] = {0, 0, 0, 0, 0, 0, 0, 0};
  {
    const auto file = MappedFile::open(path);  // regular files only: a FIFO would block a read
    if (file->size() > 0) std::memcpy(magic, file->data(), std::min<std::size_t>(file->size(), sizeof magic));
  }
  // An ExecuTorch program holds no graph to show: the Edge program of its ETRecord is its graph.
  if (looksLikePte(reinterpret_cast<const std::byte*>(magic), sizeof magic)) {
    const std::string record = etRecordBeside(path);
    if (record.empty() || !followPte)
      throw LoadError(path, "an ExecuTorch program (.pte) holds no graph: open the ETRecord written with it "
                            "(generate_etrecord=True), or print its plan with torchir info");
    return load(record, options, /*followPte=*/false);
  }
  const LargeProgramAllocation tuned;
  Program program;
  if (magic[0] == 'P' && magic[1] == 'K') program = readPt2(path, options.cache);
  else if (magic[0] == '{' || magic[0] == ' ' || magic[0] == '\n') program = readIrJson(path);
  else throw LoadError(path, "neither a .pt2 archive nor an IR JSON file");
  buildModuleTree(program);
  if (!options.weightsPath.empty()) supplyWeights(program, options.weightsPath);
  if (!options.constantsPath.empty()) supplyWeights(program, options.constantsPath);
  return program;
}

}  // namespace

Program loadProgram(const std::string& path, const LoadOptions& options) { return load(path, options, /*followPte=*/true); }

}  // namespace torchir
