// Layer sensitivity against what it replaces: one whole run of the quantized program per layer,
// each with that layer kept in float (the same change, Session::setPatches), in one process on the
// same sessions. Prints one line per turn, "SENSITIVITY_SECONDS WHOLE_RUNS_SECONDS", then the
// medians and their ratio (the goal: at most 0.6).
// usage: sensitivity_program QUANTIZED.pt2 FLOAT.pt2 INPUTS.safetensors [REPEATS] [THREADS]
#include <cstdio>
#include <cstdlib>
#include <limits>
#include <vector>

#include "BenchTiming.h"
#include "exec/AtenBackend.h"
#include "quant/KeepInFloat.h"
#include "quant/QuantComparison.h"
#include "compare/PairedRun.h"
#include "quant/Sensitivity.h"
#include "formats/InputsFile.h"
#include "program/LoadError.h"
#include "formats/ProgramLoader.h"

namespace {

using torchir::bench::median;
using torchir::bench::runToEnd;
using torchir::bench::seconds;

}  // namespace

int main(int argc, char** argv) {
  if (argc < 4) {
    std::fprintf(stderr, "usage: sensitivity_program QUANTIZED.pt2 FLOAT.pt2 INPUTS.safetensors [REPEATS] [THREADS]\n");
    return 2;
  }
  const int repeats = argc > 4 ? std::atoi(argv[4]) : 3;
  try {
    const auto q = torchir::loadProgram(argv[1]);
    const auto f = torchir::loadProgram(argv[2]);
    const auto inputs = torchir::readInputsFile(q, argv[3]);
    const auto& backend = torchir::atenBackend();
    backend.setThreads(argc > 5 ? std::atoi(argv[5]) : 1);
    auto a = backend.createSession(q);
    auto b = backend.createSession(f);
    a->setMemoryBudget(std::numeric_limits<std::size_t>::max());
    if (!a->setInputs(inputs).ok() || !b->setInputs(inputs).ok()) return 1;
    torchir::PairedRun paired(*a, *b, torchir::matchNodes(q, f), {}, torchir::quantComparison());
    if (paired.run().reason != torchir::StopReason::Finished) return 1;
    if (!b->finished()) runToEnd(*b);
    const std::vector<torchir::NodeId> layers = torchir::quantizedLayers(q);
    std::vector<double> ts, tw;
    for (int i = 0; i <= repeats; ++i) {
      const double s = seconds([&] { torchir::layerSensitivity(*a, *b, paired.matching()); });
      // the same: each layer kept in float by a whole run from the inputs
      auto whole = backend.createSession(q);
      if (!whole->setInputs(inputs).ok()) return 1;
      const double w = seconds([&] {
        for (torchir::NodeId layer : layers) {
          whole->setPatches(layer, torchir::keepInFloatPatches(q, layer, b.get(), &paired.matching()));
          whole->reset();
          runToEnd(*whole);
          whole->setPatches(layer, {});
        }
      });
      if (i == 0) continue;  // warm-up
      ts.push_back(s), tw.push_back(w);
      std::printf("%.4f %.4f\n", s, w);
    }
    const double ms = median(ts), mw = median(tw);
    std::printf("median: sensitivity %.4f s, %zu whole runs %.4f s; sensitivity / whole runs %.3f\n", ms, layers.size(), mw,
                ms / mw);
  } catch (const torchir::LoadError& e) {
    std::fprintf(stderr, "error: %s\n", e.what());
    return 2;
  }
  return 0;
}
