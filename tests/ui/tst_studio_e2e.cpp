// The studio end to end in a real window (ctest runs it under Xvfb): keys go through the window's
// shortcuts, the engine runs on its own thread, and the panels are read as a user would read them.
#include <QAbstractItemModel>
#include <QAction>
#include <QApplication>
#include <QComboBox>
#include <QDialog>
#include <QDir>
#include <QFileInfo>
#include <QHeaderView>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QRegularExpression>
#include <QSettings>
#include <QSignalSpy>
#include <QSpinBox>
#include <QStandardPaths>
#include <QStatusBar>
#include <QTabWidget>
#include <QTableView>
#include <QTableWidget>
#include <QTemporaryDir>
#include <QTreeView>
#include <QTreeWidget>
#include <QtTest>
#include <cmath>
#include <cstring>
#include <numeric>

#include "Fixtures.h"
#include "controllers/DeviceRunOverlay.h"
#include "graph/ComparisonLegend.h"
#include "graph/GraphItems.h"
#include "graph/GraphPanel.h"
#include "graph/GraphScene.h"
#include "layout/ViewGraph.h"
#include "panels/FxTableModel.h"
#include "panels/SensitivityChart.h"
#include "panels/TensorPlots.h"
#include "panels/TensorSliceModel.h"
#include "panels/TensorViewer.h"
#include "program/QuantOps.h"
#include "program/TensorValues.h"
#include "formats/Safetensors.h"
#include "session/AppIdentity.h"
#include "session/PythonSettings.h"
#include "session/RunFiles.h"
#include "session/SessionController.h"
#include "windows/CompareMenu.h"
#include "windows/MainWindow.h"
#include "windows/PythonPreferencesDialog.h"

using torchir::ui::MainWindow;
using torchir::ui::RunState;
using torchir::ui::BoxItem;
using torchir::ui::EdgeItem;
using torchir::ui::GraphPanel;

namespace {

// Loading starts libtorch (about a second) and a layout; generous for slow CI machines.
constexpr int kTimeoutMs = 60000;

/// Saves the window for the docs when TORCHIR_SCREENSHOT_DIR names a folder.
void saveScreenshot(QWidget& window, const QString& name) {
  const QString dir = qEnvironmentVariable("TORCHIR_SCREENSHOT_DIR");
  if (dir.isEmpty()) return;
  QDir().mkpath(dir);
  QVERIFY(window.grab().save(QDir(dir).filePath(name)));
}

/// The children of the arguments panel's top-level row titled `section`, as name -> row cells.
QMap<QString, QStringList> sectionRows(const QAbstractItemModel* model, const QString& section) {
  QMap<QString, QStringList> rows;
  for (int top = 0; top < model->rowCount(); ++top) {
    const QModelIndex parent = model->index(top, 0);
    if (!parent.data().toString().startsWith(section)) continue;
    for (int r = 0; r < model->rowCount(parent); ++r) {
      QStringList cells;
      for (int c = 0; c < model->columnCount(parent); ++c) cells << model->index(r, c, parent).data().toString();
      rows.insert(cells.first(), cells);
    }
  }
  return rows;
}

/// Shows the window at the screenshots' size and makes it active: Xvfb has no window manager to
/// activate it, and shortcuts only reach the active window.
void showActive(QWidget& window) {
  window.resize(1500, 900);
  window.show();
  QVERIFY(QTest::qWaitForWindowExposed(&window));
  window.activateWindow();
  QVERIFY(QTest::qWaitForWindowActive(&window));
}

/// Opens `request` in the window and waits until the engine's session for it is ready.
bool openReady(MainWindow& window, const torchir::ui::OpenRequest& request) {
  window.open(request);
  return QTest::qWaitFor([&] { return window.session()->state() == RunState::Ready; }, kTimeoutMs);
}

int columnNamed(const QAbstractItemModel* model, const QString& title) {
  for (int c = 0; c < model->columnCount(); ++c)
    if (model->headerData(c, Qt::Horizontal).toString() == title) return c;
  return -1;
}

/// Selects the node's row and waits for the tensor viewer to show its output with statistics: its
/// first cell and its quantization line (codes, clipping, qparams).
void showOutputOf(MainWindow& window, torchir::NodeId node, QString* firstCell, QString* quantization) {
  auto* table = window.findChild<QTableView*>(QStringLiteral("fxTable"));
  table->selectRow(node);
  const QString name = QString::fromStdString(window.program()->program.node(node).name);
  QTRY_COMPARE_WITH_TIMEOUT(window.tensorViewer()->title(), name, kTimeoutMs);
  QTRY_VERIFY_WITH_TIMEOUT(window.tensorViewer()->statsReady(), kTimeoutMs);
  *firstCell = window.tensorViewer()->sliceModel()->index(0, 0).data().toString();
  *quantization = window.tensorViewer()->findChild<QLabel*>(QStringLiteral("tensorQuantization"))->text();
}

/// The window Step Into Body opened beside `window`, once it shows its body; null if none came.
MainWindow* bodyWindowBeside(const MainWindow& window) {
  MainWindow* body = nullptr;
  (void)QTest::qWaitFor(
      [&] {
        for (QWidget* w : QApplication::topLevelWidgets())
          if (auto* m = qobject_cast<MainWindow*>(w); m && m != &window && m->program()) body = m;
        return body != nullptr;
      },
      kTimeoutMs);
  return body;
}

}  // namespace

class TestStudioEndToEnd : public QObject {
  Q_OBJECT

 private Q_SLOTS:
  void initTestCase() {
    TORCHIR_REQUIRE_FIXTURES();
    torchir::test::isolateSettings();
  }

  void mixedPrecisionRunsToItsFailure() {
    MainWindow window;
    showActive(window);
    if (QTest::currentTestFailed()) return;
    QSignalSpy firstView(&window, &MainWindow::firstViewShown);
    QVERIFY(openReady(window, {torchir::test::fixturePath("mixed_precision", ".pt2"), {}, {},
                 torchir::test::fixturePath("mixed_precision", ".inputs_fp16.safetensors")}));
    QTRY_COMPARE_WITH_TIMEOUT(firstView.count(), 1, kTimeoutMs);

    QTest::keyClick(&window, Qt::Key_F5);  // Continue
    QTRY_COMPARE_WITH_TIMEOUT(window.session()->state(), RunState::Failed, kTimeoutMs);

    auto* nodeLabel = window.findChild<QLabel*>(QStringLiteral("diagnosisNode"));
    auto* classLabel = window.findChild<QLabel*>(QStringLiteral("diagnosisClass"));
    auto* explanation = window.findChild<QLabel*>(QStringLiteral("diagnosisExplanation"));
    QVERIFY(nodeLabel && classLabel && explanation);
    QVERIFY2(nodeLabel->isVisible(), "the diagnosis panel is raised on failure");
    QVERIFY2(nodeLabel->text().contains(QStringLiteral("linear")), qPrintable(nodeLabel->text()));
    QVERIFY2(classLabel->text().contains(QStringLiteral("dtype mismatch"), Qt::CaseInsensitive),
             qPrintable(classLabel->text()));
    QVERIFY2(explanation->text().contains(QStringLiteral("float16")), qPrintable(explanation->text()));
    QVERIFY2(explanation->text().contains(QStringLiteral("float32")), qPrintable(explanation->text()));

    // The failed node is the selected one everywhere: table row and arguments panel.
    const torchir::NodeId failed = window.session()->marks().failed;
    QVERIFY(failed != torchir::kNone);
    QCOMPARE(window.selectedNode(), failed);
    const auto* fx = window.findChild<QTableView*>(QStringLiteral("fxTable"))->model();
    const int statusColumn = columnNamed(fx, QStringLiteral("status"));
    QVERIFY(statusColumn >= 0);
    QCOMPARE(fx->index(failed, statusColumn).data().toString(), QStringLiteral("failed"));
    QCOMPARE(window.findChild<QTableView*>(QStringLiteral("fxTable"))->currentIndex().row(), failed);
    const auto* title = window.findChild<QLabel*>(QStringLiteral("nodeTitle"));
    QVERIFY2(title && title->text().contains(QStringLiteral("linear")), title ? qPrintable(title->text()) : "no title");
    saveScreenshot(window, QStringLiteral("mixed_precision_failure.png"));
  }

  // A runtime assertion the export recorded that does not hold (ExportDB's
  // constrain_as_value_example checks x.item() <= 5; here x is 10): the Diagnosis panel states
  // torch's expression and the value it was made of, with the node that made it.
  void aFailingRuntimeAssertionIsDiagnosed() {
    const QString db = torchir::test::fixturesDir() + QStringLiteral("/exportdb/constrain_as_value_example/constrain_as_value_example");
    if (!QFileInfo::exists(db + QStringLiteral(".pt2"))) QSKIP("this torch's ExportDB lacks it");
    torchir::TensorMap inputs = torchir::readSafetensors((db + QStringLiteral(".inputs.safetensors")).toStdString());
    const torchir::TensorData x = inputs.at("input_0");
    QCOMPARE(x.dtype, torchir::DType::Int64);
    QCOMPARE(x.numel(), int64_t{1});
    auto ten = std::make_shared<std::vector<std::byte>>(sizeof(int64_t));
    const int64_t value = 10;
    std::memcpy(ten->data(), &value, sizeof value);
    auto storage = std::make_shared<torchir::Storage>();
    storage->data = ten->data();
    storage->nbytes = ten->size();
    storage->owner = ten;
    torchir::TensorData replaced = x;
    replaced.storage = storage;
    replaced.storageOffset = 0;
    inputs["input_0"] = replaced;
    QTemporaryDir dir;
    const QString inputsPath = dir.filePath(QStringLiteral("ten.safetensors"));
    torchir::writeSafetensors(inputsPath.toStdString(), inputs);

    MainWindow window;
    showActive(window);
    if (QTest::currentTestFailed()) return;
    QVERIFY(openReady(window, {db + QStringLiteral(".pt2"), {}, {}, inputsPath}));
    QTest::keyClick(&window, Qt::Key_F5);  // Continue
    QTRY_COMPARE_WITH_TIMEOUT(window.session()->state(), RunState::Failed, kTimeoutMs);
    auto* classLabel = window.findChild<QLabel*>(QStringLiteral("diagnosisClass"));
    auto* explanation = window.findChild<QLabel*>(QStringLiteral("diagnosisExplanation"));
    QVERIFY(classLabel && explanation && explanation->isVisible());
    QVERIFY2(classLabel->text().contains(QStringLiteral("range"), Qt::CaseInsensitive), qPrintable(classLabel->text()));
    const QString why = explanation->text();
    QVERIFY2(why.contains(QStringLiteral("u0 &lt;= 5")) || why.contains(QStringLiteral("u0 <= 5")), qPrintable(why));
    QVERIFY2(why.contains(QStringLiteral("item = 10")) && why.contains(QStringLiteral("at node 'item'")), qPrintable(why));
    saveScreenshot(window, QStringLiteral("runtime_assertion.png"));
  }

