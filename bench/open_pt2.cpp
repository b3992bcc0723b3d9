// Opens a program in-process REPEATS times and prints each wall time in seconds: the cost of
// opening a file in the app, where libtorch is already loaded.
#include <chrono>
#include <cstdio>
#include <cstdlib>

#include "program/LoadError.h"
#include "formats/ProgramLoader.h"
#include "program/ProgramSummary.h"

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: open_pt2 FILE [REPEATS]\n");
    return 2;
  }
  const int repeats = argc > 2 ? std::atoi(argv[2]) : 5;
  try {
    for (int i = 0; i < repeats; ++i) {
      const auto t0 = std::chrono::steady_clock::now();
      const auto program = torchir::loadProgram(argv[1]);
      const auto summary = torchir::summarize(program);
      const std::chrono::duration<double> dt = std::chrono::steady_clock::now() - t0;
      std::printf("%.4f %d\n", dt.count(), summary.numNodes);
    }
  } catch (const torchir::LoadError& e) {
    std::fprintf(stderr, "error: %s\n", e.what());
    return 2;
  }
  return 0;
}
