// GraphPanel over a real program (resnet18): the scene is the layout engine's drawing, clicks
// select, selection unfolds, marks recolour, and both exports write what they claim.
#include <QContextMenuEvent>
#include <QGraphicsView>
#include <QImage>
#include <QLabel>
#include <QScrollBar>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QHelpEvent>
#include <QToolTip>
#include <QtTest>

#include "Fixtures.h"
#include "graph/GraphDetail.h"
#include "graph/GraphPanel.h"
#include "graph/GraphScene.h"
#include "graph/GraphStyle.h"
#include "graph/GraphView.h"
#include "layout/LayoutEngine.h"
#include "layout/ViewGraph.h"
#include "formats/ProgramLoader.h"

using torchir::NodeId;
using torchir::ui::BoxItem;
using torchir::ui::Detail;
using torchir::ui::ExecutionMarks;
using torchir::ui::GraphPanel;
using torchir::ui::GraphView;
using torchir::ui::NodeStatus;
namespace layout = torchir::layout;

namespace {

bool waitForLayout(GraphPanel& panel, QSignalSpy& spy, int timeoutMs = 60000) {
  if (spy.isEmpty() && !spy.wait(timeoutMs)) return false;
  return !panel.isLayingOut();
}

}  // namespace

class TestGraphPanel : public QObject {
  Q_OBJECT

  torchir::ui::LoadedProgramPtr m_program;
  // One panel for the tests that follow each other, as the window keeps one: its layout cache
  // carries over, so they cost few dot runs.
  std::unique_ptr<GraphPanel> m_panel;

  /// Re-lays out through `action` and waits for the new scene.
  template <class F>
  bool relayout(GraphPanel& panel, F action) {
    QSignalSpy finished(&panel, &GraphPanel::layoutFinished);
    action();
    return waitForLayout(panel, finished);
  }

  /// Whether the item's centre is at the viewport's centre, on each axis where the scene is larger
  /// than the viewport (a smaller scene is aligned by the view and cannot scroll).
  static bool isCentred(GraphPanel& panel, const QRectF& rect, QString* why) {
    auto* view = panel.view();
    const QPoint at = view->mapFromScene(rect.center());
    const QPoint centre = view->viewport()->rect().center();
    const QRect sceneInView = view->mapFromScene(view->sceneRect()).boundingRect();
    const bool xFree = sceneInView.width() > view->viewport()->width();
    const bool yFree = sceneInView.height() > view->viewport()->height();
    *why = QStringLiteral("item at %1,%2, viewport centre %3,%4").arg(at.x()).arg(at.y()).arg(centre.x()).arg(centre.y());
    return (!xFree || std::abs(at.x() - centre.x()) <= 2) && (!yFree || std::abs(at.y() - centre.y()) <= 2) &&
           view->viewport()->rect().contains(at);
  }

  QPoint viewportPoint(GraphPanel& panel, const QPointF& scenePos) { return panel.view()->mapFromScene(scenePos); }

  /// The scene's op boxes, in ascending stacking order.
  static std::vector<BoxItem*> opBoxes(GraphPanel& panel) {
    std::vector<BoxItem*> ops;
    for (QGraphicsItem* item : panel.scene()->items(Qt::AscendingOrder))
      if (item->type() == BoxItem::Type && static_cast<BoxItem*>(item)->kind() == layout::BoxKind::Op)
        ops.push_back(static_cast<BoxItem*>(item));
    return ops;
  }

 private Q_SLOTS:
  void initTestCase() {
    TORCHIR_REQUIRE_FIXTURES();
    m_program = torchir::test::loadedFixture(QStringLiteral("resnet18"));
    m_panel = std::make_unique<GraphPanel>();
    m_panel->resize(900, 700);
    m_panel->show();
    QVERIFY(QTest::qWaitForWindowExposed(m_panel.get()));
  }

  void cleanupTestCase() { m_panel.reset(); }

