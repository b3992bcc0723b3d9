// Times the layout engine in process on one program, as the studio would use it. Prints one
// `name seconds dot_runs boxes` line per step:
//   graph     the view graph the layouts pick levels from (once per program; boxes: its levels)
//   initial   the first view (FoldState::initial) on a fresh engine
//   all       everything expanded, fresh engine
//   expand    a laid-out program with one module (the largest collapsed one still visible in the
//             full view, i.e. all expanded but one) collapsed, then that module expanded
//   open      from the first view, expanding the biggest collapsed module (or sibling group) it shows
#include <algorithm>
#include <chrono>
#include <cstdio>

#include "layout/LayoutEngine.h"
#include "program/LoadError.h"
#include "formats/ProgramLoader.h"

using namespace torchir;
using namespace torchir::layout;

namespace {

double since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

void step(const char* name, LayoutEngine& engine, const FoldState& fold) {
  const int runs = engine.dotRuns();
  const auto t0 = std::chrono::steady_clock::now();
  const auto l = engine.layout(fold);
  std::printf("%s %.4f %d %zu\n", name, since(t0), engine.dotRuns() - runs, l->boxes.size());
  std::fflush(stdout);
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: layout_program FILE\n");
    return 2;
  }
  try {
    const Program p = loadProgram(argv[1]);
    {
      LayoutEngine engine;
      const auto t0 = std::chrono::steady_clock::now();
      engine.setProgram(p);
      std::printf("graph %.4f 0 %zu\n", since(t0), engine.graph().moduleCount());
      std::fflush(stdout);
      step("initial", engine, FoldState::initial(engine.graph()));
      // The module the first view shows collapsed with the most ops: what a user would open.
      const FoldState first = FoldState::initial(engine.graph());
      const ViewGraph& g = engine.graph();
      int pick = -1;
      for (std::size_t m = 1; m < g.moduleCount(); ++m) {  // modules and sibling groups
        const int mm = static_cast<int>(m);
        if (g.parent(mm) < 0) continue;
        const auto& drawn = g.children(g.parent(mm));  // transparent modules have no level
        if (!first.expanded(mm) && first.expanded(g.parent(mm)) && std::find(drawn.begin(), drawn.end(), mm) != drawn.end() &&
            (pick < 0 || g.subtreeOps(mm) > g.subtreeOps(pick)))
          pick = mm;
      }
      if (pick > 0) {
        FoldState open = first;
        open.setExpanded(pick, true);
        step("open", engine, open);
      }
    }
    const FoldState all = FoldState::all(p);
    {
      LayoutEngine engine;
      engine.setProgram(p);
      step("all", engine, all);
    }
    LayoutEngine engine;  // a fresh cache: the module to expand has never been laid out
    engine.setProgram(p);
    // A module deep in the middle of the program: collapse it, lay out, expand it again.
    int pick = -1;
    for (std::size_t m = p.modules.size() / 2; m < p.modules.size() && pick < 0; ++m) {
      const int parent = engine.graph().parent(static_cast<int>(m));  // a sibling group, if grouped
      const auto& drawn = parent >= 0 ? engine.graph().children(parent) : engine.graph().children(0);
      if (!engine.graph().children(static_cast<int>(m)).empty() && std::find(drawn.begin(), drawn.end(), static_cast<int>(m)) != drawn.end())
        pick = static_cast<int>(m);
    }
    if (pick > 0) {
      FoldState less = all;
      less.setExpanded(pick, false);
      engine.layout(less);
      step("expand", engine, all);
    }
  } catch (const LoadError& e) {
    std::fprintf(stderr, "error: %s\n", e.what());
    return 2;
  }
  return 0;
}
