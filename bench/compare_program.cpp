// A comparison's time against the two runs it pairs, in one process: the program alone, its
// float64 shadow alone, then the two in lockstep (compare/PairedRun), REPEATS times each in turns
// after a warm-up, on the sample inputs (or random ones of seed 0). Prints one line per turn:
// "A_SECONDS B_SECONDS PAIRED_SECONDS", then the medians and PAIRED / (A + B).
// usage: compare_program FILE [REPEATS] [THREADS]
#include <cstdio>
#include <cstdlib>
#include <vector>

#include "BenchTiming.h"
#include "exec/AtenBackend.h"
#include "compare/PairedRun.h"
#include "quant/QuantComparison.h"
#include "program/LoadError.h"
#include "formats/ProgramLoader.h"

namespace {

using torchir::bench::median;

double timed(torchir::Session& s) {
  s.reset();
  return torchir::bench::seconds([&] { torchir::bench::runToEnd(s); });
}

}  // namespace

int main(int argc, char** argv) {
  const auto args = torchir::bench::parseArgs(argc, argv, "compare_program");
  const int repeats = args.repeats;
  try {
    const auto program = torchir::loadProgram(args.file);
    const auto& backend = torchir::atenBackend();
    backend.setThreads(args.threads);
    auto a = backend.createSession(program);
    auto b = backend.createSession(program, torchir::SessionOptions{torchir::DType::Float64, "cpu"});
    torchir::bench::giveSampleInputs(program, *a);
    torchir::bench::giveSampleInputs(program, *b);
    std::vector<double> ta, tb, tp;
    std::size_t compared = 0;
    for (int i = 0; i <= repeats; ++i) {
      const double x = timed(*a), y = timed(*b);
      a->reset();
      b->reset();
      torchir::PairedRun paired(*a, *b, torchir::identityMatching(program), {}, torchir::quantComparison());
      const double z = torchir::bench::seconds([&] {
        if (paired.run().reason != torchir::StopReason::Finished) std::exit(1);
      });
      compared = paired.nodes().size();
      if (i == 0) continue;  // warm-up
      ta.push_back(x), tb.push_back(y), tp.push_back(z);
      std::printf("%.4f %.4f %.4f\n", x, y, z);
    }
    const double ma = median(ta), mb = median(tb), mp = median(tp);
    std::printf("median: program %.4f s, float64 shadow %.4f s, paired %.4f s (%zu nodes compared); paired / (sum) %.3f\n",
                ma, mb, mp, compared, mp / (ma + mb));
  } catch (const torchir::LoadError& e) {
    std::fprintf(stderr, "error: %s\n", e.what());
    return 2;
  }
  return 0;
}