  void detailThresholds() {
    QCOMPARE(torchir::ui::detailFor(0.05), Detail::Far);
    QCOMPARE(torchir::ui::detailFor(0.3499), Detail::Far);
    QCOMPARE(torchir::ui::detailFor(0.35), Detail::Middle);
    QCOMPARE(torchir::ui::detailFor(0.5999), Detail::Middle);
    QCOMPARE(torchir::ui::detailFor(0.6), Detail::Near);
    QCOMPARE(torchir::ui::detailFor(1.0), Detail::Near);
    QCOMPARE(torchir::ui::detailFor(4.0), Detail::Near);
  }

  void sceneIsTheEngineLayout() {
    GraphPanel& panel = *m_panel;
    QSignalSpy started(&panel, &GraphPanel::layoutStarted);
    QSignalSpy finished(&panel, &GraphPanel::layoutFinished);
    panel.setProgram(m_program);
    QCOMPARE(started.count(), 1);
    QVERIFY(panel.isLayingOut());
    auto* busy = panel.findChild<QLabel*>(QStringLiteral("layingOutLabel"));
    QVERIFY(busy && busy->isVisible());
    QVERIFY(waitForLayout(panel, finished));
    QVERIFY(!busy->isVisible());
    QCOMPARE(finished.count(), 1);
    QVERIFY(panel.viewGraph());

    // The same fold through an engine of our own, with the panel's text metric.
    layout::LayoutEngine engine(torchir::ui::graphstyle::textMeasure());
    engine.setProgram(m_program->program);
    QCOMPARE(panel.foldState(), layout::FoldState::initial(engine.graph()));
    const auto expected = engine.layout(panel.foldState());
    QVERIFY(expected.has_value());
    QCOMPARE(panel.scene()->boxItemCount(), static_cast<int>(expected->boxes.size()));
    QCOMPARE(finished.at(0).at(0).toInt(), static_cast<int>(expected->boxes.size()));
    int boxItems = 0;
    for (QGraphicsItem* item : panel.scene()->items()) {
      if (item->type() != BoxItem::Type) continue;
      ++boxItems;
      const auto* box = static_cast<BoxItem*>(item);
      const layout::Rect& r = expected->boxes[static_cast<std::size_t>(box->index())].rect;
      QCOMPARE(box->rect(), QRectF(r.x, r.y, r.w, r.h));
    }
    QCOMPARE(boxItems, static_cast<int>(expected->boxes.size()));
    QVERIFY(expected->boxes.size() > 10);
    // The first view reads (boxes show their text) and starts at the program's inputs.
    QVERIFY(torchir::ui::detailFor(panel.view()->zoom()) != Detail::Far);
    const auto input = std::find_if(expected->boxes.begin(), expected->boxes.end(),
                                    [](const layout::Box& b) { return b.kind == layout::BoxKind::Input; });
    QVERIFY(input != expected->boxes.end());
    QVERIFY(panel.view()->viewport()->rect().contains(
        viewportPoint(panel, QPointF(input->rect.x + input->rect.w / 2, input->rect.y + input->rect.h / 2))));
    QVERIFY(panel.view()->sceneRect().contains(QRectF(expected->bounds.x, expected->bounds.y, expected->bounds.w, expected->bounds.h)));
  }

  void rightClickSelectsAndAsksForTheNodeMenu() {
    GraphPanel* panel = m_panel.get();
    panel->view()->setZoom(1.0);
    const std::vector<BoxItem*> ops = opBoxes(*panel);
    QVERIFY(!ops.empty());
    BoxItem* target = ops.back();
    panel->view()->centerOn(target);
    QSignalSpy selected(panel, &GraphPanel::nodeSelected);
    QSignalSpy menu(panel, &GraphPanel::nodeContextMenuRequested);
    const QPoint at = viewportPoint(*panel, target->rect().center());
    QContextMenuEvent event(QContextMenuEvent::Mouse, at, panel->view()->viewport()->mapToGlobal(at));
    QCoreApplication::sendEvent(panel->view()->viewport(), &event);
    QCOMPARE(selected.count(), 1);
    QCOMPARE(menu.count(), 1);
    QCOMPARE(menu.at(0).at(0).value<NodeId>(), static_cast<NodeId>(target->node()));
    QCOMPARE(panel->selectedNode(), static_cast<NodeId>(target->node()));
  }