  // Edit and continue by keys alone: F5 fails at linear (float16 inputs, float32 weights); Ctrl+.
  // applies the diagnosis's cast and runs on to the end, whose output is eager's float32 run of
  // the same inputs, bit for bit; the changed node says so in the table and the graph.
  void mixedPrecisionFixedByTheDiagnosissCast() {
    MainWindow window;
    showActive(window);
    if (QTest::currentTestFailed()) return;
    QVERIFY(openReady(window, {torchir::test::fixturePath("mixed_precision", ".pt2"), {}, {},
                 torchir::test::fixturePath("mixed_precision", ".inputs_fp16.safetensors")}));
    QTest::keyClick(&window, Qt::Key_F5);
    QTRY_COMPARE_WITH_TIMEOUT(window.session()->state(), RunState::Failed, kTimeoutMs);
    auto* fix = window.findChild<QPushButton*>(QStringLiteral("diagnosisFix"));
    QVERIFY(fix);
    QTRY_VERIFY(fix->isVisible());
    QVERIFY2(fix->text().contains(QStringLiteral("input cast to float32")), qPrintable(fix->text()));

    QTest::keyClick(&window, Qt::Key_Period, Qt::ControlModifier);  // Apply the Diagnosis's Fix
    QTRY_COMPARE_WITH_TIMEOUT(window.session()->state(), RunState::Finished, kTimeoutMs);
    const torchir::Program& program = window.program()->program;
    const torchir::NodeId linear = *program.findNode("linear");
    QVERIFY(window.session()->marks().isPatched(linear));
    const auto* fx = window.findChild<QTableView*>(QStringLiteral("fxTable"))->model();
    QCOMPARE(fx->index(linear, columnNamed(fx, QStringLiteral("status"))).data().toString(), QStringLiteral("done, edited"));
    auto* graph = window.findChild<torchir::ui::GraphPanel*>();
    QVERIFY(graph && graph->scene()->boxForNode(linear) && graph->scene()->boxForNode(linear)->patched());
    const auto& input = window.session()->record(linear)->arguments.front();
    QCOMPARE(input.source, torchir::ArgSource::Patched);
    QCOMPARE(input.value.dtype, torchir::DType::Float32);

    QSignalSpy ready(window.session(), &torchir::ui::SessionController::tensorReady);
    const torchir::ValueId out = program.outputs.front().value;
    window.session()->requestTensor(out);
    QVERIFY(ready.wait(kTimeoutMs));
    const auto ours = ready.takeFirst().at(1).value<torchir::TensorData>();
    const torchir::TensorData eager =
        torchir::readSafetensors(torchir::test::fixturePath("mixed_precision", ".outputs_fp16_cast.safetensors").toStdString())
            .at("output_0");
    QCOMPARE(ours.dtype, eager.dtype);
    QCOMPARE(ours.sizes, eager.sizes);
    QVERIFY(ours.contiguousBytes() == eager.contiguousBytes());
    saveScreenshot(window, QStringLiteral("edit_and_continue.png"));
  }

  // Edit Call (Ctrl+E) at the first node of ((x * 1e-3 + 1e4) - 1e4) * 3: the number 1e-3 becomes
  // 1, Try shows what the call gives then, and Apply and Continue runs to the end with it.
  void editCallChangesANumberTriesItAndContinues() {
    MainWindow window;
    showActive(window);
    if (QTest::currentTestFailed()) return;
    QVERIFY(openReady(window, {torchir::test::fixturePath("cancellation", ".pt2"), {}, {}, {}}));
    const torchir::NodeId mul = *window.program()->program.findNode("mul");
    QCOMPARE(window.session()->marks().current, mul);

    QTest::keyClick(&window, Qt::Key_E, Qt::ControlModifier);
    QDialog* dialog = nullptr;
    QTRY_VERIFY((dialog = window.findChild<QDialog*>(QStringLiteral("editCallDialog"))) && dialog->isVisible());
    auto* arguments = dialog->findChild<QTableWidget*>(QStringLiteral("editCallArguments"));
    QTRY_COMPARE_WITH_TIMEOUT(arguments->rowCount(), 2, kTimeoutMs);  // self, other
    int other = -1;
    for (int r = 0; r < arguments->rowCount(); ++r)
      if (arguments->item(r, 0)->text() == QStringLiteral("other")) other = r;
    QVERIFY(other >= 0);
    auto* with = qobject_cast<QLineEdit*>(arguments->cellWidget(other, 4));
    QVERIFY(with);
    with->setText(QStringLiteral("1"));

    auto* result = dialog->findChild<QLabel*>(QStringLiteral("editCallResult"));
    QTest::mouseClick(dialog->findChild<QPushButton*>(QStringLiteral("editCallTry")), Qt::LeftButton);
    QTRY_VERIFY_WITH_TIMEOUT(result->text().contains(QStringLiteral("With the changes, it gives float32[4, 8]")),
                             kTimeoutMs);
    QCOMPARE(window.session()->marks().current, mul);  // tried, not run

    QTest::mouseClick(dialog->findChild<QPushButton*>(QStringLiteral("editCallApply")), Qt::LeftButton);
    QTRY_COMPARE_WITH_TIMEOUT(window.session()->state(), RunState::Finished, kTimeoutMs);
    QVERIFY(window.session()->marks().isPatched(mul));
    const auto& arg = window.session()->record(mul)->arguments.at(1);
    QCOMPARE(QString::fromStdString(arg.name), QStringLiteral("other"));
    QCOMPARE(arg.source, torchir::ArgSource::Patched);
    QVERIFY2(arg.sourceDetail.rfind("= 1", 0) == 0, arg.sourceDetail.c_str());
  }

  // A meta export: the Problems panel lists each weight without data before anything runs, and
  // a click on a row selects that weight's placeholder.
  void problemsAreListedBeforeARun() {
    MainWindow window;
    showActive(window);
    if (QTest::currentTestFailed()) return;
    QVERIFY(openReady(window, {torchir::test::fixturePath("meta_mlp", ".pt2"), {}, {}, {}}));
    auto* list = window.findChild<QTreeWidget*>(QStringLiteral("problemsList"));
    QVERIFY(list);
    QTRY_COMPARE_WITH_TIMEOUT(list->topLevelItemCount(), 4, kTimeoutMs);
    QVERIFY2(list->isVisible(), "the Problems dock is raised when something would stop a run");
    for (const auto& n : window.program()->program.nodes)  // found without running an op
      QVERIFY(!torchir::isOpNode(n) || !window.session()->marks().executed[static_cast<std::size_t>(n.id)]);
    QStringList nodes;
    for (int i = 0; i < list->topLevelItemCount(); ++i) {
      QCOMPARE(list->topLevelItem(i)->text(0), QStringLiteral("error"));
      nodes << list->topLevelItem(i)->text(1);
    }
    QCOMPARE(nodes, QStringList({"p_fc1_bias", "p_fc1_weight", "p_fc2_bias", "p_fc2_weight"}));
    QVERIFY(list->topLevelItem(1)->text(3).contains(QStringLiteral("'fc1.weight' has no data")));

    const QRect row = list->visualItemRect(list->topLevelItem(1));
    QTest::mouseClick(list->viewport(), Qt::LeftButton, {}, row.center());
    const auto placeholder = window.program()->program.findNode("p_fc1_weight");
    QVERIFY(placeholder);
    QCOMPARE(window.selectedNode(), *placeholder);
    QCOMPARE(window.findChild<QTableView*>(QStringLiteral("fxTable"))->currentIndex().row(), *placeholder);

    // a program that would run lists nothing
    QVERIFY(openReady(window, {torchir::test::fixturePath("mlp", ".pt2"), {}, {}, {}}));
    QTRY_COMPARE_WITH_TIMEOUT(list->topLevelItemCount(), 0, kTimeoutMs);
    QVERIFY(window.findChild<QLabel*>(QStringLiteral("problemsEmpty")));
  }

