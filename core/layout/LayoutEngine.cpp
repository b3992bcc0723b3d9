#include "LayoutEngine.h"

#include <algorithm>
#include <set>

#include "BoxLabels.h"

namespace torchir::layout {

namespace {
constexpr double kPad = 10;      // frame border to its contents
constexpr double kBoxPadX = 8;   // label text to box border
constexpr double kBoxPadY = 4;
constexpr double kPortSize = 8;  // the small square where a value crosses a frame

uint64_t mix(uint64_t h, uint64_t v) {  // splitmix64 step: order-sensitive, well spread
  h ^= v + 0x9e3779b97f4a7c15ULL + (h << 6) + (h >> 2);
  h ^= h >> 31;
  h *= 0xbf58476d1ce4e5b9ULL;
  return h ^ (h >> 29);
}
}  // namespace

Size fixedMetric(const std::string& text) { return {7.0 * static_cast<double>(text.size()), 14.0}; }

/// One module's dot result in its own frame coordinates (origin at the frame's top-left).
struct LayoutEngine::Level {
  Size frame;                // the whole frame, header and padding included
  std::vector<Rect> rects;   // items, then in-ports, then out-ports
  std::vector<DotEdge> edges;  // as ModuleLevel::edges
};

LayoutEngine::LayoutEngine(TextMeasure measure) : m_measure(std::move(measure)) {}
LayoutEngine::~LayoutEngine() = default;

void LayoutEngine::setProgram(const Program& program, ViewOptions options) {
  setGraph(std::make_shared<const ViewGraph>(program, options));
}

void LayoutEngine::setGraph(std::shared_ptr<const ViewGraph> graph) {
  m_cache.clear();
  m_graph = std::move(graph);
}

Size LayoutEngine::boxSize(const std::vector<std::string>& lines) const {
  Size s;
  for (const auto& l : lines) {
    const Size m = m_measure(l);
    s.w = std::max(s.w, m.w);
    s.h += m.h;
  }
  return {s.w + 2 * kBoxPadX, s.h + 2 * kBoxPadY};
}

std::vector<uint64_t> LayoutEngine::signatures(const FoldState& fold) const {
  const ViewGraph& g = *m_graph;
  std::vector<uint64_t> sig(g.moduleCount(), 0);
  // Children first. Not a backward index pass: a group's index is above its members'.
  auto visit = [&](auto& self, int m) -> void {
    uint64_t h = mix(0x5eed, static_cast<uint64_t>(m));
    for (int c : g.children(m)) {
      self(self, c);
      h = mix(h, fold.expanded(c) ? sig[static_cast<std::size_t>(c)] : 0);
    }
    sig[static_cast<std::size_t>(m)] = h;
  };
  visit(visit, 0);
  return sig;
}

std::shared_ptr<const LayoutEngine::Level> LayoutEngine::computeLevel(int m, const FoldState& fold,
                                                                      const std::vector<uint64_t>& sig) {
  const ViewGraph& g = *m_graph;
  const Program& p = g.program();
  const ModuleLevel& lv = g.level(m);
  DotGraph dg;
  std::map<ItemRef, int> index;
  for (const ItemRef& it : lv.items) {
    index[it] = static_cast<int>(dg.nodes.size());
    switch (it.kind) {
      case ItemRef::Op: dg.nodes.push_back(boxSize(opLabel(g, it.index))); break;
      case ItemRef::Input: dg.nodes.push_back(boxSize(inputLabel(p, it.index))); break;
      case ItemRef::Output: dg.nodes.push_back(boxSize(outputLabel(p, it.index))); break;
      case ItemRef::Module:
        dg.nodes.push_back(fold.expanded(it.index) ? m_cache.at({it.index, sig[static_cast<std::size_t>(it.index)]})->frame
                                                   : boxSize(moduleLabel(g, it.index)));
        break;
      default: break;
    }
  }
  for (ValueId v : lv.inValues) {
    index[{ItemRef::InPort, v}] = static_cast<int>(dg.nodes.size());
    dg.top.push_back(static_cast<int>(dg.nodes.size()));
    dg.nodes.push_back({kPortSize, kPortSize});
  }
  for (ValueId v : lv.outValues) {
    index[{ItemRef::OutPort, v}] = static_cast<int>(dg.nodes.size());
    dg.bottom.push_back(static_cast<int>(dg.nodes.size()));
    dg.nodes.push_back({kPortSize, kPortSize});
  }
  for (const auto& e : lv.edges) dg.edges.emplace_back(index.at(e.from), index.at(e.to));

  DotResult r = m_dot.layout(dg);
  auto level = std::make_shared<Level>();
  const double header = m == 0 ? 0 : m_measure(frameLabel(g, m)).h + 4;
  const double dx = kPad, dy = kPad + header;
  level->frame = {std::max(r.size.w, m == 0 ? 0 : m_measure(frameLabel(g, m)).w) + 2 * kPad, r.size.h + 2 * kPad + header};
  for (std::size_t i = 0; i < dg.nodes.size(); ++i) {
    const Point c = r.centers.empty() ? Point{} : r.centers[i];
    level->rects.push_back({c.x + dx - dg.nodes[i].w / 2, c.y + dy - dg.nodes[i].h / 2, dg.nodes[i].w, dg.nodes[i].h});
  }
  for (auto& e : r.edges) {
    for (auto& pt : e.points) pt = {pt.x + dx, pt.y + dy};
    e.arrowBase = {e.arrowBase.x + dx, e.arrowBase.y + dy};
    e.arrowTip = {e.arrowTip.x + dx, e.arrowTip.y + dy};
  }
  level->edges = std::move(r.edges);
  return level;
}

bool LayoutEngine::ensureLevels(int m, const FoldState& fold, const std::vector<uint64_t>& sig,
                                const std::function<bool()>& cancelled) {
  const Key key{m, sig[static_cast<std::size_t>(m)]};
  if (m_cache.count(key)) return true;
  for (int c : m_graph->children(m))
    if (fold.expanded(c) && !ensureLevels(c, fold, sig, cancelled)) return false;
  if (cancelled && cancelled()) return false;
  m_cache[key] = computeLevel(m, fold, sig);
  return true;
}

/// Places cached levels into one drawing: boxes and frames first (depth first), then each level's
/// edges, whose ends on an expanded child are moved onto that child's port.
struct LayoutEngine::Composer {
  const LayoutEngine& engine;
  const FoldState& fold;
  const std::vector<uint64_t>& sig;
  Layout out;

