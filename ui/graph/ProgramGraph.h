#pragma once
// The GUI's own ViewGraph of a program and its first fold state. Building it takes 25-45 ms for a
// 34k-node program (bench/transformer_770), so it is built off the GUI thread (build() is safe to call anywhere) and
// handed over finished; it keeps the program it points into alive.
#include <memory>

#include "layout/FoldState.h"
#include "layout/ViewGraph.h"
#include "session/LoadedProgram.h"

namespace torchir::ui {

struct ProgramGraph {
  LoadedProgramPtr program;
  std::shared_ptr<const layout::ViewGraph> graph;  // the loader's when the options are its
  layout::FoldState initialFold;

  static std::shared_ptr<const ProgramGraph> build(LoadedProgramPtr program, layout::ViewOptions options = {});
  layout::ViewOptions options() const { return graph->options(); }
};

}  // namespace torchir::ui
