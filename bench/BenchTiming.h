#pragma once
// What the benchmarks share: a median of turns, one call timed, and a session given the program's
// sample inputs (or random ones of seed 0).
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <vector>

#include "exec/Session.h"

namespace torchir::bench {

inline double median(std::vector<double> xs) {
  std::sort(xs.begin(), xs.end());
  return xs[xs.size() / 2];
}

template <class F>
double seconds(F&& f) {
  const auto t0 = std::chrono::steady_clock::now();
  f();
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

/// `NAME FILE [REPEATS] [THREADS]`: exits 2 with the usage line when FILE is missing.
struct Args {
  const char* file;
  int repeats;
  int threads;
};
inline Args parseArgs(int argc, char** argv, const char* name) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: %s FILE [REPEATS] [THREADS]\n", name);
    std::exit(2);
  }
  return {argv[1], argc > 2 ? std::atoi(argv[2]) : 5, argc > 3 ? std::atoi(argv[3]) : 1};
}

/// Runs `s` to its end; exits 1 with the failing node's words when it fails.
inline void runToEnd(Session& s) {
  const auto o = s.run();
  if (o.reason != StopReason::Finished) {
    std::fprintf(stderr, "error: %s: %s\n", o.diagnosis.nodeName.c_str(), o.diagnosis.message.c_str());
    std::exit(1);
  }
}

/// Exits 1 with the engine's words when the inputs are refused.
inline void giveSampleInputs(const Program& p, Session& s) {
  const auto d = p.sampleInputs.empty() ? s.setRandomInputs(0) : s.setInputs(p.sampleInputs);
  if (!d.ok()) {
    std::fprintf(stderr, "error: %s\n", d.message.c_str());
    std::exit(1);
  }
}

}  // namespace torchir::bench
