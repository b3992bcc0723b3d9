#pragma once
// The one place that talks to Graphviz: lays out one small graph of fixed-size boxes with `dot` and
// returns plain geometry. Graphviz keeps global state: every instance takes turns through one mutex, so instances on
// several threads (the studio's layout, a report's export) are safe, one layout at a time.
#include <memory>
#include <utility>
#include <vector>

#include "LayoutTypes.h"

namespace torchir::layout {

struct DotGraph {
  std::vector<Size> nodes;  // points
  std::vector<std::pair<int, int>> edges;
  std::vector<int> top, bottom;  // nodes held on the first / last rank (module ports)
};

struct DotEdge {
  std::vector<Point> points;  // cubic Bézier, 1 + 3k points
  Point arrowBase, arrowTip;
};

/// Geometry with the origin at the top-left of the drawing and y pointing down.
struct DotResult {
  Size size;
  std::vector<Point> centers;
  std::vector<DotEdge> edges;
};

class DotLayouter {
 public:
  DotLayouter();
  ~DotLayouter();
  DotLayouter(const DotLayouter&) = delete;
  DotLayouter& operator=(const DotLayouter&) = delete;

  DotResult layout(const DotGraph& graph);
  int runs() const { return m_runs; }

 private:
  struct Context;
  std::unique_ptr<Context> m_ctx;
  int m_runs = 0;
};

}  // namespace torchir::layout
