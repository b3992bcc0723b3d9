// What Shift+F10 costs against the run it goes back in: a straight run of the program, then, from
// its end, one step back (Session::stepBack makes the run again from the inputs to the last op),
// REPEATS times each in turns after a warm-up, on the sample inputs (or random ones of seed 0).
// Prints one line per turn: "RUN_SECONDS STEP_BACK_SECONDS", then the medians and their ratio.
// usage: step_back_program FILE [REPEATS] [THREADS]
#include <cstdio>
#include <cstdlib>
#include <vector>

#include "BenchTiming.h"
#include "exec/AtenBackend.h"
#include "program/LoadError.h"
#include "formats/ProgramLoader.h"

using torchir::bench::median;
using torchir::bench::seconds;

int main(int argc, char** argv) {
  const auto args = torchir::bench::parseArgs(argc, argv, "step_back_program");
  const int repeats = args.repeats;
  try {
    const auto program = torchir::loadProgram(args.file);
    const auto& backend = torchir::atenBackend();
    backend.setThreads(args.threads);
    auto s = backend.createSession(program);
    torchir::bench::giveSampleInputs(program, *s);
    std::vector<double> runs, backs;
    for (int i = 0; i <= repeats; ++i) {
      s->reset();
      const double run = seconds([&] {
        if (s->run().reason != torchir::StopReason::Finished) std::exit(1);
      });
      const double back = seconds([&] {
        if (s->stepBack().reason != torchir::StopReason::Stepped) std::exit(1);
      });
      if (i == 0) continue;  // warm-up
      runs.push_back(run), backs.push_back(back);
      std::printf("%.4f %.4f\n", run, back);
    }
    const double r = median(runs), b = median(backs);
    std::printf("median: run %.4f s, step back from the end %.4f s; step back / run %.3f\n", r, b, b / r);
  } catch (const torchir::LoadError& e) {
    std::fprintf(stderr, "error: %s\n", e.what());
    return 2;
  }
  return 0;
}