  // Items carry no tooltips of their own (it makes big scenes slow to build and delete): the
  // view asks the item under the cursor.
  void hoverShowsTheBoxTooltip() {
    GraphPanel* panel = m_panel.get();
    panel->view()->setZoom(1.0);
    const std::vector<BoxItem*> ops = opBoxes(*panel);
    QVERIFY(!ops.empty());
    BoxItem* target = ops.back();
    QVERIFY(target->toolTip().isEmpty());
    panel->view()->centerOn(target);
    const QPoint at = viewportPoint(*panel, target->rect().center());
    QHelpEvent over(QEvent::ToolTip, at, panel->view()->viewport()->mapToGlobal(at));
    QCoreApplication::sendEvent(panel->view()->viewport(), &over);
    QTRY_COMPARE(QToolTip::text(), target->lines().join(QLatin1Char('\n')));
    QVERIFY(QToolTip::text().contains(target->lines().first()));

    // Over empty canvas: none.
    const QPointF empty = panel->scene()->sceneRect().topLeft() + QPointF(2, 2);
    panel->view()->centerOn(empty);
    const QPoint nowhere = viewportPoint(*panel, empty);
    QHelpEvent overNothing(QEvent::ToolTip, nowhere, panel->view()->viewport()->mapToGlobal(nowhere));
    QCoreApplication::sendEvent(panel->view()->viewport(), &overNothing);
    QTRY_VERIFY(QToolTip::text().isEmpty());
  }

  void clickSelectsOpBox() {
    GraphPanel* panel = m_panel.get();
    panel->view()->setZoom(1.0);
    // Some op box in the middle of the drawing, brought into view.
    const std::vector<BoxItem*> ops = opBoxes(*panel);
    QVERIFY(!ops.empty());
    BoxItem* target = ops[ops.size() / 2];
    panel->view()->centerOn(target);

    QSignalSpy selected(panel, &GraphPanel::nodeSelected);
    QTest::mouseClick(panel->view()->viewport(), Qt::LeftButton, {}, viewportPoint(*panel, target->rect().center()));
    QCOMPARE(selected.count(), 1);
    QCOMPARE(selected.at(0).at(0).value<NodeId>(), static_cast<NodeId>(target->node()));
    QCOMPARE(panel->selectedNode(), static_cast<NodeId>(target->node()));
    QVERIFY(panel->scene()->shownSelected(target->node()));

    // A click on empty canvas selects nothing.
    const QPointF empty = panel->scene()->sceneRect().topLeft() + QPointF(2, 2);
    panel->view()->centerOn(empty);
    QTest::mouseClick(panel->view()->viewport(), Qt::LeftButton, {}, viewportPoint(*panel, empty));
    QCOMPARE(selected.count(), 1);
  }