  // Compare › With float64 on a program whose answer is known: (x + 1e4) - 1e4 loses x's digits
  // at the sub. The table grows metric columns, the sub's row is tinted and selected, and sorting
  // by max rel puts the diverging nodes first.
  void comparisonWithFloat64FindsTheCancellation() {
    MainWindow window;
    showActive(window);
    if (QTest::currentTestFailed()) return;
    QSignalSpy firstView(&window, &MainWindow::firstViewShown);
    QVERIFY(openReady(window, {torchir::test::fixturePath("cancellation", ".pt2"), {}, {},
                 torchir::test::fixturePath("cancellation", ".inputs.safetensors")}));
    QTRY_COMPARE_WITH_TIMEOUT(firstView.count(), 1, kTimeoutMs);

    auto* compare = window.findChild<QAction*>(QStringLiteral("actionCompareFloat64"));
    QVERIFY(compare && compare->isEnabled());
    QSignalSpy compared(window.session(), &torchir::ui::SessionController::comparisonChanged);
    compare->trigger();
    QTRY_VERIFY_WITH_TIMEOUT(window.session()->comparison() != nullptr, kTimeoutMs);
    QCOMPARE(window.session()->state(), RunState::Finished);

    auto* view = window.findChild<QTableView*>(QStringLiteral("fxTable"));
    const auto* fx = view->model();
    const int maxRel = columnNamed(fx, QStringLiteral("max rel"));
    const int own = columnNamed(fx, QStringLiteral("own rel"));
    QVERIFY(maxRel >= 0 && own >= 0);
    QVERIFY2(!view->isColumnHidden(maxRel), "the metric columns show with a comparison");
    const torchir::Program& program = window.program()->program;
    const torchir::NodeId sub = *program.findNode("sub");
    const torchir::NodeId add = *program.findNode("add");
    QVERIFY(fx->index(sub, maxRel).data().toString().toDouble() > 1e-2);
    QVERIFY(fx->index(add, maxRel).data().toString().toDouble() < 1e-6);
    QVERIFY(fx->index(sub, maxRel).data(Qt::BackgroundRole).isValid());   // diverges: tinted
    QVERIFY(!fx->index(add, maxRel).data(Qt::BackgroundRole).isValid());  // agrees: plain
    QVERIFY(fx->index(sub, maxRel).data(Qt::ToolTipRole).toString().contains(QStringLiteral("starts here")));
    QCOMPARE(window.selectedNode(), sub);
    QVERIFY(window.findChild<QAction*>(QStringLiteral("actionSaveComparison"))->isEnabled());

    // The graph: coloured by max rel (the sub diverges, the add agrees), with its legend; by own
    // error the sub is clean (the add's rounding, not the sub, lost the digits).
    // the scene of the latest layout: each layout has its own
    auto scene = [&] { return window.graphPanel()->scene(); };
    auto* legend = window.findChild<torchir::ui::ComparisonLegend*>(QStringLiteral("comparisonLegend"));
    QVERIFY(legend && legend->isVisible());
    QCOMPARE(scene()->shownTint(sub), torchir::ui::severityColor(3));
    QCOMPARE(scene()->shownTint(add), torchir::ui::severityColor(0));
    auto* metric = legend->findChild<QComboBox*>(QStringLiteral("comparisonMetric"));
    metric->setCurrentIndex(metric->findText(QStringLiteral("own rel")));
    QCOMPARE(scene()->shownTint(sub), torchir::ui::severityColor(0));
    metric->setCurrentIndex(metric->findText(QStringLiteral("max rel")));

    // The tensor viewer: the selected sub as this run minus the reference, whose extremes are
    // the comparison's max abs.
    auto* viewer = window.tensorViewer();
    QTRY_COMPARE_WITH_TIMEOUT(viewer->comparedSide(), int(torchir::ui::TensorViewer::Difference), kTimeoutMs);
    QTRY_VERIFY_WITH_TIMEOUT(viewer->statsReady(), kTimeoutMs);
    QCOMPARE(viewer->sliceModel()->tensor().dtype, torchir::DType::Float64);
    const auto* subComparison = window.session()->comparison()->of(sub);
    QCOMPARE(std::max(std::abs(viewer->stats().min), std::abs(viewer->stats().max)), subComparison->metrics.maxAbs);
    auto* side = viewer->findChild<QComboBox*>(QStringLiteral("tensorSide"));
    QVERIFY(side && side->isVisible());

    const int maxRelWidth = view->columnWidth(maxRel);
    const int maxRelPlace = view->horizontalHeader()->visualIndex(maxRel);
    window.findChild<QAction*>(QStringLiteral("actionWorstNodesFirst"))->trigger();
    const auto* sorted = view->model();  // sorting puts a proxy model between the table and its rows
    // ... and the columns stay as they were: shown, placed and sized
    QVERIFY(!view->isColumnHidden(maxRel));
    QCOMPARE(view->columnWidth(maxRel), maxRelWidth);
    QCOMPARE(view->horizontalHeader()->visualIndex(maxRel), maxRelPlace);
    QVERIFY(view->isColumnHidden(columnNamed(fx, QStringLiteral("in float (+dB)"))));
    const QStringList worst{sorted->index(0, columnNamed(sorted, QStringLiteral("name"))).data().toString(),
                            sorted->index(1, columnNamed(sorted, QStringLiteral("name"))).data().toString()};
    QVERIFY2(worst.contains(QStringLiteral("sub")) && worst.contains(QStringLiteral("mul_1")), qPrintable(worst.join(", ")));
    viewer->findChild<QTabWidget*>(QStringLiteral("tensorTabs"))->setCurrentIndex(1);  // the difference's heatmap
    saveScreenshot(window, QStringLiteral("compare_float64.png"));
    view->sortByColumn(-1, Qt::AscendingOrder);
    QCOMPARE(view->model(), fx);  // graph order again: the table shows its rows without a proxy
    QVERIFY(!view->isColumnHidden(maxRel));
    QCOMPARE(view->columnWidth(maxRel), maxRelWidth);

    // A reset starts the run anew: the comparison no longer describes it.
    window.session()->reset();
    QTRY_COMPARE_WITH_TIMEOUT(window.session()->state(), RunState::Ready, kTimeoutMs);
    QVERIFY(!window.session()->comparison());
    QVERIFY(view->isColumnHidden(maxRel));

    // A tolerance of the user's: at 0.5 the sub's 0.24 no longer diverges.
    auto* menu = window.findChild<torchir::ui::CompareMenu*>(QStringLiteral("compareMenu"));
    QVERIFY(menu);
    menu->setTolerance(0.5);
    compare->trigger();
    QTRY_VERIFY_WITH_TIMEOUT(window.session()->comparison() != nullptr, kTimeoutMs);
    QCOMPARE(window.session()->comparison()->of(sub)->tolerance, 0.5);
    for (const auto& c : window.session()->comparison()->nodes) QVERIFY(!c.diverges);
  }

  // The comparison's stops: at the first NaN (its backward slice marked in table and graph), and
  // at each divergence, each time going on with Continue Comparison.
  void comparisonStopsWhereAsked() {
    MainWindow window;
    showActive(window);
    if (QTest::currentTestFailed()) return;
    QVERIFY(openReady(window, {torchir::test::fixturePath("nan_from_sqrt", ".pt2"), {}, {},
                 torchir::test::fixturePath("nan_from_sqrt", ".inputs.safetensors")}));
    QTRY_VERIFY_WITH_TIMEOUT(window.hasFirstView(), kTimeoutMs);
    window.findChild<QAction*>(QStringLiteral("actionCompareStopAtNonfinite"))->trigger();
    window.findChild<QAction*>(QStringLiteral("actionCompareFloat64"))->trigger();
    QTRY_COMPARE_WITH_TIMEOUT(window.session()->state(), RunState::Paused, kTimeoutMs);
    QVERIFY(window.session()->comparison());
    QCOMPARE(window.session()->diagnosis().kind, torchir::DiagnosisClass::NanOrInf);
    const torchir::Program& program = window.program()->program;
    const torchir::NodeId sqrt = *program.findNode("sqrt");
    QCOMPARE(window.session()->diagnosis().node, sqrt);
    QCOMPARE(window.selectedNode(), sqrt);
    const auto* fx = window.findChild<QTableView*>(QStringLiteral("fxTable"))->model();
    const int name = columnNamed(fx, QStringLiteral("name"));
    for (const char* n : {"mul", "sub", "sqrt"}) {
      QVERIFY2(fx->index(*program.findNode(n), name).data(Qt::ForegroundRole).isValid(), n);
      QVERIFY2(window.graphPanel()->scene()->boxForNode(*program.findNode(n))->inSlice(), n);
    }
    QVERIFY(!window.graphPanel()->scene()->boxForNode(*program.findNode("add"))->inSlice());
    saveScreenshot(window, QStringLiteral("compare_first_nan.png"));
    QAction* next = window.findChild<QAction*>(QStringLiteral("actionContinueComparison"));
    QVERIFY(next->isEnabled());
    next->trigger();
    QTRY_COMPARE_WITH_TIMEOUT(window.session()->state(), RunState::Finished, kTimeoutMs);
    QCOMPARE(window.session()->comparison()->nodes.size(), std::size_t{4});  // all compared: add too

    QVERIFY(openReady(window, {torchir::test::fixturePath("cancellation", ".pt2"), {}, {},
                 torchir::test::fixturePath("cancellation", ".inputs.safetensors")}));
    window.findChild<QAction*>(QStringLiteral("actionCompareStopAtDivergence"))->trigger();
    window.findChild<QAction*>(QStringLiteral("actionCompareFloat64"))->trigger();
    QTRY_COMPARE_WITH_TIMEOUT(window.session()->state(), RunState::Paused, kTimeoutMs);
    QCOMPARE(window.session()->diagnosis().kind, torchir::DiagnosisClass::Divergence);
    QCOMPARE(window.session()->diagnosis().nodeName, std::string("sub"));
    next->trigger();  // no divergence starts after it: the run ends
    QTRY_COMPARE_WITH_TIMEOUT(window.session()->state(), RunState::Finished, kTimeoutMs);
  }

  // float16 weights for the float32 mlp: the window says which weights differ, the run fails at
  // the op that mixes dtypes, the warning's link casts them, the run ends, and comparing it with
  // the exported weights' run (the same file) shows what float16 weights cost.
  void halfWeightsCastFromTheWarningThenCompared() {
    MainWindow window;
    showActive(window);
    if (QTest::currentTestFailed()) return;
    const QString mlp = torchir::test::fixturePath("mlp", ".pt2");
    QVERIFY(openReady(window, {mlp, torchir::test::fixturePath("mlp", ".half_weights.safetensors"), {},
                 torchir::test::fixturePath("mlp", ".inputs.safetensors")}));
    auto* banner = window.findChild<QLabel*>(QStringLiteral("loadErrorLabel"));
    QVERIFY(banner && banner->isVisible());
    QVERIFY2(banner->text().contains(QStringLiteral("4 weights have another dtype than the export")), qPrintable(banner->text()));
    window.session()->continueRun();
    QTRY_COMPARE_WITH_TIMEOUT(window.session()->state(), RunState::Failed, kTimeoutMs);
    QCOMPARE(window.session()->diagnosis().kind, torchir::DiagnosisClass::DtypeMismatch);
    QVERIFY(window.session()->diagnosis().explanation.find("--cast-weights") != std::string::npos);

    Q_EMIT banner->linkActivated(QStringLiteral("cast"));
    QTRY_VERIFY_WITH_TIMEOUT(window.program() && window.program()->request.castWeights, kTimeoutMs);
    QTRY_COMPARE_WITH_TIMEOUT(window.session()->state(), RunState::Ready, kTimeoutMs);
    window.session()->continueRun();
    QTRY_COMPARE_WITH_TIMEOUT(window.session()->state(), RunState::Finished, kTimeoutMs);

    window.session()->compareWith({torchir::ui::CompareRequest::File, torchir::DType::Float64, mlp});
    QTRY_VERIFY_WITH_TIMEOUT(window.session()->comparison() != nullptr, kTimeoutMs);
    const auto comparison = window.session()->comparison();
    QCOMPARE(comparison->nodes.size(), std::size_t{3});
    for (const auto& c : comparison->nodes) QVERIFY(c.metrics.maxRel > 0 && c.metrics.maxRel < 1e-2);
  }

