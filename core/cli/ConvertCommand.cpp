#include <fstream>
#include <iostream>
#include <set>

#include "Cli.h"
#include "CommandSession.h"
#include "exec/AtenBackend.h"
#include "formats/IrWriter.h"
#include "formats/LenientJson.h"
#include "program/OneLine.h"
#include "formats/ProgramLoader.h"

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
  if (!applyBackendOptions(args, {&program})) return kBadInput;  // the schemas of ops defined in Python come from it
  try {
    const AtenBackend& aten = atenBackend();
    std::set<std::string> unknown;  // ops without a schema here: their attrs cannot be placed
    ir = toIrJson(program, program.source.torchVersion, [&](const std::string& op) {
      auto specs = aten.schemaSpecs(op);
      if (specs.empty() && op.find('.') != std::string::npos && op.front() != '<') unknown.insert(op);
      return specs;
    });
    for (const std::string& op : unknown)
      std::cerr << "warning: " << program.source.path << ": no schema for " << oneLine(op)
                << ": its non-tensor arguments are left out of attrs (an op defined in Python? name it with "
                   "--python PATH --python-import MODULE)\n";
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
