#pragma once
// The geometry a layout hands to its users (the GUI, the SVG/JSON writers, tests): plain values in
// points with y pointing down, so no Graphviz type ever leaves core/layout.
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

namespace torchir::layout {

struct Size {
  double w = 0, h = 0;
};

struct Point {
  double x = 0, y = 0;
};

struct Rect {
  double x = 0, y = 0, w = 0, h = 0;  // top-left corner, y down
  double right() const { return x + w; }
  double bottom() const { return y + h; }
};

/// Measures one line of label text in the caller's font (the GUI's QFontMetrics, a fixed metric on
/// the command line). Called on the layout thread, so it must be thread-safe.
using TextMeasure = std::function<Size(const std::string&)>;

/// The command line's metric: 7 pt per character, 14 pt per line (DejaVu Sans Mono at 11.6 px).
Size fixedMetric(const std::string& text);

enum class BoxKind : uint8_t { Op, Input, Output, Module, Port };

/// One drawn box: an op node, a user input/output, a collapsed module, or the port where a value
/// crosses the border of an expanded module's frame.
struct Box {
  BoxKind kind = BoxKind::Op;
  int32_t node = -1;    // Op: the FX node id
  int32_t module = -1;  // Module: the module index; Port: the module whose frame it sits on
  int32_t value = -1;   // Input/Output/Port: the value shown
  int32_t index = -1;   // Input/Output: the signature index
  std::vector<std::string> lines;  // label, first line is the title
  Rect rect;
  int32_t frame = -1;  // innermost enclosing frame, -1 at top level
};

/// One dataflow edge between two boxes, as a cubic Bézier path (1 + 3k points) plus an arrowhead
/// from `arrowBase` (the path's end) to `arrowTip` (on the consumer's border).
struct Edge {
  int32_t from = -1, to = -1;  // box indices
  int32_t value = -1;
  std::string label;  // "[1]" for the second output of a multi-output op; a quantized edge's dtype and qparams
  bool quantized = false;  // the value passes through a folded quantize/dequantize pair
  std::vector<Point> points;
  Point arrowBase, arrowTip;
};

/// An expanded module: a labelled rectangle around its children.
struct Frame {
  int32_t module = -1;
  std::string label;
  Rect rect;
  int32_t parent = -1;  // enclosing frame
};

struct Layout {
  std::vector<Box> boxes;
  std::vector<Edge> edges;
  std::vector<Frame> frames;
  Rect bounds;
  /// The index in `boxes` of each op node's box, by node id; -1 where the node has none (inside a
  /// collapsed module). Made with the layout, on its thread: the window finds a node's box by it
  /// and builds no index of its own (a 170k-node program's took 12 ms of fresh memory).
  std::vector<int32_t> boxOfNode;

  int32_t boxOf(int32_t node) const {
    return node >= 0 && static_cast<std::size_t>(node) < boxOfNode.size() ? boxOfNode[static_cast<std::size_t>(node)]
                                                                          : -1;
  }
};

}  // namespace torchir::layout
