#pragma once
// A layout as a standalone SVG: frames, edges with arrowheads, boxes with their labels. Text is set
// in DejaVu Sans Mono at the size fixedMetric assumes, so labels fit their boxes.
#include <functional>
#include <string>

#include "LayoutTypes.h"

namespace torchir::layout {

/// A box's fill colour ("#d4edda"), or "" for its kind's own: what a comparison's report colours
/// boxes with.
using BoxFill = std::function<std::string(const Box&)>;

/// Without `fillOf`, every box in its kind's colours (`torchir layout`).
std::string layoutToSvg(const Layout& layout, const BoxFill& fillOf = {});

}  // namespace torchir::layout
