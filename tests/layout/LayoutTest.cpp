// Geometry invariants of the layout on every fixture, collapsed and fully expanded, plus the
// sub-layout cache and the worker's latest-request-wins contract.
#include <QtTest>
#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <mutex>

#include "layout/LayoutEngine.h"
#include "layout/LayoutJson.h"
#include "layout/LayoutWorker.h"
#include "program/ProgramLoader.h"
#include "../program/FixtureZoo.h"

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
  if (fullyExpanded) {
    int want = 0;
    for (const auto& n : p.nodes) want += n.opcode == Opcode::CallFunction && n.target != "<built-in function getitem>";
    QCOMPARE(ops, want);
  }
}

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
      for (uint64_t g = 1; g <= 5; ++g) worker.request(p, g % 2 ? FoldState::all(*p) : FoldState::toDepth(*p, 0), g);
      std::unique_lock lock(mu);
      QVERIFY(cv.wait_for(lock, std::chrono::seconds(30), [&] { return !seen.empty() && seen.back() == 5; }));
    }
    QVERIFY(!empty);
    QVERIFY(std::is_sorted(seen.begin(), seen.end()));
  }
};

QTEST_APPLESS_MAIN(LayoutTest)
#include "LayoutTest.moc"