  struct Ports {
    std::map<ValueId, int> in, out;  // port box per value
  };

  Ports place(int m, Point origin, int frame) {
    const ViewGraph& g = *engine.m_graph;
    const Program& p = g.program();
    const ModuleLevel& lv = g.level(m);
    const Level& L = *engine.m_cache.at({m, sig[static_cast<std::size_t>(m)]});
    auto at = [&](const Rect& r) { return Rect{r.x + origin.x, r.y + origin.y, r.w, r.h}; };
    std::map<ItemRef, int> boxOf;
    std::map<int, Ports> childPorts;
    auto addBox = [&](Box b) {
      b.frame = frame;
      out.boxes.push_back(std::move(b));
      return static_cast<int>(out.boxes.size()) - 1;
    };
    std::size_t i = 0;
    for (; i < lv.items.size(); ++i) {
      const ItemRef& it = lv.items[i];
      const Rect r = at(L.rects[i]);
      Box b;
      b.rect = r;
      switch (it.kind) {
        case ItemRef::Op:
          b.kind = BoxKind::Op, b.node = it.index, b.lines = opLabel(g, it.index);
          break;
        case ItemRef::Input:
          b.kind = BoxKind::Input, b.index = it.index, b.value = p.inputs[static_cast<std::size_t>(it.index)].value;
          b.lines = inputLabel(p, it.index);
          break;
        case ItemRef::Output:
          b.kind = BoxKind::Output, b.index = it.index, b.value = p.outputs[static_cast<std::size_t>(it.index)].value;
          b.lines = outputLabel(p, it.index);
          break;
        case ItemRef::Module:
          if (fold.expanded(it.index)) {
            out.frames.push_back({it.index, frameLabel(g, it.index), r, frame});
            childPorts[it.index] = place(it.index, {r.x, r.y}, static_cast<int>(out.frames.size()) - 1);
            continue;
          }
          b.kind = BoxKind::Module, b.module = it.index, b.lines = moduleLabel(g, it.index);
          break;
        default: continue;
      }
      boxOf[it] = addBox(std::move(b));
    }
    Ports mine;
    auto addPort = [&](ValueId v) {
      Box b;
      b.kind = BoxKind::Port, b.module = m, b.value = v, b.rect = at(L.rects[i++]);
      return addBox(std::move(b));
    };
    for (ValueId v : lv.inValues) boxOf[{ItemRef::InPort, v}] = mine.in[v] = addPort(v);
    for (ValueId v : lv.outValues) boxOf[{ItemRef::OutPort, v}] = mine.out[v] = addPort(v);

    std::set<NodeId> labelled;  // a quantize read by several ops: its label once, on its first edge
    for (std::size_t k = 0; k < lv.edges.size(); ++k) {
      const LevelEdge& le = lv.edges[k];
      const DotEdge& de = L.edges[k];
      Edge e;
      e.value = le.value;
      if (le.port >= 0) e.label = "[" + std::to_string(le.port) + "]";
      if (le.quantizedBy != kNone) {
        e.quantized = true;
        if (labelled.insert(le.quantizedBy).second)
          e.label += (e.label.empty() ? "" : " ") + quantizedEdgeLabel(p, le.quantizedBy);
      }
      for (const Point& pt : de.points) e.points.push_back({pt.x + origin.x, pt.y + origin.y});
      e.arrowBase = {de.arrowBase.x + origin.x, de.arrowBase.y + origin.y};
      e.arrowTip = {de.arrowTip.x + origin.x, de.arrowTip.y + origin.y};
      const bool fromFrame = le.from.kind == ItemRef::Module && fold.expanded(le.from.index);
      const bool toFrame = le.to.kind == ItemRef::Module && fold.expanded(le.to.index);
      e.from = fromFrame ? childPorts[le.from.index].out.at(le.value) : boxOf.at(le.from);
      e.to = toFrame ? childPorts[le.to.index].in.at(le.value) : boxOf.at(le.to);
      if (e.points.empty()) continue;
      // dot ended the edge on the child's frame border; bend its last (first) segment onto the port.
      if (toFrame) {
        const Rect& pr = out.boxes[static_cast<std::size_t>(e.to)].rect;
        const Point tip{pr.x + pr.w / 2, pr.y};
        const double ddx = tip.x - e.arrowTip.x, ddy = tip.y - e.arrowTip.y;
        const std::size_t n = e.points.size();
        for (std::size_t j = n >= 2 ? n - 2 : 0; j < n; ++j) e.points[j].x += ddx, e.points[j].y += ddy;
        e.arrowBase = {e.arrowBase.x + ddx, e.arrowBase.y + ddy};
        e.arrowTip = tip;
      }
      if (fromFrame) {
        const Rect& pr = out.boxes[static_cast<std::size_t>(e.from)].rect;
        const Point start{pr.x + pr.w / 2, pr.bottom()};
        const double ddx = start.x - e.points[0].x, ddy = start.y - e.points[0].y;
        for (std::size_t j = 0; j < std::min<std::size_t>(2, e.points.size()); ++j) e.points[j].x += ddx, e.points[j].y += ddy;
      }
      out.edges.push_back(std::move(e));
    }
    return mine;
  }
};

std::optional<Layout> LayoutEngine::layout(const FoldState& fold, const std::function<bool()>& cancelled) {
  if (!m_graph || m_graph->program().modules.empty()) return Layout{};  // loaders always add a root
  const auto sig = signatures(fold);
  if (!ensureLevels(0, fold, sig, cancelled)) return std::nullopt;
  Composer c{*this, fold, sig, {}};
  c.place(0, {0, 0}, -1);
  const Size root = m_cache.at({0, sig[0]})->frame;
  c.out.bounds = {0, 0, root.w, root.h};
  c.out.boxOfNode.assign(m_graph->program().nodes.size(), -1);
  for (std::size_t b = 0; b < c.out.boxes.size(); ++b)
    if (const Box& box = c.out.boxes[b];
        box.kind == BoxKind::Op && box.node >= 0 && static_cast<std::size_t>(box.node) < c.out.boxOfNode.size())
      c.out.boxOfNode[static_cast<std::size_t>(box.node)] = static_cast<int32_t>(b);
  return std::move(c.out);
}

}  // namespace torchir::layout
