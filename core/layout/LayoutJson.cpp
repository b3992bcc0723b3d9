#include "LayoutJson.h"

namespace torchir::layout {

namespace {

const char* kindName(BoxKind k) {
  switch (k) {
    case BoxKind::Op: return "op";
    case BoxKind::Input: return "input";
    case BoxKind::Output: return "output";
    case BoxKind::Module: return "module";
    case BoxKind::Port: return "port";
  }
  return "?";
}

nlohmann::ordered_json rect(const Rect& r) { return {{"x", r.x}, {"y", r.y}, {"w", r.w}, {"h", r.h}}; }
nlohmann::ordered_json point(const Point& p) { return nlohmann::ordered_json::array({p.x, p.y}); }

}  // namespace

nlohmann::ordered_json layoutToJson(const Layout& l) {
  nlohmann::ordered_json j;
  j["bounds"] = rect(l.bounds);
  auto& boxes = j["boxes"] = nlohmann::ordered_json::array();
  for (const Box& b : l.boxes)
    boxes.push_back({{"kind", kindName(b.kind)}, {"node", b.node}, {"module", b.module}, {"value", b.value},
                     {"index", b.index}, {"frame", b.frame}, {"lines", b.lines}, {"rect", rect(b.rect)}});
  auto& edges = j["edges"] = nlohmann::ordered_json::array();
  for (const Edge& e : l.edges) {
    auto pts = nlohmann::ordered_json::array();
    for (const Point& p : e.points) pts.push_back(point(p));
    edges.push_back({{"from", e.from}, {"to", e.to}, {"value", e.value}, {"label", e.label}, {"points", pts},
                     {"arrow", {point(e.arrowBase), point(e.arrowTip)}}});
  }
  auto& frames = j["frames"] = nlohmann::ordered_json::array();
  for (const Frame& f : l.frames)
    frames.push_back({{"module", f.module}, {"label", f.label}, {"parent", f.parent}, {"rect", rect(f.rect)}});
  return j;
}

}  // namespace torchir::layout
