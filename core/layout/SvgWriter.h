#pragma once
// A layout as a standalone SVG: frames, edges with arrowheads, boxes with their labels. Text is set
// in DejaVu Sans Mono at the size fixedMetric assumes, so labels fit their boxes.
#include <string>

#include "LayoutTypes.h"

namespace torchir::layout {

std::string layoutToSvg(const Layout& layout);

}  // namespace torchir::layout
