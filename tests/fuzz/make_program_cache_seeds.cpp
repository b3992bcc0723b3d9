// Seeds fuzz_program_cache: each ExportedProgram JSON of the model_json corpus, read and encoded
// as a cache entry's graph. Usage: make_program_cache_seeds MODEL_JSON_DIR OUT_DIR
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>

#include "formats/ExportedProgramReader.h"
#include "formats/ProgramCodec.h"
#include "program/LoadError.h"

int main(int argc, char** argv) {
  if (argc != 3) return 2;
  namespace fs = std::filesystem;
  fs::create_directories(argv[2]);
  int written = 0;
  for (const auto& e : fs::directory_iterator(argv[1])) {
    std::ifstream in(e.path(), std::ios::binary);
    const std::string text(std::istreambuf_iterator<char>(in), {});
    torchir::Program p;
    p.source.format = "pt2";
    try {
      torchir::readExportedProgram(text, text.capacity(), e.path().string(), "models/model.json", p);
    } catch (const torchir::LoadError&) {
      continue;
    }
    if (const auto body = torchir::encodeProgramGraph(p)) {
      std::ofstream(fs::path(argv[2]) / e.path().filename(), std::ios::binary) << *body;
      ++written;
    }
  }
  return written > 0 ? 0 : 1;
}
