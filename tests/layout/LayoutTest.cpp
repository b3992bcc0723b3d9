// Geometry invariants of the layout on every fixture, collapsed and fully expanded, plus the
// sub-layout cache and the worker's latest-request-wins contract.
#include <QtTest>
#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <mutex>
#include <set>
#include <tuple>

#include "../program/FixtureZoo.h"
#include "layout/BoxLabels.h"
#include "layout/LayoutEngine.h"
#include "layout/LayoutJson.h"
#include "layout/LayoutWorker.h"
#include "formats/ProgramLoader.h"

using namespace torchir;
using namespace torchir::layout;

namespace {

constexpr double kTol = 3.0;  // points: dot clips edges to borders with rounding

bool near(const Rect& r, const Point& p) {
  return p.x >= r.x - kTol && p.x <= r.right() + kTol && p.y >= r.y - kTol && p.y <= r.bottom() + kTol;
}

bool inside(const Rect& inner, const Rect& outer) {
  return inner.x >= outer.x - 0.5 && inner.y >= outer.y - 0.5 && inner.right() <= outer.right() + 0.5 &&
         inner.bottom() <= outer.bottom() + 0.5;
}

bool overlap(const Rect& a, const Rect& b) {
  const double eps = 0.5;
  return a.x + eps < b.right() && b.x + eps < a.right() && a.y + eps < b.bottom() && b.y + eps < a.bottom();
}

void checkInvariants(const Program& p, const Layout& l, bool fullyExpanded) {
  QVERIFY(!l.boxes.empty());
  // No two boxes overlap (sweep over x).
  std::vector<std::size_t> order(l.boxes.size());
  for (std::size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::sort(order.begin(), order.end(), [&](auto a, auto b) { return l.boxes[a].rect.x < l.boxes[b].rect.x; });
  for (std::size_t i = 0; i < order.size(); ++i)
    for (std::size_t j = i + 1; j < order.size() && l.boxes[order[j]].rect.x < l.boxes[order[i]].rect.right(); ++j)
      QVERIFY2(!overlap(l.boxes[order[i]].rect, l.boxes[order[j]].rect),
               qPrintable(QString("boxes %1 and %2 overlap").arg(order[i]).arg(order[j])));
  // Edges start at their producer and end at their consumer.
  for (const Edge& e : l.edges) {
    QVERIFY(!e.points.empty());
    QVERIFY2(near(l.boxes.at(e.from).rect, e.points.front()), qPrintable(QString("edge from box %1 starts elsewhere").arg(e.from)));
    QVERIFY2(near(l.boxes.at(e.to).rect, e.arrowTip), qPrintable(QString("edge to box %1 ends elsewhere").arg(e.to)));
  }
  // Frames contain their children; everything lies within the bounds.
  for (const Box& b : l.boxes) {
    if (b.frame >= 0) QVERIFY(inside(b.rect, l.frames.at(b.frame).rect));
    QVERIFY(inside(b.rect, l.bounds));
  }
  for (const Frame& f : l.frames) {
    if (f.parent >= 0) QVERIFY(inside(f.rect, l.frames.at(f.parent).rect));
    QVERIFY(inside(f.rect, l.bounds));
  }
  // Weights are never boxes: op boxes are exactly the drawn call_function nodes.
  int ops = 0;
  for (const Box& b : l.boxes)
    if (b.kind == BoxKind::Op) {
      QCOMPARE(p.node(b.node).opcode, Opcode::CallFunction);
      QVERIFY(p.node(b.node).target != "<built-in function getitem>");
      ++ops;
    }
  // Each op box is found by its node, and a node without a box (inside a collapsed module) by none.
  QCOMPARE(l.boxOfNode.size(), p.nodes.size());
  std::vector<int32_t> boxOf(p.nodes.size(), -1);
  for (std::size_t b = 0; b < l.boxes.size(); ++b)
    if (l.boxes[b].kind == BoxKind::Op) boxOf[static_cast<std::size_t>(l.boxes[b].node)] = static_cast<int32_t>(b);
  for (std::size_t n = 0; n < p.nodes.size(); ++n) QCOMPARE(l.boxOf(static_cast<int32_t>(n)), boxOf[n]);
  QCOMPARE(l.boxOf(-1), -1);
  QCOMPARE(l.boxOf(static_cast<int32_t>(p.nodes.size())), -1);
  if (fullyExpanded) {
    int want = 0;
    for (const auto& n : p.nodes) want += n.opcode == Opcode::CallFunction && n.target != "<built-in function getitem>";
    QCOMPARE(ops, want);
  }
}

/// A root holding `layers` sibling modules `layers.0` .. of one class, each two ops in a chain:
/// the shape of a transformer whose nn.ModuleList never shows on the module stack.
Program chainOfLayers(int layers) {
  Program p;
  p.modules.push_back({"", "", -1, {}, {}});
  auto value = [&](NodeId producer) {
    const auto v = static_cast<ValueId>(p.values.size());
    Value val;
    val.id = v, val.name = "v" + std::to_string(v), val.dtype = DType::Float32, val.shape = {Dim{8, {}}}, val.producer = producer;
    p.values.push_back(val);
    return v;
  };
  auto node = [&](Opcode op, const std::string& target, std::vector<ValueId> in, int module) {
    Node n;
    n.id = static_cast<NodeId>(p.nodes.size()), n.opcode = op, n.name = "n" + std::to_string(n.id), n.target = target;
    if (!in.empty()) {
      arg::Tensors tensors;
      for (ValueId v : in) tensors.tensors.push_back({v, "v" + std::to_string(v)});
      n.inputs.push_back({"x", false, std::move(tensors), in});
    }
    for (ValueId v : in) p.values[static_cast<std::size_t>(v)].users.push_back(n.id);
    if (op != Opcode::Output) n.outputs.push_back(value(n.id));
    p.nodes.push_back(n);
    p.modules[static_cast<std::size_t>(module)].nodes.push_back(n.id);
    return n.outputs.empty() ? kNone : n.outputs[0];
  };
  ValueId x = node(Opcode::Placeholder, "x", {}, 0);
  p.inputs.push_back({InputKind::UserInput, x, "", true});
  for (int i = 0; i < layers; ++i) {
    const int m = static_cast<int>(p.modules.size());
    p.modules.push_back({"layers." + std::to_string(i), "my.Layer", 0, {}, {}});
    p.modules[0].children.push_back(m);
    x = node(Opcode::CallFunction, "aten.add.Tensor", {node(Opcode::CallFunction, "aten.relu.default", {x}, m), x}, m);
  }
  node(Opcode::Output, "output", {x}, 0);
  p.outputs.push_back({OutputKind::UserOutput, x, {}, ""});
  return p;
}

/// Each level's edges and ports are the flat edges routed through the module hierarchy (a port on
/// every border crossed, one edge in the innermost level holding both ends), told apart by a plain
/// set of everything seen, in first-seen order: the graph's own bookkeeping remembers less.
void checkLevelsRouteTheFlatEdges(const ViewGraph& g) {
  using Seen = std::tuple<int, ItemRef, ItemRef, ValueId>;
  std::set<Seen> seenEdges;
  std::set<std::pair<int, ValueId>> seenIn, seenOut;
  std::vector<ModuleLevel> want(g.moduleCount());
  auto edge = [&](int m, ItemRef a, ItemRef b, const LevelEdge& e, int port) {
    if (seenEdges.emplace(m, a, b, e.value).second)
      want[static_cast<std::size_t>(m)].edges.push_back({a, b, e.value, port, e.quantizedBy});
  };
  auto moduleOf = [&](ItemRef item) { return item.kind == ItemRef::Op ? g.drawnIn(item.index) : 0; };
  for (const LevelEdge& e : g.flatEdges()) {
    int a = moduleOf(e.from), c = moduleOf(e.to);
    ItemRef ia = e.from, ic = e.to;
    while (a != c) {
      if (g.depth(a) >= g.depth(c)) {
        if (seenOut.emplace(a, e.value).second) want[static_cast<std::size_t>(a)].outValues.push_back(e.value);
        edge(a, ia, {ItemRef::OutPort, e.value}, e, ia == e.from ? e.port : -1);
        ia = {ItemRef::Module, a};
        a = g.parent(a);
      } else {
        if (seenIn.emplace(c, e.value).second) want[static_cast<std::size_t>(c)].inValues.push_back(e.value);
        edge(c, {ItemRef::InPort, e.value}, ic, e, -1);
        ic = {ItemRef::Module, c};
        c = g.parent(c);
      }
    }
    edge(a, ia, ic, e, ia == e.from ? e.port : -1);
  }
  for (std::size_t m = 0; m < g.moduleCount(); ++m) {
    const ModuleLevel& level = g.level(static_cast<int>(m));
    QCOMPARE(level.inValues, want[m].inValues);
    QCOMPARE(level.outValues, want[m].outValues);
    QCOMPARE(level.edges.size(), want[m].edges.size());
    for (std::size_t i = 0; i < level.edges.size(); ++i) {
      const LevelEdge &got = level.edges[i], &expected = want[m].edges[i];
      QVERIFY(got.from == expected.from && got.to == expected.to);
      QCOMPARE(got.value, expected.value);
      QCOMPARE(got.port, expected.port);
      QCOMPARE(got.quantizedBy, expected.quantizedBy);
    }
  }
}

int groupCount(const ViewGraph& g) { return static_cast<int>(g.moduleCount() - g.programModules()); }

}  // namespace

class LayoutTest : public QObject {
  Q_OBJECT
 private Q_SLOTS:
  void fixtures_data() { test::addFixtureRows(); }
  void fixtures() {
    QFETCH(QString, name);
    const Program p = loadProgram(test::fixturePath(name.toStdString(), ".pt2"));
    LayoutEngine engine;
    engine.setProgram(p);
    // What the graph keeps per node is what it would find each time.
    for (const Node& n : p.nodes) {
      QCOMPARE(engine.graph().drawnAs(n.id), drawnOp(p, n.id));
      QCOMPARE(engine.graph().isOpBox(n.id), isOpNode(n) && !engine.graph().isFolded(n.id));
    }
    checkLevelsRouteTheFlatEdges(engine.graph());
    if (QTest::currentTestFailed()) return;
    const auto collapsed = engine.layout(FoldState::initial(engine.graph()));
    QVERIFY(collapsed);
    checkInvariants(p, *collapsed, false);
    if (QTest::currentTestFailed()) return;
    const auto all = engine.layout(FoldState::all(p));
    QVERIFY(all);
    checkInvariants(p, *all, true);
    if (QTest::currentTestFailed()) return;
    // The same input gives the same layout, from a fresh engine too.
    LayoutEngine again;
    again.setProgram(p);
    QCOMPARE(layoutToJson(*again.layout(FoldState::all(p))).dump(), layoutToJson(*all).dump());
  }

