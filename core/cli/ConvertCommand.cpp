#include <fstream>
#include <iostream>

#include "Cli.h"
#include "program/IrWriter.h"
#include "program/LenientJson.h"
#include "program/ProgramLoader.h"

namespace torchir::cli {

int convertCommand(const Args& args) {
  const std::string out = args.option("-o", args.option("--output"));
  if (out.empty()) {
    std::cerr << "error: convert needs -o IR.json\n";
    return kBadInput;
  }
  const Program& program = loadForCommand(args.positional.front());
  if (program.source.format != "pt2") {
    std::cerr << "error: " << program.source.path << ": convert reads a .pt2 (this file is already IR JSON)\n";
    return kBadInput;
  }
  nlohmann::ordered_json ir;
  try {
    const AtenBackend& aten = atenBackend();
    ir = toIrJson(program, program.source.torchVersion, [&](const std::string& op) { return aten.schemaSpecs(op); });
  } catch (const ConversionError& e) {
    std::cerr << "error: " << program.source.path << ": ConversionError: " << e.what() << "\n";
    return kProgramFault;
  }
  std::ofstream f(out);
  f << dumpPythonJson(ir);
  if (!f) {
    std::cerr << "error: " << out << ": cannot write\n";
    return kBadInput;
  }
  return kOk;
}

}  // namespace torchir::cli
