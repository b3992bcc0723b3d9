#include "ViewGraph.h"

#include <algorithm>
#include <memory_resource>
#include <unordered_set>
#include <utility>

#include "program/QuantOps.h"

namespace torchir::layout {

NodeId drawnOp(const Program& p, NodeId n) {
  // A .pt2 getitem names the node it picks from (a list output's getitem of getitem, twice); an
  // IR getitem is drawn as the producer of its first input.
  for (int guard = 0; guard < 4 && n >= 0 && isGetItem(p.node(n)); ++guard) {
    const Node& g = p.node(n);
    if (const arg::OutputOf* picked = g.picks()) n = picked->producer;
    else if (!g.inputs.empty() && !g.inputs[0].values.empty()) n = p.value(g.inputs[0].values[0]).producer;
    else break;
  }
  return n;
}

bool ViewGraph::isOpBox(NodeId n) const { return m_opBox[static_cast<std::size_t>(n)]; }

NodeId ViewGraph::dequantizedBy(NodeId n, ValueId weight) const {
  for (const WeightVia& w : m_weightVia[static_cast<std::size_t>(n)])
    if (w.weight == weight) return w.dequantize;
  return kNone;
}

std::string ViewGraph::readAs(NodeId n, ValueId weight) const {
  for (const WeightVia& w : m_weightVia[static_cast<std::size_t>(n)])
    if (w.weight == weight) return w.argument;
  return {};
}

namespace {

/// The levels' edge and port lists, each without duplicates and in first-seen (program) order, so
/// dot sees the same graph every time. Each read of a value is routed once, from its one source,
/// so an edge is new exactly when what it ends in is: a port the first time the value crosses
/// that module's border, a module the first time the value enters it (which is when its in-port
/// is made: a value enters a module only through that port), an op or an output always. Only the
/// ports are remembered, hashed in one arena freed at once (an ordered set of edges per level was a
/// third of the graph's build at 100k nodes).
class LevelBuilder {
 public:
  explicit LevelBuilder(std::size_t levels) : m_levels(levels), m_seen(&m_arena) {}

  ModuleLevel& level(std::size_t m) { return m_levels[m]; }
  std::vector<ModuleLevel> take() { return std::move(m_levels); }

  /// The value enters / leaves module `m`: true the first time, when its port is made.
  bool in(std::size_t m, ValueId v) {
    return firstSeen(Seen::InPort, m, v) && (m_levels[m].inValues.push_back(v), true);
  }
  bool out(std::size_t m, ValueId v) {
    return firstSeen(Seen::OutPort, m, v) && (m_levels[m].outValues.push_back(v), true);
  }
  void edge(std::size_t m, ItemRef a, ItemRef b, ValueId v, int port, NodeId quantizedBy) {
    m_levels[m].edges.push_back({a, b, v, port, quantizedBy});
  }

 private:
  enum class Seen : std::uint64_t { InPort, OutPort };
  bool firstSeen(Seen kind, std::size_t m, ValueId v) {
    return m_seen
        .insert((static_cast<std::uint64_t>(kind) << 62) | (std::uint64_t{m} << 32) | static_cast<std::uint32_t>(v))
        .second;
  }