  // A symbolic op's box reads as people write it, with the graph's own names (dynamic_reshape:
  // `sym_size_int_1 * 2` where the table says `<built-in function mul>`); other ops keep their name.
  void symbolicOpsReadAsWritten() {
    const Program p = loadProgram(test::fixturePath("dynamic_reshape", ".pt2"));
    std::set<std::string> expressions;
    for (const Node& n : p.nodes) {
      const std::string e = symbolicExpression(p, n);
      QCOMPARE(e.empty(), n.target.rfind("<built-in function", 0) != 0 || n.target == "<built-in function getitem>");
      if (!e.empty()) expressions.insert(e);
    }
    QVERIFY(expressions.count("sym_size_int_1 * 2"));
    QVERIFY(expressions.count("sym_size_int_1 // 2"));
    QVERIFY(expressions.count("floordiv + 1"));
  }

  // Quantized programs (pt2e, torchao): folded quantization routes values through `unfold`, and
  // unfolded it draws every quantize node; both views' levels are the flat edges routed.
  void quantizedLevelsRouteTheFlatEdges_data() {
    QTest::addColumn<QString>("name");
    const auto manifest = test::readJson(test::fixturesDir() + "/quant/manifest.json");
    QVERIFY(!manifest.at("fixtures").empty());
    for (const auto& f : manifest.at("fixtures")) {
      const std::string name = f.at("name");
      QTest::newRow(name.c_str()) << QString::fromStdString(name);
    }
  }
  void quantizedLevelsRouteTheFlatEdges() {
    QFETCH(QString, name);
    const Program p =
        loadProgram(test::fixturesDir() + "/quant/" + name.toStdString() + "/" + name.toStdString() + ".pt2");
    for (const bool fold : {true, false}) {
      const ViewGraph g(p, ViewOptions{fold});
      bool folded = false;  // a quantized program folds some node, or `unfold` was never tried
      for (const Node& n : p.nodes) folded = folded || g.isFolded(n.id);
      QCOMPARE(folded, fold);
      checkLevelsRouteTheFlatEdges(g);
      if (QTest::currentTestFailed()) return;
    }
  }