  // A collapsed module takes the colour of its worst child: resnet18 against its float16 shadow.
  void collapsedModuleTakesItsWorstChildsColour() {
    MainWindow window;
    showActive(window);
    if (QTest::currentTestFailed()) return;
    window.openFile(torchir::test::fixturePath("resnet18", ".pt2"));
    QTRY_COMPARE_WITH_TIMEOUT(window.session()->state(), RunState::Ready, kTimeoutMs);
    QTRY_VERIFY_WITH_TIMEOUT(window.hasFirstView(), kTimeoutMs);
    window.session()->compareWith({torchir::ui::CompareRequest::Dtype, torchir::DType::Float16, {}});
    QTRY_VERIFY_WITH_TIMEOUT(window.session()->comparison() != nullptr, kTimeoutMs);
    const auto comparison = window.session()->comparison();
    const torchir::Program& program = window.program()->program;
    int layer1 = -1;
    for (std::size_t m = 0; m < program.modules.size(); ++m)
      if (program.modules[m].path == "layer1") layer1 = static_cast<int>(m);
    QVERIFY(layer1 > 0);
    int worst = -1;
    const auto* graph = window.graphPanel()->viewGraph();
    for (const auto& c : comparison->nodes) {
      bool inside = false;
      for (int level = graph->drawnIn(c.a); level > 0 && !inside; level = graph->parent(level)) inside = level == layer1;
      if (inside) worst = std::max(worst, torchir::ui::comparisonSeverity(c, torchir::ui::ComparisonMetric::MaxRel));
    }
    QVERIFY(worst >= 1);  // float16 is far from float32 somewhere in the block
    QSignalSpy laidOut(window.graphPanel(), &torchir::ui::GraphPanel::layoutFinished);
    window.graphPanel()->setModuleExpanded(layer1, false);
    QTRY_VERIFY_WITH_TIMEOUT(laidOut.count() >= 1 && !window.graphPanel()->isLayingOut(), kTimeoutMs);
    QCOMPARE(window.graphPanel()->scene()->shownModuleTint(layer1), torchir::ui::severityColor(worst));
    saveScreenshot(window, QStringLiteral("compare_float16_resnet18.png"));
  }

  // Shift+F10 goes back one node: relu_ is the next node again, its record gone, the two before
  // it still run; F10 then runs it again to the same output.
  // Bookmarks with keys, a capture reopened through the window as it was (the table's marks, the
  // note), continued to the end, a damaged capture refused in one line with the program kept, and
  // a repro of a module exported from the studio.
  void bookmarksCaptureAndReproFromTheStudio() {
    MainWindow window;
    showActive(window);
    if (QTest::currentTestFailed()) return;
    QTemporaryDir dir;
    QVERIFY(openReady(window, {torchir::test::fixturePath("residual", ".pt2"), {}, {}, {}}));
    for (int i = 0; i < 4; ++i) {
      QTest::keyClick(&window, Qt::Key_F10);
      QTRY_COMPARE_WITH_TIMEOUT(window.session()->state(), RunState::Paused, kTimeoutMs);
    }
    const torchir::Program& program = window.program()->program;
    auto* table = window.findChild<QTableView*>(QStringLiteral("fxTable"));
    const auto* fx = table->model();
    const int status = columnNamed(fx, QStringLiteral("status"));
    const torchir::NodeId first = *program.findNode("conv2d"), second = *program.findNode("relu");
    table->setCurrentIndex(fx->index(first, 1));
    QTest::keyClick(&window, Qt::Key_B, Qt::ControlModifier);
    table->setCurrentIndex(fx->index(second, 1));
    QTest::keyClick(&window, Qt::Key_B, Qt::ControlModifier);
    QCOMPARE(fx->index(first, status).data().toString(), QStringLiteral("done, bookmark 1"));
    QCOMPARE(fx->index(second, status).data().toString(), QStringLiteral("done, bookmark 2"));
    QTest::keyClick(&window, Qt::Key_1, Qt::ControlModifier);
    QCOMPARE(window.selectedNode(), first);
    QTest::keyClick(&window, Qt::Key_2, Qt::ControlModifier);
    QCOMPARE(window.selectedNode(), second);
    window.session()->annotations().setNote(first, QStringLiteral("the first conv"));

    std::optional<QString> saved;
    const QString capture = dir.filePath(QStringLiteral("residual.capture"));
    torchir::ui::saveCapture(*window.session(), capture, false, &window, [&](const QString& problem) { saved = problem; });
    QTRY_VERIFY_WITH_TIMEOUT(saved.has_value(), kTimeoutMs);
    QCOMPARE(*saved, QString());
    const torchir::NodeId next = window.session()->marks().current;
    QStringList before;
    for (int r = 0; r < fx->rowCount(); ++r) before << fx->index(r, status).data().toString();

    window.openFile(capture);
    QTRY_VERIFY_WITH_TIMEOUT(window.session()->program() && window.session()->program()->capture &&
                                 window.session()->state() == RunState::Paused,
                             kTimeoutMs);
    fx = table->model();
    QStringList after;
    for (int r = 0; r < fx->rowCount(); ++r) after << fx->index(r, status).data().toString();
    QCOMPARE(after, before);  // done, bookmark 1, note, the next node: as it was
    QCOMPARE(fx->index(first, status).data().toString(), QStringLiteral("done, bookmark 1, note"));
    QCOMPARE(window.session()->marks().current, next);
    QTest::keyClick(&window, Qt::Key_F5);
    QTRY_COMPARE_WITH_TIMEOUT(window.session()->state(), RunState::Finished, kTimeoutMs);

    // damaged: one line, and the program on screen stays
    const QString damaged = dir.filePath(QStringLiteral("damaged.capture"));
    QFile in(capture), out(damaged);
    QVERIFY(in.open(QIODevice::ReadOnly) && out.open(QIODevice::WriteOnly));
    out.write(in.readAll().left(100));
    out.close();
    QSignalSpy failed(&window, &MainWindow::loadFailed);
    const QString shownBefore = window.currentPath();
    window.openFile(damaged);
    QVERIFY(failed.wait(kTimeoutMs));
    const QString problem = failed.first().at(1).toString();
    QVERIFY2(!problem.isEmpty() && !problem.contains(QLatin1Char('\n')), qPrintable(problem));
    QVERIFY(window.findChild<QLabel*>(QStringLiteral("loadErrorLabel"))->isVisible());
    QCOMPARE(window.currentPath(), shownBefore);

    // a repro of a module, from the studio
    struct Exported {
      QStringList files;
      QString problem;
    };
    std::optional<Exported> exported;
    const auto exportRepro = [&](const torchir::ReproPart& part, const QString& path) {
      exported.reset();
      torchir::ui::exportRepro(*window.session(), part, path, &window,
                               [&](const QString&, const QStringList& files, const QString& problem) {
                                 exported = Exported{files, problem};
                               });
      return QTest::qWaitFor([&] { return exported.has_value(); }, kTimeoutMs);
    };
    const QString repro = dir.filePath(QStringLiteral("block1.pt2"));
    QVERIFY(exportRepro({torchir::ReproPart::Module, "block1"}, repro));
    QCOMPARE(exported->problem, QString());
    QCOMPARE(exported->files.size(), 3);
    QVERIFY(QFileInfo::exists(repro) && QFileInfo::exists(dir.filePath(QStringLiteral("block1.py"))));
    QCOMPARE(window.session()->state(), RunState::Finished);  // the run is as it was

    // a node's repro holds the output the studio shows for it, bit for bit
    const QString nodeRepro = dir.filePath(QStringLiteral("relu_1.pt2"));
    QVERIFY(exportRepro({torchir::ReproPart::Node, "relu_1"}, nodeRepro));
    QCOMPARE(exported->problem, QString());
    QSignalSpy shown(window.session(), &torchir::ui::SessionController::tensorReady);
    const torchir::Program& shownProgram = window.program()->program;  // the capture's load of it
    window.session()->requestTensor(shownProgram.node(*shownProgram.findNode("relu_1")).outputs.front());
    QVERIFY(shown.wait(kTimeoutMs));
    const auto studio = shown.first().at(1).value<torchir::TensorData>();
    const auto written = torchir::readSafetensors(dir.filePath(QStringLiteral("relu_1.outputs.safetensors")).toStdString());
    QVERIFY(written.count("output_0"));
    QVERIFY(written.at("output_0").contiguousBytes() == studio.contiguousBytes());
  }

