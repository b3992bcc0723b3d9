// Runs a program in-process REPEATS times (after one warm-up) with its sample inputs (or those of
// --inputs: an IR JSON has none) and prints each run's wall time, and the sum of the ops' own
// times (as the engine measured them).
// With REPEATS "serve" it reads requests from stdin, each a number of runs, and answers a line
// per run, so that another executor can be timed between them (engine_speed.py takes turns: the
// machine's speed drifts).
// usage: run_program FILE [REPEATS|serve] [THREADS] [--weights F] [--inputs F]
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "exec/AtenBackend.h"
#include "exec/Session.h"
#include "formats/InputsFile.h"
#include "program/LoadError.h"
#include "formats/ProgramLoader.h"

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: run_program FILE [REPEATS|serve] [THREADS] [--weights F] [--inputs F]\n");
    return 2;
  }
  const bool serve = argc > 2 && std::strcmp(argv[2], "serve") == 0;
  const int repeats = serve ? 0 : argc > 2 ? std::atoi(argv[2]) : 10;
  const int threads = argc > 3 ? std::atoi(argv[3]) : 1;
  torchir::LoadOptions options;
  const char* inputsPath = nullptr;
  for (int i = 4; i + 1 < argc; i += 2) {
    if (std::strcmp(argv[i], "--weights") == 0) options.weightsPath = argv[i + 1];
    else if (std::strcmp(argv[i], "--inputs") == 0) inputsPath = argv[i + 1];
  }
  try {
    const auto program = torchir::loadProgram(argv[1], options);
    const auto& backend = torchir::atenBackend();
    backend.setThreads(threads);
    auto session = backend.createSession(program);
    auto d = session->setInputs(inputsPath ? torchir::readInputsFile(program, inputsPath) : program.sampleInputs);
    if (!d.ok()) {
      std::fprintf(stderr, "error: %s\n", d.message.c_str());
      return 1;
    }
    // One run after a reset; prints its wall time, the ops' own time and the op nodes run.
    auto runOnce = [&](bool print) {
      session->reset();
      const auto t0 = std::chrono::steady_clock::now();
      const auto outcome = session->run();
      const std::chrono::duration<double> dt = std::chrono::steady_clock::now() - t0;
      if (outcome.reason != torchir::StopReason::Finished) {
        std::fprintf(stderr, "error: %s: %s\n", outcome.diagnosis.nodeName.c_str(), outcome.diagnosis.message.c_str());
        std::exit(1);
      }
      double opSeconds = 0;
      int nodes = 0;
      for (const auto& n : program.nodes)
        if (const auto* r = session->record(n.id); r && !r->schema.empty()) opSeconds += r->microseconds * 1e-6, ++nodes;
      if (print) std::printf("%.6f %.6f %d\n", dt.count(), opSeconds, nodes);
    };
    runOnce(false);  // warm-up
    if (!serve) {
      for (int i = 0; i < repeats; ++i) runOnce(true);
      return 0;
    }
    char line[64];
    while (std::fgets(line, sizeof line, stdin)) {  // a request: how many runs
      for (int i = std::max(1, std::atoi(line)); i > 0; --i) runOnce(true);
      std::fflush(stdout);
    }
  } catch (const std::exception& e) {
    std::fprintf(stderr, "error: %s\n", e.what());
    return 2;
  }
  return 0;
}
