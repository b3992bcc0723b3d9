// GraphPanel on a ~20k-node program (transformer_770 of the bench set): setProgram returns before
// the ViewGraph and the layout exist (they are built off the GUI thread and arrive by queued
// signal), and the first layout arrives. How long each step takes is bench/studio_timing's job.
#include <QFileInfo>
#include <algorithm>
#include <QSignalSpy>
#include <QPointer>
#include <QTimer>
#include <QtTest>

#include "Fixtures.h"
#include "graph/GraphPanel.h"
#include "graph/GraphView.h"
#include "graph/GraphItems.h"
#include "graph/GraphScene.h"
#include "graph/GraphStyle.h"
#include "layout/LayoutEngine.h"
#include "layout/BoxLabels.h"
#include "layout/ViewGraph.h"
#include "formats/ProgramLoader.h"

using torchir::ui::GraphPanel;

class TestGraphBig : public QObject {
  Q_OBJECT

  torchir::ui::LoadedProgramPtr m_program;

 private Q_SLOTS:
  void initTestCase() {
    const QString path = qEnvironmentVariable("TORCHIR_BENCH") + QStringLiteral("/transformer_770.pt2");
    QVERIFY2(QFileInfo::exists(path),
             qPrintable(QStringLiteral("%1 not found: scripts/configure.sh writes it (TORCHIR_BENCH)").arg(path)));
    m_program = torchir::test::loadedProgram(path);
    QVERIFY(m_program->program.nodes.size() > 15000);
  }

  void viewGraphGroupsTheLayers() {
    // What keeps the first view small: 770 layers become groups, so the root draws a handful of boxes.
    const torchir::layout::ViewGraph g(m_program->program);
    QVERIFY(g.moduleCount() > g.programModules());  // synthetic group levels exist
    QVERIFY2(g.boxCount(0) <= 20, qPrintable(QStringLiteral("%1 boxes at the root").arg(g.boxCount(0))));
    int groupsAtRoot = 0;
    for (int child : g.children(0)) groupsAtRoot += g.isGroup(child);
    QVERIFY(groupsAtRoot >= 12);  // 770 layers in groups of at most 64
  }

  void setProgramDoesNotBlock() {
    GraphPanel panel;
    panel.resize(1200, 800);
    panel.show();
    QSignalSpy finished(&panel, &GraphPanel::layoutFinished);
    panel.setProgram(m_program);
    // Had the ViewGraph or the layout been made on the GUI thread, they would be here already: off
    // it, their results can only arrive once the event loop runs.
    QVERIFY(!panel.viewGraph());
    QCOMPARE(finished.count(), 0);
    QCOMPARE(panel.scene()->boxItemCount(), 0);
    QVERIFY(finished.wait(110000));
    QCOMPARE(panel.scene()->boxItemCount(), finished.at(0).at(0).toInt());
    QVERIFY(panel.scene()->boxItemCount() > 0 && panel.scene()->boxItemCount() <= 400);

    // Expanding one group of layers re-lays out off the GUI thread too.
    const auto* g = panel.viewGraph();
    QVERIFY(g);
    int group = -1;
    for (std::size_t m = g->programModules(); m < g->moduleCount() && group < 0; ++m)
      if (g->parent(static_cast<int>(m)) == 0 && !panel.foldState().expanded(static_cast<int>(m))) group = static_cast<int>(m);
    QVERIFY(group >= 0);
    finished.clear();
    const int before = panel.scene()->boxItemCount();
    panel.setModuleExpanded(group, true);
    QCOMPARE(finished.count(), 0);  // the new layout comes later, from the layout thread
    QCOMPARE(panel.scene()->boxItemCount(), before);
    QVERIFY(finished.wait(110000));
    QVERIFY(panel.scene()->boxItemCount() > before);
  }

  // The first view of a 20k-node program reads: its top at 1:1 (box titles as large as the
  // table's text), the inputs' box on screen, rather than the whole graph too small to read.
  void firstViewReadsFromTheTop() {
    GraphPanel panel;
    panel.resize(900, 700);
    panel.show();
    QSignalSpy finished(&panel, &GraphPanel::layoutFinished);
    panel.setProgram(m_program);
    QVERIFY(finished.wait(110000));
    QCOMPARE(panel.view()->zoom(), torchir::ui::GraphView::kReadableScale);
    const QRectF visible = panel.view()->mapToScene(panel.view()->viewport()->rect()).boundingRect();
    QVERIFY2(visible.height() < panel.scene()->sceneRect().height(), "the graph is taller than the window");
    const QGraphicsItem* first = nullptr;
    for (const QGraphicsItem* item : panel.scene()->items())
      if (item->type() == torchir::ui::BoxItem::Type &&
          (!first || item->sceneBoundingRect().top() < first->sceneBoundingRect().top()))
        first = item;
    QVERIFY(first);
    QVERIFY2(visible.contains(first->sceneBoundingRect()), "the inputs' box is on screen");
    QVERIFY(visible.top() <= panel.scene()->sceneRect().top() + 1);  // at the top
  }

  void everythingExpandedIsBuiltWithoutFreezing() {
    // The scene of the whole program (~25k boxes, ~28k edges) is built on the GUI thread in slices:
    // the event loop turns between them (a timer sees the scene part-built), and every item gets in.
    torchir::layout::LayoutEngine engine(torchir::ui::graphstyle::textMeasure());
    engine.setProgram(m_program->program);
    auto all = engine.layout(torchir::layout::FoldState::all(m_program->program));
    QVERIFY(all.has_value());
    const auto layout = std::make_shared<const torchir::layout::Layout>(std::move(*all));
    QPointer<torchir::ui::GraphScene> scene = new torchir::ui::GraphScene;
    const auto total = static_cast<qsizetype>(layout->boxes.size() + layout->edges.size() + layout->frames.size());
    int partBuilt = 0;  // timer ticks that found the scene neither empty nor whole
    QTimer tick;
    QObject::connect(&tick, &QTimer::timeout, [&] {
      const auto n = drawnItems(*scene);
      partBuilt += n > 0 && n < total;
    });
    bool done = false;
    tick.start(0);
    scene->showLayoutGradually(layout, [&] { done = true; });
    QVERIFY(drawnItems(*scene) < total);  // the call returns with work left for later slices
    QTRY_VERIFY_WITH_TIMEOUT(done, 60000);
    tick.stop();
    QVERIFY2(partBuilt > 0, "the event loop never ran while the scene was being built");
    QCOMPARE(scene->boxItemCount(), static_cast<int>(layout->boxes.size()));
    QCOMPARE(drawnItems(*scene), total);

    // Deleted the same way: the call returns with items left, and the scene goes once all are.
    scene->deleteGradually();
    QVERIFY(scene && drawnItems(*scene) > 0);
    QTRY_VERIFY_WITH_TIMEOUT(!scene, 60000);
  }

 private:
  /// The scene's boxes, edges and frames: every item but the groups that hold them.
  static qsizetype drawnItems(const QGraphicsScene& scene) {
    const auto all = scene.items();
    return std::count_if(all.begin(), all.end(), [](const QGraphicsItem* item) { return item->type() != torchir::ui::ItemGroup::Type; });
  }
};

QTEST_MAIN(TestGraphBig)
#include "tst_graphbig.moc"