  // Graphviz 2.42 keeps a one-byte visit mark across runs; with the old ranker, every ~255th
  // component search met marks left by network simplex and crashed (about 96 runs of resnet18's
  // levels). A studio session expands and collapses for hours, so hundreds of runs must be safe.
  void hundredsOfDotRunsInOneProcess() {
    const Program p = loadProgram(test::fixturePath("resnet18", ".pt2"));
    std::string first;
    int runs = 0;
    for (int i = 0; i < 40; ++i) {
      LayoutEngine engine;
      engine.setProgram(p);
      const auto l = engine.layout(FoldState::all(p));
      QVERIFY(l);
      runs += engine.dotRuns();
      const std::string json = layoutToJson(*l).dump();
      if (i == 0) first = json;
      QCOMPARE(json, first);
    }
    QVERIFY2(runs > 600, qPrintable(QString::number(runs)));
  }

  void expandingReusesCachedLevels() {
    const Program p = loadProgram(test::fixturePath("resnet18", ".pt2"));
    LayoutEngine engine;
    engine.setProgram(p);
    FoldState fold = FoldState::toDepth(p, 1);  // layer1..4 open, their blocks closed
    QVERIFY(engine.layout(fold));
    const int before = engine.dotRuns();
    QVERIFY(engine.layout(fold));
    QCOMPARE(engine.dotRuns(), before);  // nothing changed: nothing laid out
    int block = -1;
    for (std::size_t m = 0; m < p.modules.size(); ++m)
      if (p.modules[m].path == "layer2.0") block = static_cast<int>(m);
    QVERIFY(block > 0);
    fold.setExpanded(block, true);
    const auto l = engine.layout(fold);
    QVERIFY(l);
    // Only layer2.0 itself and its two ancestors (layer2, the root) run dot again.
    QCOMPARE(engine.dotRuns() - before, 3);
    checkInvariants(p, *l, false);
  }