  void wheelZoomsAroundTheCursor() {
    GraphPanel* panel = m_panel.get();
    auto* view = panel->view();
    view->setZoom(0.5);
    const QPoint at(view->viewport()->width() / 3, view->viewport()->height() / 3);
    const QPointF before = view->mapToScene(at);
    auto wheel = [&](int delta) {
      QWheelEvent event(at, view->viewport()->mapToGlobal(at), QPoint(), QPoint(0, delta), Qt::NoButton, Qt::NoModifier,
                        Qt::NoScrollPhase, false);
      QCoreApplication::sendEvent(view->viewport(), &event);
    };
    wheel(120);
    QVERIFY(view->zoom() > 0.5);
    // Where the scene is smaller than the viewport the view aligns it instead: that axis cannot hold.
    const QPoint drift = view->mapFromScene(before) - at;
    const QRect sceneInView = view->mapFromScene(view->sceneRect()).boundingRect();
    if (sceneInView.width() > view->viewport()->width()) QVERIFY2(std::abs(drift.x()) <= 1, qPrintable(QString::number(drift.x())));
    QVERIFY(sceneInView.height() > view->viewport()->height());
    QVERIFY2(std::abs(drift.y()) <= 1, qPrintable(QString::number(drift.y())));
    // Clamped both ways.
    for (int i = 0; i < 40; ++i) wheel(480);
    QCOMPARE(view->zoom(), GraphView::kMaxZoom);
    for (int i = 0; i < 80; ++i) wheel(-480);
    QCOMPARE(view->zoom(), GraphView::kMinZoom);
    view->setZoom(1.0);
    view->zoomIn();
    QCOMPARE(view->zoom(), 1.25);
    view->zoomOut();
    QCOMPARE(view->zoom(), 1.0);
  }

  void selectNodeUnfoldsAndCentres() {
    GraphPanel* panel = m_panel.get();
    QVERIFY(relayout(*panel, [&] { panel->collapseAll(); }));
    const layout::ViewGraph& g = *panel->viewGraph();
    // The second conv of layer3.1: deep inside modules that are all collapsed now.
    NodeId node = torchir::kNone;
    for (const auto& n : m_program->program.nodes)
      if (g.isOpBox(n.id) && !n.moduleFrames().empty() && n.moduleFrames().back().path == "layer3.1.conv2") node = n.id;
    QVERIFY(node != torchir::kNone);
    QVERIFY(!panel->scene()->boxForNode(node));
    QVERIFY(!panel->foldState().expanded(g.drawnIn(node)));

    QSignalSpy selected(panel, &GraphPanel::nodeSelected);
    panel->view()->setZoom(1.0);
    QVERIFY(relayout(*panel, [&] { panel->selectNode(node); }));
    QCOMPARE(panel->selectedNode(), node);
    QCOMPARE(selected.count(), 0);  // only clicks emit it
    for (int level = g.drawnIn(node); level > 0; level = g.parent(level)) QVERIFY(panel->foldState().expanded(level));
    BoxItem* item = panel->scene()->boxForNode(node);
    QVERIFY(item);
    QVERIFY(panel->scene()->shownSelected(node));
    QString why;
    QVERIFY2(isCentred(*panel, item->sceneBoundingRect(), &why), qPrintable(why));

    // Already shown but out of view: selecting it centres it, without a re-layout.
    NodeId other = torchir::kNone;
    for (const auto& n : m_program->program.nodes)
      if (n.id != node && panel->scene()->boxForNode(n.id) && g.drawnIn(n.id) == g.drawnIn(node)) other = n.id;
    QVERIFY(other != torchir::kNone);
    panel->view()->centerOn(panel->scene()->sceneRect().topLeft());
    QSignalSpy started(panel, &GraphPanel::layoutStarted);
    panel->selectNode(other);
    QCOMPARE(started.count(), 0);
    QVERIFY(panel->scene()->shownSelected(other));
    QVERIFY(!panel->scene()->shownSelected(node));
    QVERIFY2(isCentred(*panel, panel->scene()->boxForNode(other)->sceneBoundingRect(), &why), qPrintable(why));

    // In view: selecting it leaves the view where it is (stepping down a chain must not scroll).
    const QRectF visible = panel->view()->mapToScene(panel->view()->viewport()->rect()).boundingRect();
    NodeId inView = torchir::kNone;
    for (const auto& n : m_program->program.nodes)
      if (n.id != other && panel->scene()->boxForNode(n.id) &&
          visible.contains(panel->scene()->boxForNode(n.id)->sceneBoundingRect()))
        inView = n.id;
    QVERIFY(inView != torchir::kNone);
    const int h = panel->view()->horizontalScrollBar()->value(), v = panel->view()->verticalScrollBar()->value();
    panel->selectNode(inView);
    QVERIFY(panel->scene()->shownSelected(inView));
    QCOMPARE(panel->view()->horizontalScrollBar()->value(), h);
    QCOMPARE(panel->view()->verticalScrollBar()->value(), v);
  }

