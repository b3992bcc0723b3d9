#include "ProgramGraph.h"

namespace torchir::ui {

std::shared_ptr<const ProgramGraph> ProgramGraph::build(LoadedProgramPtr program, layout::ViewOptions options) {
  auto g = std::make_shared<ProgramGraph>();
  g->program = std::move(program);
  if (g->program->viewGraph && g->program->viewGraph->options() == options) g->graph = g->program->viewGraph;
  else g->graph = std::make_shared<const layout::ViewGraph>(g->program->program, options);
  g->initialFold = layout::FoldState::initial(*g->graph);
  return g;
}

}  // namespace torchir::ui