  void siblingRunsBecomeGroups() {
    const Program p = chainOfLayers(200);
    LayoutEngine engine;
    engine.setProgram(p);
    const ViewGraph& g = engine.graph();
    checkLevelsRouteTheFlatEdges(g);  // through the groups' levels too
    // 200 layers: groups of 64 aligned to the index (0–63, 64–127, 128–191, 192–199).
    QCOMPARE(groupCount(g), 4);
    QCOMPARE(static_cast<int>(g.children(0).size()), 4);
    std::vector<int> inGroup(p.modules.size(), 0);
    for (std::size_t k = g.programModules(); k < g.moduleCount(); ++k) {
      const int gi = static_cast<int>(k);
      QVERIFY(g.isGroup(gi));
      QCOMPARE(g.parent(gi), 0);
      const SiblingGroup& gr = g.group(gi);
      const int i = static_cast<int>(k - g.programModules());
      const int size = i < 3 ? 64 : 8;
      QCOMPARE(static_cast<int>(gr.members.size()), size);
      QCOMPARE(gr.modules, size);
      QCOMPARE(g.children(gi), gr.members);
      QCOMPARE(g.subtreeOps(gi), 2 * size);
      const std::string range = "layers." + std::to_string(64 * i) + "\u2013" + std::to_string(64 * i + size - 1);
      QCOMPARE(moduleLabel(g, gi).front(), range);
      QCOMPARE(frameLabel(g, gi), range + " (" + std::to_string(size) + " \u00d7 Layer)");
      for (int m : gr.members) {
        QVERIFY(!g.isGroup(m));
        QCOMPARE(g.parent(m), gi);
        ++inGroup[static_cast<std::size_t>(m)];
      }
    }
    for (std::size_t m = 1; m < p.modules.size(); ++m) QCOMPARE(inGroup[m], 1);  // each layer in exactly one group

    // The first view opens the groups (202 boxes) but not the layers (402 would be too many).
    const auto l = engine.layout(FoldState::initial(g));
    QVERIFY(l);
    QVERIFY(l->boxes.size() < 300);
    QCOMPARE(static_cast<int>(l->frames.size()), 4);
    for (const Frame& f : l->frames) QVERIFY(g.isGroup(f.module));
    checkInvariants(p, *l, false);
    // A fold made from the Program alone opens every group.
    const auto all = engine.layout(FoldState::all(p));
    QVERIFY(all);
    QCOMPARE(static_cast<int>(all->frames.size()), 200 + 4);
    checkInvariants(p, *all, true);

    // Expanding a layer inside a group re-runs dot for the layer, its group and the root only
    // (a fresh engine: the one above has every level cached already).
    LayoutEngine fresh;
    fresh.setProgram(p);
    FoldState fold = FoldState::all(p);
    fold.setExpanded(100, false);
    QVERIFY(fresh.layout(fold));
    const int before = fresh.dotRuns();
    fold.setExpanded(100, true);
    QVERIFY(fresh.layout(fold));
    QCOMPARE(fresh.dotRuns() - before, 3);
  }

