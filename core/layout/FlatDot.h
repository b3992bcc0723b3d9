#pragma once
// The whole program as one flat DOT graph, no modules: what plain `dot` would be given. With
// `weightsAsNodes`, every FX node is a node (weights and getitems included), the baseline the
// layout benchmark compares against; without, the boxes our layout draws.
#include <string>

#include "ViewGraph.h"

namespace torchir::layout {

std::string flatDot(const ViewGraph& graph, bool weightsAsNodes);

}  // namespace torchir::layout