  void doubleClickExpandsAndCollapses() {
    GraphPanel* panel = m_panel.get();
    QVERIFY(relayout(*panel, [&] { panel->collapseAll(); }));
    panel->view()->setZoom(1.0);
    BoxItem* module = nullptr;
    for (QGraphicsItem* item : panel->scene()->items())
      if (item->type() == BoxItem::Type && static_cast<BoxItem*>(item)->kind() == layout::BoxKind::Module)
        module = static_cast<BoxItem*>(item);
    QVERIFY(module);
    const int level = module->module();
    panel->view()->centerOn(module);
    QVERIFY(relayout(*panel, [&] {
      QTest::mouseDClick(panel->view()->viewport(), Qt::LeftButton, {}, viewportPoint(*panel, module->rect().center()));
    }));
    QVERIFY(panel->foldState().expanded(level));
    auto* frame = panel->scene()->itemForModule(level);
    QVERIFY(frame && frame->type() == torchir::ui::FrameItem::Type);
    // The re-layout kept the module in view.
    const QRectF visible = panel->view()->mapToScene(panel->view()->viewport()->rect()).boundingRect();
    const QRectF title = static_cast<torchir::ui::FrameItem*>(frame)->labelRect();
    QVERIFY(visible.intersects(title));

    const QPointF onTitle = title.topLeft() + QPointF(30, title.height() / 2);
    QVERIFY(relayout(*panel, [&] {
      QTest::mouseDClick(panel->view()->viewport(), Qt::LeftButton, {}, viewportPoint(*panel, onTitle));
    }));
    QVERIFY(!panel->foldState().expanded(level));
    auto* box = panel->scene()->itemForModule(level);
    QVERIFY(box && box->type() == BoxItem::Type);
    QString why;
    QVERIFY2(isCentred(*panel, box->sceneBoundingRect(), &why), qPrintable(why));
  }

  void marksRecolourOpBoxes() {
    GraphPanel* panel = m_panel.get();
    std::vector<NodeId> shown;
    for (const auto& n : m_program->program.nodes)
      if (panel->scene()->boxForNode(n.id)) shown.push_back(n.id);
    QVERIFY(shown.size() >= 4);

    ExecutionMarks marks;
    marks.executed.assign(m_program->program.nodes.size(), false);
    marks.executed[static_cast<std::size_t>(shown[0])] = true;
    marks.executed[static_cast<std::size_t>(shown[1])] = true;
    marks.current = shown[2];
    marks.breakpoints = {shown[3]};
    panel->setMarks(marks);
    auto* scene = panel->scene();
    QCOMPARE(scene->shownStatus(shown[0]), NodeStatus::Executed);
    QCOMPARE(scene->shownStatus(shown[1]), NodeStatus::Executed);
    QCOMPARE(scene->shownStatus(shown[2]), NodeStatus::Current);
    QCOMPARE(scene->shownStatus(shown[3]), NodeStatus::NotRun);
    QVERIFY(scene->shownBreakpoint(shown[3]));
    QVERIFY(!scene->shownBreakpoint(shown[2]));

    // The run fails at the current node; the breakpoint goes; the first node is reset.
    marks.failed = shown[2];
    marks.current = torchir::kNone;
    marks.executed[static_cast<std::size_t>(shown[0])] = false;
    marks.breakpoints.clear();
    panel->setMarks(marks);
    QCOMPARE(scene->shownStatus(shown[0]), NodeStatus::NotRun);
    QCOMPARE(scene->shownStatus(shown[1]), NodeStatus::Executed);
    QCOMPARE(scene->shownStatus(shown[2]), NodeStatus::Failed);
    QVERIFY(!scene->shownBreakpoint(shown[3]));

    // Marks survive a re-layout: the new items, in a new scene, are drawn with them.
    QVERIFY(relayout(*panel, [&] { panel->expandAll(); }));
    scene = panel->scene();
    QCOMPARE(scene->shownStatus(shown[1]), NodeStatus::Executed);
    QCOMPARE(scene->shownStatus(shown[2]), NodeStatus::Failed);

    // A current node inside a collapsed module colours that module's box instead.
    QVERIFY(relayout(*panel, [&] { panel->collapseAll(); }));
    scene = panel->scene();
    const layout::ViewGraph& g = *panel->viewGraph();
    const NodeId hidden = *m_program->program.findNode("conv2d_10");
    QVERIFY(!scene->boxForNode(hidden));
    int top = g.drawnIn(hidden);
    while (g.parent(top) > 0) top = g.parent(top);
    QCOMPARE(scene->shownModuleStatus(top), NodeStatus::NotRun);
    marks.failed = torchir::kNone;
    marks.current = hidden;
    panel->setMarks(marks);
    QCOMPARE(scene->shownModuleStatus(top), NodeStatus::Current);
    marks.current = torchir::kNone;
    panel->setMarks(marks);
    QCOMPARE(scene->shownModuleStatus(top), NodeStatus::NotRun);
  }