  std::vector<ModuleLevel> m_levels;
  std::pmr::monotonic_buffer_resource m_arena;
  std::pmr::unordered_set<std::uint64_t> m_seen;
};

}  // namespace

ViewGraph::ViewGraph(const Program& p, ViewOptions options) : m_program(p), m_options(options) {
  // What each node is, in one pass over the nodes; the passes after it read these vectors instead
  // of the nodes (100k nodes: each pass over them was a cache miss per node).
  m_folded.assign(p.nodes.size(), false);
  // Asked per node by every colouring of the view (a comparison's: 100k nodes): found once here.
  m_opBox.resize(p.nodes.size());
  m_drawnAs.resize(p.nodes.size());
  // Which values are weights: the state's placeholders (below) and what get_attr nodes give.
  m_isWeight.assign(p.values.size(), false);
  for (const auto& n : p.nodes) {
    const auto i = static_cast<std::size_t>(n.id);
    m_folded[i] =
        options.foldQuantization && n.opcode == Opcode::CallFunction && quantRole(n.target) != QuantRole::None;
    m_opBox[i] = isOpNode(n) && !m_folded[i];
    m_drawnAs[i] = drawnOp(p, n.id);
    if (n.opcode == Opcode::GetAttr)
      for (ValueId v : n.outputs) m_isWeight[static_cast<std::size_t>(v)] = true;
  }
  const std::size_t nn = p.nodes.size();
  const std::size_t nm = std::max<std::size_t>(p.modules.size(), 1);
  m_programModules = nm;
  std::vector<int>& parent = m_parent;
  parent.assign(nm, -1);
  m_depth.assign(nm, 0);
  m_subtreeOps.assign(nm, 0);
  m_nodeModule.assign(p.nodes.size(), 0);
  for (std::size_t m = 0; m < p.modules.size(); ++m) {
    parent[m] = p.modules[m].parent;
    for (NodeId n : p.modules[m].nodes) m_nodeModule[static_cast<std::size_t>(n)] = static_cast<int>(m);
  }

  for (std::size_t n = 0; n < nn; ++n)
    if (m_opBox[n])
      for (int m = m_nodeModule[n]; m >= 0; m = parent[static_cast<std::size_t>(m)])
        ++m_subtreeOps[static_cast<std::size_t>(m)];
  std::vector<bool> transparent(nm, false);
  m_children.assign(nm, {});
  for (std::size_t m = 1; m < nm; ++m) {
    transparent[m] = m_subtreeOps[m] <= 1;
    if (!transparent[m] && parent[m] >= 0) m_children[static_cast<std::size_t>(parent[m])].push_back(static_cast<int>(m));
  }
  m_inlined.assign(p.nodes.size(), -1);
  for (std::size_t n = 0; n < p.nodes.size(); ++n) {
    int& m = m_nodeModule[n];
    if (transparent[static_cast<std::size_t>(m)]) m_inlined[n] = m;
    while (transparent[static_cast<std::size_t>(m)]) m = parent[static_cast<std::size_t>(m)];
  }

  // Program order of each level: a child module sits where its first node does.
  std::vector<NodeId> firstNode(nm, static_cast<NodeId>(nn));
  std::vector<std::vector<NodeId>> ops(nm);
  for (std::size_t n = 0; n < nn; ++n) {
    const auto id = static_cast<NodeId>(n);
    for (int m = m_nodeModule[n]; m >= 0; m = parent[static_cast<std::size_t>(m)]) {
      if (firstNode[static_cast<std::size_t>(m)] <= id) break;
      firstNode[static_cast<std::size_t>(m)] = id;
    }
    if (m_opBox[n]) ops[static_cast<std::size_t>(m_nodeModule[n])].push_back(id);
  }
  auto ordered = [&](std::size_t m) {
    std::vector<std::pair<NodeId, ItemRef>> order;
    for (NodeId n : ops[m]) order.push_back({n, {ItemRef::Op, n}});
    for (int c : m_children[m]) order.push_back({firstNode[static_cast<std::size_t>(c)], {ItemRef::Module, c}});
    std::stable_sort(order.begin(), order.end(), [](const auto& x, const auto& y) { return x.first < y.first; });
    return order;
  };

  // Long runs of indexed siblings become group levels, before routing, so that edges get ports on
  // group frames exactly as on module frames.
  for (std::size_t m = 0; m < nm; ++m) {
    if (m_children[m].size() <= static_cast<std::size_t>(kMaxSiblings)) continue;
    std::vector<int> items;  // children in program order, -1 for an op between them
    for (const auto& [n, item] : ordered(m)) items.push_back(item.kind == ItemRef::Module ? item.index : -1);
    const std::size_t before = m_groups.size();
    m_children[m] = groupSiblings(p, static_cast<int>(m), items, static_cast<int>(nm), &m_groups);
    for (std::size_t k = before; k < m_groups.size(); ++k) {
      const SiblingGroup& g = m_groups[k];
      const int gi = static_cast<int>(nm + k);
      parent.push_back(g.parent);
      m_children.push_back(g.members);
      ops.emplace_back();
      firstNode.push_back(firstNode[static_cast<std::size_t>(g.members.front())]);
      int sum = 0;
      for (int c : g.members) {
        parent[static_cast<std::size_t>(c)] = gi;
        sum += m_subtreeOps[static_cast<std::size_t>(c)];
      }
      m_subtreeOps.push_back(sum);
    }
  }
  const std::size_t nl = nm + m_groups.size();
  // Depths along the (grouped) parent chain: groups sit between a level and its members.
  m_depth.assign(nl, 0);
  for (std::size_t m = 1; m < nl; ++m) {
    for (int a = parent[m]; a >= 0; a = parent[static_cast<std::size_t>(a)]) ++m_depth[m];
    m_depth[m] = std::max(m_depth[m], 1);
  }

  // Which values are weights (with the get_attr outputs found above), and which user input a
  // placeholder value is.
  std::vector<int> inputIndex(p.values.size(), -1);
  for (std::size_t i = 0; i < p.inputs.size(); ++i) {
    const auto& s = p.inputs[i];
    if (s.value < 0) continue;
    if (s.kind == InputKind::UserInput) inputIndex[static_cast<std::size_t>(s.value)] = static_cast<int>(i);
    else m_isWeight[static_cast<std::size_t>(s.value)] = true;
  }

  LevelBuilder b(nl);
  auto nodeModule = [&](ItemRef leaf) { return leaf.kind == ItemRef::Op ? m_nodeModule[static_cast<std::size_t>(leaf.index)] : 0; };
  // A value made by folded quantization stands for the value it was made from (its first tensor
  // argument: quantize's input, dequantize's codes, the subclass of an inner tensor), back to a
  // drawn op, an input or a weight; `through` is the quantize node passed, `via` the last folded.
  struct Unfolded {
    ValueId value;
    NodeId through = kNone, via = kNone;
  };
  auto unfold = [&](ValueId v) {
    Unfolded u{v};
    for (int guard = 0; guard < 16; ++guard) {
      const NodeId n = p.value(u.value).producer;
      const NodeId drawn = n >= 0 ? drawnAs(n) : n;
      if (drawn < 0 || !m_folded[static_cast<std::size_t>(drawn)]) break;
      const Node& q = p.node(drawn);
      if (u.via == kNone) u.via = drawn;
      if (quantRole(q.target) == QuantRole::Quantize && u.through == kNone) u.through = drawn;
      ValueId first = kNone;
      for (const auto& a : q.inputs)
        if (!a.values.empty() && a.values.front() >= 0 && p.value(a.values.front()).kind == ValueKind::Tensor) {
          first = a.values.front();
          break;
        }
      if (first == kNone) break;
      u.value = first;
    }
    return u;
  };

  // The drawn producer of a value: getitem nodes only name an output of the op before them.
  auto source = [&](ValueId v, int* port) -> ItemRef {
    const Value& val = p.value(v);
    if (inputIndex[static_cast<std::size_t>(v)] >= 0) return {ItemRef::Input, inputIndex[static_cast<std::size_t>(v)]};
    NodeId n = val.producer;
    *port = -1;
    if (n < 0) return {ItemRef::Op, -1};
    if (p.node(n).returnsTuple) *port = val.outputIndex;
    return {ItemRef::Op, drawnAs(n)};
  };
  // Routes one dataflow edge through the hierarchy: ports on every module boundary it crosses and
  // one edge in the lowest module that contains both ends.
  auto route = [&](ValueId v, ItemRef from, int port, ItemRef to, NodeId quantizedBy) {
    m_flat.push_back({from, to, v, port, quantizedBy});
    int a = nodeModule(from), c = nodeModule(to);
    ItemRef ia = from, ic = to;
    bool newInto = true;  // whether no edge of the value ends in `ic` yet: always so for an op or an output
    while (a != c) {
      if (m_depth[static_cast<std::size_t>(a)] >= m_depth[static_cast<std::size_t>(c)]) {
        if (b.out(static_cast<std::size_t>(a), v))
          b.edge(static_cast<std::size_t>(a), ia, {ItemRef::OutPort, v}, v, ia == from ? port : -1, quantizedBy);
        ia = {ItemRef::Module, a};
        a = parent[static_cast<std::size_t>(a)];
      } else {
        const bool newPort = b.in(static_cast<std::size_t>(c), v);
        if (newInto) b.edge(static_cast<std::size_t>(c), {ItemRef::InPort, v}, ic, v, -1, quantizedBy);
        ic = {ItemRef::Module, c};
        newInto = newPort;
        c = parent[static_cast<std::size_t>(c)];
      }
    }
    if (newInto) b.edge(static_cast<std::size_t>(a), ia, ic, v, ia == from ? port : -1, quantizedBy);
  };

  m_weightsStart.assign(p.nodes.size() + 1, 0);
  m_weightVia.assign(p.nodes.size(), {});
  // The node that last read each value: a value read twice by one node is one edge. (A set per
  // node was 250k allocations at 100k nodes.)
  std::vector<NodeId> lastReader(p.values.size(), kNone);
  for (const auto& n : p.nodes) {
    m_weightsStart[static_cast<std::size_t>(n.id)] = m_weights.size();  // nodes are in id order
    if (!isOpBox(n.id)) continue;
    for (const auto& arg : n.inputs)
      for (ValueId read : arg.values) {
        if (read < 0) continue;
        const Unfolded u = unfold(read);
        const ValueId v = u.value;
        if (std::exchange(lastReader[static_cast<std::size_t>(v)], n.id) == n.id) continue;
        if (m_isWeight[static_cast<std::size_t>(v)]) {
          m_weights.push_back(v);
          if (u.via != kNone) m_weightVia[static_cast<std::size_t>(n.id)].push_back({v, u.via, arg.name});
          continue;
        }
        int port = -1;
        const ItemRef from = source(v, &port);
        if (from.index >= 0) route(read, from, port, {ItemRef::Op, n.id}, u.through);
      }
  }
  m_weightsStart[p.nodes.size()] = m_weights.size();
  for (std::size_t i = 0; i < p.outputs.size(); ++i) {
    if (p.outputs[i].value < 0) continue;
    const Unfolded u = unfold(p.outputs[i].value);
    if (m_isWeight[static_cast<std::size_t>(u.value)]) continue;
    int port = -1;
    const ItemRef from = source(u.value, &port);
    if (from.index >= 0) route(p.outputs[i].value, from, port, {ItemRef::Output, static_cast<int>(i)}, u.through);
  }

  for (std::size_t m = 0; m < nl; ++m) {
    const auto order = ordered(m);
    auto& items = b.level(m).items;
    if (m == 0)
      for (std::size_t i = 0; i < p.inputs.size(); ++i)
        if (p.inputs[i].kind == InputKind::UserInput) items.push_back({ItemRef::Input, static_cast<int>(i)});
    for (const auto& [n, item] : order) items.push_back(item);
    if (m == 0)
      for (std::size_t i = 0; i < p.outputs.size(); ++i) items.push_back({ItemRef::Output, static_cast<int>(i)});
  }
  m_levels = b.take();
}

}  // namespace torchir::layout
