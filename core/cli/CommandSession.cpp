#include "CommandSession.h"

#include <iostream>

#include "aten/AtenBackend.h"
#include "program/InputsFile.h"

namespace torchir::cli {

bool applyBackendOptions(const Args& args) {
  if (args.flag("--executors")) {
    try {
      atenBackend().loadExecutors(args.option("--executors"));
    } catch (const std::runtime_error& e) {
      std::cerr << "error: " << e.what() << "\n";
      return false;
    }
  }
  if (args.flag("--threads")) {
    // Intra-op threads; results match eager PyTorch's bit for bit at the same count.
    const std::string threads = args.option("--threads");
    if (threads.empty() || threads.size() > 4 || threads.find_first_not_of("0123456789") != std::string::npos ||
        std::stoi(threads) < 1) {
      std::cerr << "error: --threads takes a positive number, not '" << threads << "'\n";
      return false;
    }
    atenBackend().setThreads(std::stoi(threads));
  }
  return true;
}

bool setCommandInputs(Session& session, const Program& program, const Args& args) {
  Diagnosis problem;
  if (args.flag("--random-inputs")) {
    problem = session.setRandomInputs(std::stoull(args.option("--random-inputs")));
  } else {
    const std::string inputsFile = args.option("--inputs");
    auto inputs = inputsFile.empty() ? program.sampleInputs : readInputsFile(program, inputsFile);
    if (inputs.empty() && !program.inputs.empty()) {
      std::cerr << "error: " << program.source.path << ": no inputs: pass --inputs F.safetensors or --random-inputs SEED\n";
      return false;
    }
    problem = session.setInputs(inputs);
  }
  if (!problem.ok()) {
    std::cerr << "error: " << program.source.path << ": " << problem.message << "\n";
    return false;
  }
  return true;
}

}  // namespace torchir::cli