  void exportsSvgAndPng() {
    GraphPanel* panel = m_panel.get();
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    QString error;

    const QString svgPath = dir.filePath(QStringLiteral("graph.svg"));
    QVERIFY2(panel->exportSvg(svgPath, &error), qPrintable(error));
    QFile svg(svgPath);
    QVERIFY(svg.open(QIODevice::ReadOnly));
    const QByteArray text = svg.readAll();
    QVERIFY(text.contains("<svg"));
    // The title line of some op box, e.g. "conv1: conv2d", is written as text.
    const std::vector<BoxItem*> ops = opBoxes(*panel);
    QVERIFY(!ops.empty());
    const BoxItem* op = ops.back();
    const QString title = op->lines().front().toHtmlEscaped();
    QVERIFY2(text.contains(title.toUtf8()), qPrintable(QStringLiteral("no \"%1\" in the SVG").arg(title)));

    const QString pngPath = dir.filePath(QStringLiteral("graph.png"));
    QVERIFY2(panel->exportPng(pngPath, &error), qPrintable(error));
    const QImage image(pngPath);
    QVERIFY(!image.isNull());
    QVERIFY(std::max(image.width(), image.height()) <= 8000);
    QVERIFY(image.width() > 10 && image.height() > 10);
    bool inked = false;
    for (int y = 0; y < image.height() && !inked; y += 3)
      for (int x = 0; x < image.width() && !inked; x += 3) inked = image.pixel(x, y) != qRgb(255, 255, 255);
    QVERIFY(inked);

    GraphPanel empty;
    QVERIFY(!empty.exportPng(pngPath, &error));
    QVERIFY(!error.isEmpty());
  }

  void clearDropsTheLayoutInFlight() {
    GraphPanel panel;
    QSignalSpy finished(&panel, &GraphPanel::layoutFinished);
    panel.setProgram(m_program);
    panel.clear();
    QVERIFY(!panel.isLayingOut());
    QCOMPARE(panel.scene()->boxItemCount(), 0);
    // The layout thread answers in order: once a later program's layout has arrived, a result of
    // the cleared one would have arrived before it.
    const auto mlp = torchir::test::loadedFixture(QStringLiteral("mlp"));
    panel.setProgram(mlp);
    QVERIFY(finished.wait(60000));
    QCOMPARE(finished.count(), 1);
    QCOMPARE(panel.scene()->boxItemCount(), finished.at(0).at(0).toInt());
  }
};

QTEST_MAIN(TestGraphPanel)
#include "tst_graphpanel.moc"