  void firstViewOfManyLayersShowsGroups() {
    const Program p = chainOfLayers(770);
    LayoutEngine engine;
    engine.setProgram(p);
    const auto l = engine.layout(FoldState::initial(engine.graph()));
    QVERIFY(l);
    int groupBoxes = 0;
    for (const Box& b : l->boxes) groupBoxes += b.kind == BoxKind::Module && engine.graph().isGroup(b.module);
    QCOMPARE(groupBoxes, 13);  // 12 x 64 + 2
    QCOMPARE(static_cast<int>(l->boxes.size()), 13 + 2);  // and the input and output
    QCOMPARE(engine.dotRuns(), 1);
    checkInvariants(p, *l, false);
  }

  void nestedGroupsBoundEveryLevel() {
    const Program p = chainOfLayers(5000);  // 79 groups of 64 would crowd the root: group them again
    const ViewGraph g(p);
    for (std::size_t m = 0; m < g.moduleCount(); ++m) QVERIFY(g.children(static_cast<int>(m)).size() <= 64);
    int outer = 0;
    for (int c : g.children(0)) outer += g.isGroup(c) && g.group(c).modules > 64;
    QCOMPARE(outer, 2);  // 0–4095 and 4096–4999
    QCOMPARE(moduleLabel(g, g.children(0).front()).front(), std::string("layers.0\u20134095"));
  }

  void shortRunsStayUngrouped() {
    for (const char* name : {"gpt2", "resnet18"}) {  // gpt2's h.0, h.1 are far too few to group
      const Program p = loadProgram(test::fixturePath(name, ".pt2"));
      const ViewGraph g(p);
      QCOMPARE(groupCount(g), 0);
      QCOMPARE(g.moduleCount(), p.modules.size());
    }
    QCOMPARE(groupCount(ViewGraph(chainOfLayers(64))), 0);
    QCOMPARE(groupCount(ViewGraph(chainOfLayers(65))), 1);  // 0–63 grouped, a lone 64 stays a module
  }

  void cancelStopsBetweenLevels() {
    const Program p = loadProgram(test::fixturePath("gpt2", ".pt2"));
    LayoutEngine engine;
    engine.setProgram(p);
    int checks = 0;
    QVERIFY(!engine.layout(FoldState::all(p), [&] { return ++checks > 1; }));
    QCOMPARE(engine.dotRuns(), 1);
  }

  void workerDeliversLatestGeneration() {
    auto p = std::make_shared<const Program>(loadProgram(test::fixturePath("resnet18", ".pt2")));
    std::mutex mu;
    std::condition_variable cv;
    std::vector<uint64_t> seen;
    bool empty = false;  // checked here: QVERIFY is for the test thread only
    {
      LayoutWorker worker(fixedMetric, [&](uint64_t gen, Layout l) {
        std::lock_guard lock(mu);
        empty = empty || l.boxes.empty();
        seen.push_back(gen);
        cv.notify_all();
      });
      const auto graph = std::make_shared<const ViewGraph>(*p);
      for (uint64_t g = 1; g <= 5; ++g) worker.request(graph, g % 2 ? FoldState::all(*p) : FoldState::toDepth(*p, 0), g);
      std::unique_lock lock(mu);
      QVERIFY(cv.wait_for(lock, std::chrono::seconds(30), [&] { return !seen.empty() && seen.back() == 5; }));
    }
    QVERIFY(!empty);
    QVERIFY(std::is_sorted(seen.begin(), seen.end()));
  }
};

QTEST_APPLESS_MAIN(LayoutTest)
#include "LayoutTest.moc"