  // A map's body in a window of its own: F11 on the map node runs to it and opens the body on its
  // first row; another iteration runs the body on that row; a breakpoint inside stops each
  // iteration that Continue Through Iterations reaches; the Arguments panel names the call.
  void stepIntoAMapsBody() {
    MainWindow window;
    showActive(window);
    if (QTest::currentTestFailed()) return;
    const QString program = torchir::test::fixturesDir() + QStringLiteral("/reach/map_rows/map_rows");
    torchir::ui::OpenRequest request;
    request.path = program + QStringLiteral(".pt2");
    request.inputsPath = program + QStringLiteral(".inputs.safetensors");
    QVERIFY(openReady(window, request));
    const torchir::Program& p = window.program()->program;
    torchir::NodeId map = torchir::kNone;
    for (const torchir::Node& n : p.nodes)
      if (n.target.find("map_impl") != std::string::npos) map = n.id;
    QVERIFY(map != torchir::kNone);
    window.findChild<QTableView*>(QStringLiteral("fxTable"))->selectRow(map);
    QTRY_COMPARE_WITH_TIMEOUT(window.selectedNode(), map, kTimeoutMs);
    auto* stepInto = window.findChild<QAction*>(QStringLiteral("actionStepIntoBody"));
    QVERIFY(stepInto);
    QTRY_VERIFY_WITH_TIMEOUT(stepInto->isEnabled(), kTimeoutMs);
    QTest::keyClick(&window, Qt::Key_F11);

    MainWindow* body = bodyWindowBeside(window);
    QVERIFY2(body, qPrintable(window.statusBar()->currentMessage()));
    // the run went to the map and stays before it (its last report may come just after the body)
    QTRY_COMPARE_WITH_TIMEOUT(window.session()->marks().current, map, kTimeoutMs);
    QTRY_COMPARE_WITH_TIMEOUT(body->session()->state(), RunState::Ready, kTimeoutMs);
    QVERIFY(body->windowTitle().startsWith(QStringLiteral("body_graph_0 of map_impl")));
    auto* iteration = body->findChild<QSpinBox*>(QStringLiteral("bodyIteration"));
    QVERIFY(iteration && iteration->isVisible());
    QCOMPARE(iteration->maximum(), 3);  // four rows
    body->resize(1500, 900);
    body->activateWindow();
    QVERIFY(QTest::qWaitForWindowActive(body));

    iteration->setValue(2);
    QTRY_COMPARE_WITH_TIMEOUT(body->session()->state(), RunState::Ready, kTimeoutMs);
    QCOMPARE(body->session()->call(), std::size_t(2));
    const torchir::Program& b = body->program()->program;
    torchir::NodeId relu = torchir::kNone;
    for (const torchir::Node& n : b.nodes)
      if (n.target.find("relu") != std::string::npos) relu = n.id;
    QVERIFY(relu != torchir::kNone);
    // a breakpoint on the body's relu stops each iteration there
    body->findChild<QTableView*>(QStringLiteral("fxTable"))->selectRow(relu);
    QTRY_COMPARE_WITH_TIMEOUT(body->selectedNode(), relu, kTimeoutMs);
    QTest::keyClick(body, Qt::Key_F9);
    QTRY_VERIFY_WITH_TIMEOUT(body->session()->marks().breakpoints.count(relu), kTimeoutMs);
    QTest::keyClick(body, Qt::Key_F10);  // the matmul on row 2
    QTRY_COMPARE_WITH_TIMEOUT(body->session()->state(), RunState::Paused, kTimeoutMs);
    QCOMPARE(body->session()->marks().current, relu);
    auto* through = body->findChild<QAction*>(QStringLiteral("actionContinueThroughIterations"));
    QVERIFY(through);
    through->trigger();  // the rest of row 2, then row 3 up to its relu
    QTRY_COMPARE_WITH_TIMEOUT(body->session()->call(), std::size_t(3), kTimeoutMs);
    QTRY_COMPARE_WITH_TIMEOUT(body->session()->state(), RunState::Paused, kTimeoutMs);
    QCOMPARE(body->session()->marks().current, relu);
    QCOMPARE(iteration->value(), 3);

    // the node before the breakpoint ran on row 3: the Arguments panel says which call it is
    const torchir::NodeId matmul = body->session()->lastWorkBefore(relu);
    QVERIFY(matmul != torchir::kNone);
    body->findChild<QTableView*>(QStringLiteral("fxTable"))->selectRow(matmul);
    QTRY_COMPARE_WITH_TIMEOUT(body->selectedNode(), matmul, kTimeoutMs);
    const auto* arguments = body->findChild<QTreeView*>(QStringLiteral("argumentsView"))->model();
    QMap<QString, QStringList> call;
    QTRY_VERIFY_WITH_TIMEOUT(!(call = sectionRows(arguments, QStringLiteral("Body Call"))).isEmpty(), kTimeoutMs);
    QCOMPARE(call.value(QStringLiteral("iteration")).value(3), QStringLiteral("3"));
    QCOMPARE(call.size(), 3);  // the iteration, the row, w
    for (const QStringList& row : call)
      if (row.first() != QStringLiteral("iteration")) QCOMPARE(row.value(2), QStringLiteral("given by map_impl"));
    // its output is row 3 of xs times w, as the map's fourth row is
    const torchir::TensorMap inputs = torchir::readSafetensors((program + QStringLiteral(".inputs.safetensors")).toStdString());
    const torchir::TensorData& xs = inputs.at("input_0");
    const torchir::TensorData& w = inputs.at("input_1");
    double expected = 0;
    for (int k = 0; k < 3; ++k) expected += torchir::elementAsDouble(xs, 3 * 3 + k) * torchir::elementAsDouble(w, k * 2);
    QTRY_COMPARE_WITH_TIMEOUT(body->tensorViewer()->title(), QStringLiteral("matmul"), kTimeoutMs);
    QTRY_VERIFY_WITH_TIMEOUT(body->tensorViewer()->statsReady(), kTimeoutMs);
    QVERIFY(std::abs(body->tensorViewer()->sliceModel()->index(0, 0).data().toString().toDouble() - expected) < 1e-4);
    // the body is drawn as any program is
    QTRY_VERIFY_WITH_TIMEOUT(body->hasFirstView(), kTimeoutMs);
    QVERIFY(body->graphPanel()->scene()->boxForNode(matmul));
    QVERIFY(body->graphPanel()->scene()->boxForNode(relu));
    saveScreenshot(*body, QStringLiteral("step_into_map_body.png"));
    body->close();
  }

  // The branch a cond took, stepped into before the cond runs: the run goes up to the cond and
  // stays before it; the branch's window compares it with float64 as any program.
  void stepIntoTheBranchACondTookAndCompareIt() {
    MainWindow window;
    showActive(window);
    if (QTest::currentTestFailed()) return;
    QVERIFY(openReady(window, {torchir::test::fixturePath("cond_branch", ".pt2"), {}, {},
                               torchir::test::fixturePath("cond_branch", ".inputs.safetensors")}));
    const torchir::NodeId cond = *window.program()->program.findNode("cond");
    QVERIFY(window.session()->marks().current < cond);
    window.findChild<QTableView*>(QStringLiteral("fxTable"))->selectRow(cond);
    QTRY_COMPARE_WITH_TIMEOUT(window.selectedNode(), cond, kTimeoutMs);
    auto* stepInto = window.findChild<QAction*>(QStringLiteral("actionStepIntoBody"));
    QTRY_VERIFY_WITH_TIMEOUT(stepInto->isEnabled(), kTimeoutMs);
    stepInto->trigger();
    MainWindow* body = bodyWindowBeside(window);
    QVERIFY2(body, qPrintable(window.statusBar()->currentMessage()));
    // up to the cond, not past it (its last report may come just after the body)
    QTRY_COMPARE_WITH_TIMEOUT(window.session()->marks().current, cond, kTimeoutMs);
    QVERIFY(!window.session()->record(cond));
    QVERIFY(body->windowTitle().startsWith(QStringLiteral("false_graph_0 of cond")));  // the sample's sum is negative
    QTRY_COMPARE_WITH_TIMEOUT(body->session()->state(), RunState::Ready, kTimeoutMs);
    QCOMPARE(body->findChild<QSpinBox*>(QStringLiteral("bodyIteration"))->maximum(), 0);  // one call

    auto* compare = body->findChild<QAction*>(QStringLiteral("actionCompareFloat64"));
    QVERIFY(compare && compare->isEnabled());
    compare->trigger();
    QTRY_VERIFY_WITH_TIMEOUT(body->session()->comparison() != nullptr, kTimeoutMs);
    QCOMPARE(body->session()->state(), RunState::Finished);
    const auto* fx = body->findChild<QTableView*>(QStringLiteral("fxTable"))->model();
    const torchir::NodeId sub = *body->program()->program.findNode("sub");
    const int maxRel = columnNamed(fx, QStringLiteral("max rel"));
    QVERIFY(maxRel >= 0);
    bool measured = false;
    fx->index(sub, maxRel).data().toString().toDouble(&measured);
    QVERIFY2(measured, qPrintable(fx->index(sub, maxRel).data().toString()));
    body->close();
  }

  void stepBackWithShiftF10() {
    MainWindow window;
    showActive(window);
    if (QTest::currentTestFailed()) return;
    window.openFile(torchir::test::fixturePath("resnet18", ".pt2"));
    QTRY_COMPARE_WITH_TIMEOUT(window.session()->state(), RunState::Ready, kTimeoutMs);
    for (int i = 0; i < 3; ++i) {
      QTest::keyClick(&window, Qt::Key_F10);
      QTRY_COMPARE_WITH_TIMEOUT(window.session()->state(), RunState::Paused, kTimeoutMs);
    }
    const torchir::Program& program = window.program()->program;
    const torchir::NodeId relu = *program.findNode("relu_"), batchNorm = *program.findNode("batch_norm");
    QVERIFY(window.session()->record(relu));
    const auto before = window.session()->record(relu)->outputs.front();

    QSignalSpy stopped(window.session(), &torchir::ui::SessionController::stopped);
    QTest::keyClick(&window, Qt::Key_F10, Qt::ShiftModifier);  // Step Back
    QVERIFY(stopped.wait(kTimeoutMs));
    QCOMPARE(window.session()->state(), RunState::Paused);
    QCOMPARE(window.session()->marks().current, relu);
    QVERIFY(!window.session()->record(relu));
    QVERIFY(window.session()->record(batchNorm));
    const auto* fx = window.findChild<QTableView*>(QStringLiteral("fxTable"))->model();
    const int status = columnNamed(fx, QStringLiteral("status"));
    QCOMPARE(fx->index(batchNorm, status).data().toString(), QStringLiteral("done"));
    QVERIFY(fx->index(relu, status).data().toString() != QStringLiteral("done"));

    QTest::keyClick(&window, Qt::Key_F10);
    QVERIFY(stopped.wait(kTimeoutMs));
    QVERIFY(window.session()->record(relu));
    const auto after = window.session()->record(relu)->outputs.front();
    QCOMPARE(after.text, before.text);  // the tensor's summary: dtype, shape, statistics
    QCOMPARE(after.sizes, before.sizes);
  }

