// The studio end to end in a real window (ctest runs it under Xvfb): keys go through the window's
// shortcuts, the engine runs on its own thread, and the panels are read as a user would read them.
#include <QAbstractItemModel>
#include <QApplication>
#include <QDir>
#include <QLabel>
#include <QSettings>
#include <QSignalSpy>
#include <QStandardPaths>
#include <QTableView>
#include <QTreeView>
#include <QtTest>

#include "Fixtures.h"
#include "graph/GraphPanel.h"
#include "panels/FxTableModel.h"
#include "panels/TensorViewer.h"
#include "session/AppIdentity.h"
#include "session/SessionController.h"
#include "windows/MainWindow.h"

using torchir::ui::MainWindow;
using torchir::ui::RunState;

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

int columnNamed(const QAbstractItemModel* model, const QString& title) {
  for (int c = 0; c < model->columnCount(); ++c)
    if (model->headerData(c, Qt::Horizontal).toString() == title) return c;
  return -1;
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
    window.open({torchir::test::fixturePath("mixed_precision", ".pt2"), {}, {},
                 torchir::test::fixturePath("mixed_precision", ".inputs_fp16.safetensors")});
    QTRY_COMPARE_WITH_TIMEOUT(window.session()->state(), RunState::Ready, kTimeoutMs);
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
};

QTEST_MAIN(TestStudioEndToEnd)
#include "tst_studio_e2e.moc"
