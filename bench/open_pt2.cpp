// Opens a program in-process REPEATS times and prints each wall time in seconds: the cost of
// opening a file in the app, where libtorch is already loaded. With CACHE_DIR, opens go through a
// program cache there: a miss prints "json", writes the entry (its time printed as "store") and
// later opens print "cache".
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <optional>

#include "formats/AllocatorTuning.h"
#include "formats/ProgramCache.h"
#include "formats/ProgramLoader.h"
#include "program/LoadError.h"
#include "program/ProgramSummary.h"

int main(int argc, char** argv) {
  torchir::tuneAllocator();  // as the studio and the command line do
  if (argc < 2) {
    std::fprintf(stderr, "usage: open_pt2 FILE [REPEATS] [CACHE_DIR]\n");
    return 2;
  }
  const int repeats = argc > 2 ? std::atoi(argv[2]) : 5;
  std::optional<torchir::ProgramCache> cache;
  if (argc > 3) cache.emplace(argv[3], 0);
  using Clock = std::chrono::steady_clock;
  auto seconds = [](Clock::time_point t0) { return std::chrono::duration<double>(Clock::now() - t0).count(); };
  try {
    for (int i = 0; i < repeats; ++i) {
      const auto t0 = Clock::now();
      const int hits = cache ? cache->hits() : 0;
      const auto program = torchir::loadProgram(argv[1], {{}, {}, cache ? &*cache : nullptr});
      const auto summary = torchir::summarize(program);
      const double dt = seconds(t0);
      std::printf("%.4f %d%s\n", dt, summary.numNodes, !cache ? "" : cache->hits() > hits ? " cache" : " json");
      if (const auto key = cache ? cache->takeMiss() : std::nullopt) {
        const auto t1 = Clock::now();
        cache->store(*key, program);
        std::printf("%.4f store\n", seconds(t1));
      }
      for (const auto& note : cache ? cache->takeNotes() : std::vector<std::string>{}) std::printf("note: %s\n", note.c_str());
    }
  } catch (const torchir::LoadError& e) {
    std::fprintf(stderr, "error: %s\n", e.what());
    return 2;
  }
  return 0;
}