  // The pt2e CNN: Q/DQ pairs drawn on the edges they sit on, a weight's dequantize in its conv's
  // box, a quantize node's output in the table with its qparams, and its codes in the tensor
  // viewer beside the real numbers they stand for; View › Show Q/DQ Nodes draws them as boxes.
  void quantizedCnnShowsQuantizationOnItsEdges() {
    MainWindow window;
    showActive(window);
    if (QTest::currentTestFailed()) return;
    window.openFile(torchir::test::fixturesDir() + QStringLiteral("/quant/q_pt2e_cnn/q_pt2e_cnn.pt2"));
    QTRY_COMPARE_WITH_TIMEOUT(window.session()->state(), RunState::Ready, kTimeoutMs);
    GraphPanel* graph = window.graphPanel();
    QTRY_VERIFY_WITH_TIMEOUT(!graph->isLayingOut() && graph->scene()->boxItemCount() > 0, kTimeoutMs);
    const torchir::Program& program = window.program()->program;
    const auto quantize = program.findNode("quantize_per_tensor");
    const auto conv = program.findNode("conv2d");
    QVERIFY(quantize && conv);
    for (const auto& n : program.nodes)
      if (torchir::quantRole(n.target) != torchir::QuantRole::None) QVERIFY2(!graph->scene()->boxForNode(n.id), n.name.c_str());
    const BoxItem* convBox = graph->scene()->boxForNode(*conv);
    QVERIFY(convBox);
    const QString convLabel = convBox->lines().join(QStringLiteral(" | "));
    QVERIFY2(convLabel.contains(QStringLiteral("W int8 16x3x3x3 per-channel")), qPrintable(convLabel));
    int quantizedEdges = 0, labels = 0;  // a quantize read twice (the residual) is labelled once
    for (QGraphicsItem* item : graph->scene()->items())
      if (auto* edge = qgraphicsitem_cast<EdgeItem*>(item); edge && edge->quantized()) {
        ++quantizedEdges;
        if (edge->label().isEmpty()) continue;
        ++labels;
        QVERIFY2(edge->label().contains(QStringLiteral("uint8 s=")) && edge->label().contains(QStringLiteral("zp=")),
                 qPrintable(edge->label()));
      }
    QCOMPARE(quantizedEdges, 4);  // the input, the residual's two reads, the linear's input
    QCOMPARE(labels, 3);          // one per quantize node

    QTest::keyClick(&window, Qt::Key_F5);  // Continue to the end
    QTRY_COMPARE_WITH_TIMEOUT(window.session()->state(), RunState::Finished, kTimeoutMs);
    auto* table = window.findChild<QTableView*>(QStringLiteral("fxTable"));
    const int output = columnNamed(table->model(), QStringLiteral("output"));
    const QString cell = table->model()->index(*quantize, output).data().toString();
    QVERIFY2(cell.startsWith(QStringLiteral("uint8[2, 3, 16, 16] s=")) && cell.contains(QStringLiteral("zp=")), qPrintable(cell));
    const QRegularExpression codeAndValue(QStringLiteral("^-?\\d+ \\(-?[0-9.e+-]+\\)$"));
    QString code, stats;
    showOutputOf(window, *quantize, &code, &stats);
    QVERIFY2(codeAndValue.match(code).hasMatch() && !code.startsWith('-'), qPrintable(code));  // uint8
    QVERIFY2(stats.contains(QStringLiteral("codes in [0, 255]: at quant_min")), qPrintable(stats));
    // the histogram: one bin per code over the whole quant range, every element counted
    const auto& bins = window.tensorViewer()->findChild<torchir::ui::HistogramWidget*>(QStringLiteral("tensorHistogram"))->bins();
    QCOMPARE(bins.size(), std::size_t{256});
    QCOMPARE(std::accumulate(bins.begin(), bins.end(), int64_t{0}), int64_t{2 * 3 * 16 * 16});
    saveScreenshot(window, QStringLiteral("quantized_cnn.png"));
    // an int8 weight: per channel, each code with its channel's scale
    const auto weight = program.findNode("b__frozen_param0");
    QVERIFY(weight);
    showOutputOf(window, *weight, &code, &stats);
    QVERIFY2(codeAndValue.match(code).hasMatch(), qPrintable(code));
    QVERIFY2(stats.contains(QStringLiteral("per channel along dim 0 (16 scales)")), qPrintable(stats));

    // the run again: a weight's dequantize is reused, not computed, and says so in the table and
    // the arguments panel; its output is the first run's
    const auto dequantize = program.findNode("dequantize_per_channel");
    QVERIFY(dequantize);
    const QString firstRun = table->model()->index(*dequantize, output).data().toString();
    const int time = columnNamed(table->model(), QStringLiteral("time (µs)"));
    QVERIFY(table->model()->index(*dequantize, time).data().toString() != QStringLiteral("cached"));
    window.findChild<QAction*>(QStringLiteral("actionReset"))->trigger();
    QTRY_COMPARE_WITH_TIMEOUT(window.session()->state(), RunState::Ready, kTimeoutMs);
    QTest::keyClick(&window, Qt::Key_F5);
    QTRY_COMPARE_WITH_TIMEOUT(window.session()->state(), RunState::Finished, kTimeoutMs);
    QTRY_COMPARE_WITH_TIMEOUT(table->model()->index(*dequantize, time).data().toString(), QStringLiteral("cached"), kTimeoutMs);
    QCOMPARE(table->model()->index(*dequantize, output).data().toString(), firstRun);
    QVERIFY(table->model()->index(*quantize, time).data().toString() != QStringLiteral("cached"));  // reads the input
    table->selectRow(*dequantize);  // folded into its conv's box on the graph: picked in the table
    auto* status = window.findChild<QLabel*>(QStringLiteral("nodeStatus"));
    QTRY_COMPARE_WITH_TIMEOUT(status->text(), QStringLiteral("cached"), kTimeoutMs);
    QVERIFY2(status->toolTip().contains(QStringLiteral("constant of the program")), qPrintable(status->toolTip()));
    saveScreenshot(window, QStringLiteral("quantized_cnn_cached.png"));

    window.findChild<QAction*>(QStringLiteral("showQuantizationNodesAction"))->trigger();
    QTRY_VERIFY_WITH_TIMEOUT(graph->scene()->boxForNode(*quantize) != nullptr, kTimeoutMs);
  }

  void resnet18StepsThreeNodes() {
    MainWindow window;
    showActive(window);
    if (QTest::currentTestFailed()) return;
    window.openFile(torchir::test::fixturePath("resnet18", ".pt2"));
    QTRY_COMPARE_WITH_TIMEOUT(window.session()->state(), RunState::Ready, kTimeoutMs);

    for (int i = 0; i < 3; ++i) {
      QTest::keyClick(&window, Qt::Key_F10);  // Step
      QTRY_COMPARE_WITH_TIMEOUT(window.session()->state(), RunState::Paused, kTimeoutMs);
    }
    // conv2d, batch_norm, relu_: the third step ran relu_, and the panels show it.
    const torchir::Program& program = window.program()->program;
    const auto relu = program.findNode("relu_");
    QVERIFY(relu);
    QCOMPARE(window.selectedNode(), *relu);
    QVERIFY(window.session()->record(*relu));

    auto* tree = window.findChild<QTreeView*>(QStringLiteral("argumentsView"));
    QVERIFY(tree && tree->isVisible());
    const QAbstractItemModel* model = tree->model();
    const auto arguments = sectionRows(model, QStringLiteral("Arguments"));
    QCOMPARE(arguments.keys(), QStringList{QStringLiteral("self")});
    const QStringList self = arguments.value(QStringLiteral("self"));
    const int type = columnNamed(model, QStringLiteral("Type"));
    const int source = columnNamed(model, QStringLiteral("Source"));
    const int dtype = columnNamed(model, QStringLiteral("DType"));
    const int shape = columnNamed(model, QStringLiteral("Shape"));
    QVERIFY(type > 0 && source > 0 && dtype > 0 && shape > 0);
    QCOMPARE(self[type], QStringLiteral("Tensor(a!)"));  // relu_ writes its input: the schema's alias annotation
    QVERIFY2(self[source].contains(QStringLiteral("batch_norm")), qPrintable(self[source]));
    QCOMPARE(self[dtype], QStringLiteral("float32"));
    // What export recorded for relu_'s input is what ran.
    QStringList dims;
    for (const auto& d : program.value(program.node(*relu).inputs.at(0).values.at(0)).shape) dims << QString::number(d.hint);
    const QString recorded = QStringLiteral("[%1]").arg(dims.join(QStringLiteral(", ")));
    QCOMPARE(self[shape], recorded);
    const auto outputs = sectionRows(model, QStringLiteral("Outputs"));
    QCOMPARE(outputs.size(), 1);
    QCOMPARE(outputs.first()[shape], recorded);

    // The table marks the three executed rows and the next one.
    const auto* fx = window.findChild<QTableView*>(QStringLiteral("fxTable"))->model();
    const int statusColumn = columnNamed(fx, QStringLiteral("status"));
    QCOMPARE(fx->index(*relu, statusColumn).data().toString(), QStringLiteral("done"));
    QCOMPARE(fx->index(*relu + 1, statusColumn).data().toString(), QStringLiteral("next"));
    // The tensor viewer follows the selection with the node's output.
    QTRY_COMPARE_WITH_TIMEOUT(window.tensorViewer()->title(), QStringLiteral("relu_"), kTimeoutMs);
    QTRY_VERIFY_WITH_TIMEOUT(window.tensorViewer()->statsReady(), kTimeoutMs);
    saveScreenshot(window, QStringLiteral("resnet18_step3.png"));
  }

