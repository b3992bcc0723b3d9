#include <iostream>

#include "Cli.h"
#include "CommandSession.h"
#include "exec/AtenBackend.h"
#include "program/OneLine.h"
#include "repro/Repro.h"

namespace torchir::cli {

int extractCommand(const Args& args) {
  if (args.flag("--node") == args.flag("--module")) {
    std::cerr << "error: extract takes one of --node NAME and --module PATH\n";
    return kBadInput;
  }
  if (!args.flag("--output")) {
    std::cerr << "error: extract needs -o OUT.pt2\n";
    return kBadInput;
  }
  const ReproPart part{args.flag("--node") ? ReproPart::Node : ReproPart::Module,
                       args.option(args.flag("--node") ? "--node" : "--module")};
  const Program& program = loadForCommand(args.positional.front(), {args.option("--weights"), args.option("--constants")});
  const std::string out = args.option("--output");
  try {
    if (!out.ends_with(".pt2")) throw std::invalid_argument(out + ": a repro is written as a .pt2 file");
    partNodes(program, part);  // what can be told without running
  } catch (const std::invalid_argument& e) {
    std::cerr << "error: " << oneLine(e.what()) << "\n";
    return kBadInput;
  }
  if (!applyBackendOptions(args, {&program})) return kBadInput;
  Debugger debugger(commandTarget(program, args, /*randomWhenNone=*/false));
  debugger.start();
  try {
    const auto [repro, files] = debugger.exportRepro(part, out, nullptr);
    std::cout << "repro of " << repro.description << ": " << repro.program.inputs.size() << " placeholders ("
              << repro.inputs.size() << " inputs), " << repro.outputs.size() << " outputs\n";
    for (const auto& f : files) std::cout << "  " << f << "\n";
    return kOk;
  } catch (const std::invalid_argument& e) {
    std::cerr << "error: " << oneLine(e.what()) << "\n";
    return kBadInput;
  } catch (const std::runtime_error& e) {
    std::cerr << "error: " << program.source.path << ": " << oneLine(e.what()) << "\n";
    return kProgramFault;
  }
}

}  // namespace torchir::cli