  // A quantized program against its float export (qp_outlier_mlp: fc3's int8 weights ruined by an
  // outlier): the graph by SQNR shows fc3 worst, Layer Sensitivity ranks it first in its chart and
  // colours the graph by gain, and Keep in Float on it gives the output's SQNR back.
  // An op defined in Python: the program opens with the Python of Preferences › Python, which
  // runs it; its raise is the diagnosis with the worker's traceback, and the Arguments panel says
  // where the node ran.
  void aPythonOpsTracebackIsTheDiagnosis() {
    const QString pyops = torchir::test::fixturesDir() + QStringLiteral("/pyops");
    const QString dir = pyops + QStringLiteral("/py_raise/");
    if (!QFileInfo::exists(dir + QStringLiteral("py_raise.pt2"))) QSKIP("no pyops fixtures");
    const QByteArray pythonPath = qgetenv("PYTHONPATH");
    qputenv("PYTHONPATH", pyops.toLocal8Bit());
    torchir::PythonHostOptions python;
    python.python = TORCHIR_TEST_PYTHON;
    python.imports = {"torchir_pyops"};
    torchir::ui::PythonPreferencesDialog dialog(python);  // what the dialog shows, it gives back
    QVERIFY(dialog.options() == python);
    torchir::ui::savePythonHost(python);
    struct Forget {
      QByteArray pythonPath;
      ~Forget() {
        torchir::ui::savePythonHost({});
        qputenv("PYTHONPATH", pythonPath);
      }
    } forget{pythonPath};
    MainWindow window;
    showActive(window);
    if (QTest::currentTestFailed()) return;
    QVERIFY(openReady(window, {dir + QStringLiteral("py_raise.pt2"), {}, {}, dir + QStringLiteral("py_raise.bad.inputs.safetensors")}));
    QTest::keyClick(&window, Qt::Key_F5);  // Continue
    QTRY_COMPARE_WITH_TIMEOUT(window.session()->state(), RunState::Failed, kTimeoutMs);
    auto* classLabel = window.findChild<QLabel*>(QStringLiteral("diagnosisClass"));
    auto* message = window.findChild<QLabel*>(QStringLiteral("diagnosisMessage"));
    auto* traceback = window.findChild<QLabel*>(QStringLiteral("diagnosisTraceback"));
    QVERIFY(classLabel && message && traceback);
    QCOMPARE(classLabel->text(), QStringLiteral("error in Python"));
    QVERIFY2(message->text().startsWith(QStringLiteral("ValueError: checked_log: 3 of 12 inputs are <= 0")),
             qPrintable(message->text()));
    QVERIFY(traceback->isVisible());
    QVERIFY2(traceback->text().contains(QStringLiteral("raise ValueError")), qPrintable(traceback->text()));
    const torchir::NodeId failed = *window.program()->program.findNode("checked_log");
    QCOMPARE(window.selectedNode(), failed);
    auto* ranIn = window.findChild<QLabel*>(QStringLiteral("runsInPythonLabel"));
    QVERIFY(ranIn);
    QTRY_VERIFY_WITH_TIMEOUT(ranIn->isVisible(), kTimeoutMs);
    QVERIFY2(ranIn->text().startsWith(QStringLiteral("Ran in Python 3.")), qPrintable(ranIn->text()));
    saveScreenshot(window, QStringLiteral("python_op_traceback.png"));
  }

  // An op defined in Python that the Python named does not define: the diagnosis offers the module
  // the program points to whose source defines it, imported only when the user clicks; then the
  // program runs, and later sessions of it import the module too.
  void anOpsModuleIsImportedOnlyWhenTheUserClicks() {
    const QString moe = torchir::test::fixturesDir() + QStringLiteral("/moe");
    const QString program = moe + QStringLiteral("/crafted/crafted.pt2");
    if (!QFileInfo::exists(program)) QSKIP("no moe fixtures");
    QTemporaryDir tmp;
    const QString marker = tmp.filePath(QStringLiteral("imported"));  // the module writes it when imported
    const QByteArray pythonPath = qgetenv("PYTHONPATH");
    qputenv("PYTHONPATH", (moe + QStringLiteral("/modules")).toLocal8Bit());
    qputenv("TORCHIR_PROBE_MARKER", marker.toLocal8Bit());
    torchir::PythonHostOptions python;
    python.python = TORCHIR_TEST_PYTHON;
    torchir::ui::savePythonHost(python);
    struct Forget {
      QByteArray pythonPath;
      ~Forget() {
        torchir::ui::savePythonHost({});
        QSettings().remove(QStringLiteral("python/programImports"));
        qputenv("PYTHONPATH", pythonPath);
        qunsetenv("TORCHIR_PROBE_MARKER");
        qunsetenv("TORCHIR_PYTHON_IMPORTS");
      }
    } forget{pythonPath};
    const torchir::ui::OpenRequest request{program, {}, {}, moe + QStringLiteral("/crafted/crafted.inputs.safetensors")};
    {
      MainWindow window;
      showActive(window);
      if (QTest::currentTestFailed()) return;
      QVERIFY(openReady(window, request));
      QTest::keyClick(&window, Qt::Key_F5);  // Continue
      QTRY_COMPARE_WITH_TIMEOUT(window.session()->state(), RunState::Failed, kTimeoutMs);
      auto* import = window.findChild<QPushButton*>(QStringLiteral("diagnosisImport"));
      QVERIFY(import);
      QTRY_VERIFY_WITH_TIMEOUT(import->isVisible(), kTimeoutMs);
      QCOMPARE(import->text(), QStringLiteral("Import torchir_crafted_probe and run"));
      QVERIFY2(!QFileInfo::exists(marker), "the module was imported before the click");
      saveScreenshot(window, QStringLiteral("python_import_offer.png"));
      QTest::mouseClick(import, Qt::LeftButton);
      QTRY_COMPARE_WITH_TIMEOUT(window.session()->state(), RunState::Finished, kTimeoutMs);
      QVERIFY(QFileInfo::exists(marker));
      QVERIFY(!import->isVisible());
      QCOMPARE(torchir::ui::programImports(program), QStringList{QStringLiteral("torchir_crafted_probe")});
    }
    // remembered for this program: a new window's run imports it with no click
    {
      MainWindow again;
      showActive(again);
      if (QTest::currentTestFailed()) return;
      QVERIFY(openReady(again, request));
      QTest::keyClick(&again, Qt::Key_F5);
      QTRY_COMPARE_WITH_TIMEOUT(again.session()->state(), RunState::Finished, kTimeoutMs);
    }
    // forgotten, then named for this launch as torchir_studio.open names its caller's modules
    QSettings().remove(QStringLiteral("python/programImports"));
    qputenv("TORCHIR_PYTHON_IMPORTS", "torchir_crafted_probe");
    MainWindow launched;
    showActive(launched);
    if (QTest::currentTestFailed()) return;
    QVERIFY(openReady(launched, request));
    QTest::keyClick(&launched, Qt::Key_F5);
    QTRY_COMPARE_WITH_TIMEOUT(launched.session()->state(), RunState::Finished, kTimeoutMs);
  }

  void quantizedAgainstItsFloatProgram() {
    MainWindow window;
    showActive(window);
    if (QTest::currentTestFailed()) return;
    const QString dir = torchir::test::fixturesDir() + QStringLiteral("/quantpairs/qp_outlier_mlp/");
    if (!QFileInfo::exists(dir + QStringLiteral("qp_outlier_mlp.float.pt2"))) QSKIP("no quantpairs fixtures");
    QVERIFY(openReady(window, {dir + QStringLiteral("qp_outlier_mlp.pt2"), {}, {}, dir + QStringLiteral("qp_outlier_mlp.inputs.safetensors")}));
    QVERIFY(window.findChild<QAction*>(QStringLiteral("actionCompareFloatProgram"))->isEnabled());
    auto* sensitivity = window.findChild<QAction*>(QStringLiteral("actionLayerSensitivity"));
    QVERIFY(sensitivity && !sensitivity->isEnabled());  // no float program to measure against yet
    // Compare › With Float Program…'s request (the file dialog's choice)
    torchir::ui::CompareRequest request;
    request.kind = torchir::ui::CompareRequest::File;
    request.path = dir + QStringLiteral("qp_outlier_mlp.float.pt2");
    window.session()->compareWith(request);
    QTRY_VERIFY_WITH_TIMEOUT(window.session()->comparison() != nullptr, kTimeoutMs);
    QTRY_COMPARE_WITH_TIMEOUT(window.session()->state(), RunState::Finished, kTimeoutMs);
    const auto before = window.session()->comparison();
    QVERIFY(before->onlyInProgram.empty() && before->onlyInReference.empty());
    QVERIFY(before->quantizationNodes > 0 && before->quantized);
    QVERIFY(before->outputSqnrDb && *before->outputSqnrDb < 20);
    const torchir::Program& program = window.program()->program;
    const torchir::NodeId fc3 = *program.findNode("linear_2");
    const torchir::NodeId fc1 = *program.findNode("linear");
    auto* legend = window.findChild<torchir::ui::ComparisonLegend*>(QStringLiteral("comparisonLegend"));
    legend->setMetric(torchir::ui::ComparisonMetric::Sqnr);
    // the scene of the latest layout: each layout has its own
    auto scene = [&] { return window.graphPanel()->scene(); };
    QTRY_VERIFY_WITH_TIMEOUT(scene()->shownTint(fc3).isValid(), kTimeoutMs);
    QCOMPARE(scene()->shownTint(fc3), torchir::ui::severityColor(3));  // 14 dB
    QCOMPARE(scene()->shownTint(fc1), torchir::ui::severityColor(1));  // 40.5 dB
    saveScreenshot(window, QStringLiteral("quantized_vs_float_sqnr.png"));

    QTRY_VERIFY_WITH_TIMEOUT(sensitivity->isEnabled(), kTimeoutMs);
    sensitivity->trigger();
    QTRY_VERIFY_WITH_TIMEOUT(window.session()->comparison() && window.session()->comparison()->sensitivity, kTimeoutMs);
    QTRY_COMPARE_WITH_TIMEOUT(window.session()->state(), RunState::Finished, kTimeoutMs);
    const auto ranked = window.session()->comparison()->sensitivity;
    QCOMPARE(ranked->layers.front().node, fc3);
    auto* chart = window.findChild<torchir::ui::SensitivityChart*>(QStringLiteral("sensitivityChart"));
    QVERIFY(chart && chart->isVisible() && chart->result());
    QCOMPARE(legend->metric(), torchir::ui::ComparisonMetric::SensitivityGain);
    QCOMPARE(scene()->shownTint(fc3), torchir::ui::severityColor(3));  // gives back > 6 dB
    QCOMPARE(scene()->shownTint(fc1), torchir::ui::severityColor(1));
    auto* table = window.findChild<QTableView*>(QStringLiteral("fxTable"));
    const int gain = columnNamed(table->model(), QStringLiteral("in float (+dB)"));
    const int ownSqnr = columnNamed(table->model(), QStringLiteral("own SQNR"));
    QVERIFY(gain >= 0 && !table->isColumnHidden(gain) && ownSqnr >= 0 && !table->isColumnHidden(ownSqnr));
    QVERIFY(table->model()->index(fc3, gain).data().toString().toDouble() > 20);
    QVERIFY(table->model()->index(fc3, ownSqnr).data().toString().toDouble() < 20);
    saveScreenshot(window, QStringLiteral("layer_sensitivity.png"));

    window.graphPanel()->selectNode(fc3);
    window.findChild<QTableView*>(QStringLiteral("fxTable"))->selectRow(fc3);
    QTRY_COMPARE_WITH_TIMEOUT(window.selectedNode(), fc3, kTimeoutMs);
    auto* keep = window.findChild<QAction*>(QStringLiteral("actionKeepInFloat"));
    QTRY_VERIFY_WITH_TIMEOUT(keep->isEnabled(), kTimeoutMs);
    keep->trigger();
    QTRY_VERIFY_WITH_TIMEOUT(window.session()->comparison() && window.session()->comparison()->outputSqnrDb &&
                                 *window.session()->comparison()->outputSqnrDb > 30,
                             kTimeoutMs);
    QTRY_COMPARE_WITH_TIMEOUT(window.session()->state(), RunState::Finished, kTimeoutMs);
    QVERIFY(window.session()->marks().isPatched(fc3));  // marked in table and graph as an edited call
    QVERIFY(window.session()->comparison()->outputSqnrDb > before->outputSqnrDb);
    QTRY_VERIFY2_WITH_TIMEOUT(window.statusBar()->currentMessage().contains(QStringLiteral("kept in float (was")),
                              qPrintable(window.statusBar()->currentMessage()), kTimeoutMs);
    legend->setMetric(torchir::ui::ComparisonMetric::Sqnr);
    saveScreenshot(window, QStringLiteral("keep_in_float.png"));
  }

  /// An ExecuTorch device's run over its program, as a user sees it: the int8 per-op XNNPACK twin
  /// whose fc2 int8 weights are wrong, its ETDump attached to the program opened from its ETRecord.
  /// Each delegate call is one compared node, shown on the box of the op it ends with its latency;
  /// the first divergence is fc2's op, selected, the device's codes beside the program's; Run to
  /// First Divergence stops before it, the comparison kept.
  void attachingAnEtdumpShowsEachQuantizedOpOnTheGraph() {
    const QString base = torchir::test::fixturesDir() + QStringLiteral("/executorch/mlp_int8_faulty/mlp_int8_faulty");
    MainWindow window;
    showActive(window);
    if (QTest::currentTestFailed()) return;
    QSignalSpy firstView(&window, &MainWindow::firstViewShown);
    QVERIFY(openReady(window, {base + QStringLiteral(".etrecord"), {}, {}, {}}));
    QTRY_COMPARE_WITH_TIMEOUT(firstView.count(), 1, kTimeoutMs);
    auto* attach = window.findChild<QAction*>(QStringLiteral("actionAttachEtdump"));
    QVERIFY(attach && attach->isEnabled());
    window.deviceRunOverlay()->attach(base + QStringLiteral(".etdp"));  // its debug buffer found beside it
    QTRY_VERIFY_WITH_TIMEOUT(window.session()->comparison() && window.session()->comparison()->device, kTimeoutMs);
    QTRY_COMPARE_WITH_TIMEOUT(window.session()->state(), RunState::Finished, kTimeoutMs);

    const auto c = window.session()->comparison();
    QCOMPARE(c->nodes.size(), std::size_t{5});  // one per delegate call: one per quantized op
    const torchir::NodeComparison* first = c->firstDivergingNode();
    QVERIFY(first && first->startsDivergence);
    const torchir::Program& program = window.program()->program;
    // the device's values are each op's int8 output: a quantize, shown on the box of the op it takes
    auto opOf = [&](torchir::NodeId quantize) { return program.value(program.node(quantize).inputs[0].values[0]).producer; };
    const torchir::NodeId fc2Relu = opOf(first->a);
    QCOMPARE(QString::fromStdString(program.node(fc2Relu).target), QStringLiteral("aten.relu.default"));
    // the linear before it, in fc2 inside the delegate call's frame
    const auto& frames = program.node(opOf(fc2Relu)).moduleFrames();
    QVERIFY2(!frames.empty() && frames.back().path == "#2 XnnpackBackend.fc2", frames.empty() ? "none" : frames.back().path.c_str());
    QCOMPARE(window.selectedNode(), first->a);
    auto scene = [&] { return window.graphPanel()->scene(); };
    QCOMPARE(scene()->shownTint(fc2Relu), torchir::ui::severityColor(3));
    const torchir::NodeId fc1Relu = opOf(c->nodes[1].a);
    QCOMPARE(scene()->shownTint(fc1Relu), torchir::ui::severityColor(0));  // the op before it agrees
    for (torchir::NodeId op : {fc1Relu, fc2Relu})
      QVERIFY2(scene()->boxForNode(op)->badge().endsWith(QStringLiteral(" ms")), qPrintable(scene()->boxForNode(op)->badge()));

    auto* table = window.findChild<QTableView*>(QStringLiteral("fxTable"));
    const int device = columnNamed(table->model(), QStringLiteral("device (ms)"));
    const int maxRel = columnNamed(table->model(), QStringLiteral("max rel"));
    QVERIFY(device >= 0 && !table->isColumnHidden(device));
    QVERIFY(table->model()->index(first->a, device).data().toString().toDouble() > 0);
    QVERIFY(table->model()->index(first->a, maxRel).data().toString().toDouble() > 0.5);
    QVERIFY(table->model()->index(first->a, maxRel).data(Qt::BackgroundRole).isValid());

    // the tensor dock: the device's codes against the program's, their difference first
    QTRY_VERIFY_WITH_TIMEOUT(window.tensorViewer()->title().startsWith(QString::fromStdString(program.node(first->a).name)), kTimeoutMs);
    QCOMPARE(window.tensorViewer()->comparedSide(), int(torchir::ui::TensorViewer::Difference));
    QTRY_VERIFY_WITH_TIMEOUT(window.tensorViewer()->statsReady(), kTimeoutMs);
    QVERIFY(window.tensorViewer()->stats().max > 1);  // codes apart by more than a rounding step
    saveScreenshot(window, QStringLiteral("etdump_int8_per_op.png"));
    // the device's side: its int8 codes, with the real numbers they stand for and their qparams
    auto* side = window.tensorViewer()->findChild<QComboBox*>(QStringLiteral("tensorSide"));
    QVERIFY(side && side->isVisible());
    side->setCurrentIndex(torchir::ui::TensorViewer::ThisRun);
    Q_EMIT side->activated(torchir::ui::TensorViewer::ThisRun);  // as a user's choice does
    QTRY_VERIFY_WITH_TIMEOUT(window.tensorViewer()->statsReady(), kTimeoutMs);
    const auto* codes = window.tensorViewer()->findChild<QLabel*>(QStringLiteral("tensorQuantization"));
    QTRY_VERIFY_WITH_TIMEOUT(codes->isVisible() && codes->text().contains(QStringLiteral("scale")), kTimeoutMs);
    QVERIFY2(window.tensorViewer()->sliceModel()->index(0, 0).data().toString().contains(QLatin1Char('(')),
             qPrintable(window.tensorViewer()->sliceModel()->index(0, 0).data().toString()));  // "-12 (-0.035)"

    auto* runTo = window.findChild<QAction*>(QStringLiteral("actionRunToFirstDivergence"));
    QVERIFY(runTo && runTo->isEnabled());
    runTo->trigger();
    QTRY_COMPARE_WITH_TIMEOUT(window.session()->state(), RunState::Paused, kTimeoutMs);
    QCOMPARE(window.session()->marks().current, first->a);
    QVERIFY(window.session()->comparison() && window.session()->comparison()->device);
    QVERIFY(!window.session()->canContinueComparison());  // a device's run is compared whole
  }

  /// A .pte opens as the Edge program of the ETRecord beside it, framed as the device runs it: the
  /// residual CNN's XNNPACK delegate call is one frame, labelled with its backend.
  void openingAPteShowsItsDelegateCallsAsFrames() {
    const QString base = torchir::test::fixturesDir() + QStringLiteral("/executorch/cnn_residual/cnn_residual");
    MainWindow window;
    showActive(window);
    if (QTest::currentTestFailed()) return;
    QVERIFY(openReady(window, {base + QStringLiteral(".pte"), {}, {}, {}}));
    const torchir::Program& program = window.program()->program;
    QCOMPARE(QString::fromStdString(program.source.format), QStringLiteral("etrecord"));
    std::vector<std::string> frames;
    for (const auto& m : program.modules)
      if (m.path.rfind("#", 0) == 0) frames.push_back(m.path + " " + m.type);
    QVERIFY2(std::find(frames.begin(), frames.end(), "#0 XnnpackBackend delegate") != frames.end(),
             frames.empty() ? "no instruction frame" : frames.front().c_str());
    const auto conv = *program.findNode("aten_convolution_default");  // the stem, in the delegate call
    QCOMPARE(program.node(conv).moduleFrames().back().path, std::string("#0 XnnpackBackend.stem"));
    QCOMPARE(program.node(conv).moduleFrames().front().path, std::string("#0 XnnpackBackend"));

    // an ETDump that cannot be read: one line in the status bar, the run as it was
    QVERIFY(window.deviceRunOverlay()->attach(QStringLiteral(TORCHIR_CRAFTED "/et_truncated.etdp")));
    QTRY_VERIFY2_WITH_TIMEOUT(window.statusBar()->currentMessage().startsWith(QStringLiteral("No comparison with the device: ")),
                              qPrintable(window.statusBar()->currentMessage()), kTimeoutMs);
    QVERIFY(window.statusBar()->currentMessage().contains(QStringLiteral("et_truncated.etdp")));
    QTRY_COMPARE_WITH_TIMEOUT(window.session()->state(), RunState::Ready, kTimeoutMs);
    QVERIFY(!window.session()->comparison());
  }

};

QTEST_MAIN(TestStudioEndToEnd)
#include "tst_studio_e2e.moc"
