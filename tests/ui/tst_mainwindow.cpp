// MainWindow end to end: background loading fills the table; a bad file is reported inline and
// leaves the shown program in place.
#include <QAction>
#include <QFileInfo>
#include <QJsonObject>
#include <QLabel>
#include <QLineEdit>
#include <QMimeData>
#include <QProgressBar>
#include <QUrl>
#include <QRandomGenerator>
#include <QScrollBar>
#include <QSettings>
#include <QSignalSpy>
#include <QStandardPaths>
#include <QHeaderView>
#include <QTableView>
#include <QTemporaryDir>
#include <QtTest>

#include "Fixtures.h"
#include "panels/FxTableModel.h"
#include "session/AppIdentity.h"
#include "graph/GraphPanel.h"
#include "session/ExecutionActions.h"
#include "session/SessionController.h"
#include "panels/ControlStrip.h"
#include "panels/TensorViewer.h"
#include "program/TensorData.h"
#include "windows/MainWindow.h"

using torchir::ui::FxTableModel;
using torchir::ui::MainWindow;

namespace {
// resnet18 loads in well under a second; generous for slow CI machines.
constexpr int kLoadTimeoutMs = 60000;

/// Zeros of `sizes`, float32, owning their bytes.
torchir::TensorData zeros(std::vector<int64_t> sizes) {
  std::size_t count = 1;
  for (const int64_t size : sizes) count *= static_cast<std::size_t>(size);
  auto bytes = std::make_shared<std::vector<std::byte>>(count * sizeof(float));
  torchir::TensorData t;
  t.dtype = torchir::DType::Float32;
  t.strides = torchir::TensorData::contiguousStrides(sizes);
  t.sizes = std::move(sizes);
  t.storage = std::make_shared<torchir::Storage>(torchir::Storage{bytes->data(), bytes->size(), bytes, "test"});
  return t;
}

/// The window's program is the session's, and the session is ready to run it.
bool sessionReady(const MainWindow& window) {
  return window.session()->program() == window.program() && window.session()->state() == torchir::ui::RunState::Ready;
}

/// Counts the paints of the widgets it watches.
struct PaintCounter : QObject {
  int count = 0;
  bool eventFilter(QObject*, QEvent* event) override {
    if (event->type() == QEvent::Paint) ++count;
    return false;
  }
};

/// Lays out every widget that asked for it, until none asks again.
void settleLayouts() {
  for (int round = 0; round < 10; ++round) QCoreApplication::sendPostedEvents(nullptr, QEvent::LayoutRequest);
}
}  // namespace

class TestMainWindow : public QObject {
  Q_OBJECT

 private Q_SLOTS:
  void initTestCase() {
    TORCHIR_REQUIRE_FIXTURES();
    torchir::test::isolateSettings();
  }

  void opensProgramAndKeepsItAfterBadFile() {
    MainWindow window;
    window.show();
    auto* table = window.findChild<QTableView*>(QStringLiteral("fxTable"));
    auto* errorLabel = window.findChild<QLabel*>(QStringLiteral("loadErrorLabel"));
    QVERIFY(table);
    QVERIFY(errorLabel);

    QSignalSpy shown(&window, &MainWindow::programShown);
    QSignalSpy failed(&window, &MainWindow::loadFailed);
    const QString resnet = torchir::test::fixturePath(QStringLiteral("resnet18"), QStringLiteral(".pt2"));
    window.openFile(resnet);
    QVERIFY(window.isLoading());  // openFile returned before the program was read
    QTRY_COMPARE_WITH_TIMEOUT(shown.count(), 1, kLoadTimeoutMs);
    QCOMPARE(failed.count(), 0);

    const QJsonArray expected = torchir::test::pythonFxTable(QStringLiteral("resnet18"));
    QCOMPARE(table->model()->rowCount(), 193);
    QCOMPARE(table->model()->index(4, FxTableModel::Name).data().toString(),
             expected[4].toObject().value(QStringLiteral("name")).toString());
    QCOMPARE(window.currentPath(), resnet);
    QVERIFY(errorLabel->isHidden());

    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    const QString badPath = dir.filePath(QStringLiteral("garbage.pt2"));
    {
      QFile bad(badPath);
      QVERIFY(bad.open(QIODevice::WriteOnly));
      QByteArray noise(4096, Qt::Uninitialized);
      QRandomGenerator gen(1234);
      for (char& c : noise) c = static_cast<char>(gen.bounded(256));
      bad.write(noise);
    }
    window.openFile(badPath);
    QTRY_COMPARE_WITH_TIMEOUT(failed.count(), 1, kLoadTimeoutMs);
    QCOMPARE(failed.at(0).at(0).toString(), badPath);
    QVERIFY(errorLabel->isVisible());
    QVERIFY2(errorLabel->text().contains(QStringLiteral("garbage.pt2")), qPrintable(errorLabel->text()));

    // The previous program is still what the window shows.
    QCOMPARE(shown.count(), 1);
    QCOMPARE(window.currentPath(), resnet);
    QCOMPARE(table->model()->rowCount(), 193);
    QVERIFY(!window.isLoading());
  }

  // print_tabular's five columns share the table's width: target, args and kwargs are on screen
  // at the window's first size, not scrolled off behind a wide opcode and name.
  void fxColumnsShareTheTablesWidth() {
    MainWindow window;
    window.resize(1400, 860);  // the first start's size, which the test screen may not allow
    window.show();
    QVERIFY(QTest::qWaitForWindowExposed(&window));
    QSignalSpy shown(&window, &MainWindow::programShown);
    window.openFile(torchir::test::fixturePath(QStringLiteral("resnet18"), QStringLiteral(".pt2")));
    QTRY_COMPARE_WITH_TIMEOUT(shown.count(), 1, kLoadTimeoutMs);
    auto* table = window.findChild<QTableView*>(QStringLiteral("fxTable"));
    const QHeaderView* header = table->horizontalHeader();
    const int width = table->viewport()->width();
    QVERIFY(width > 200);
    for (int column : {FxTableModel::Opcode, FxTableModel::Name, FxTableModel::Target, FxTableModel::Args,
                       FxTableModel::Kwargs}) {
      QVERIFY2(header->sectionSize(column) >= 40, qPrintable(QString::number(column)));
      QVERIFY2(header->sectionViewportPosition(column) + header->sectionSize(column) <= width,
               qPrintable(QStringLiteral("column %1 ends at %2 of %3")
                              .arg(column)
                              .arg(header->sectionViewportPosition(column) + header->sectionSize(column))
                              .arg(width)));
    }
    // the args are the widest text: they get at least as much as the opcode
    QVERIFY(header->sectionSize(FxTableModel::Args) >= header->sectionSize(FxTableModel::Opcode) - 1);
  }

  void filterMatchesAnyColumn() {
    MainWindow window;
    QSignalSpy shown(&window, &MainWindow::programShown);
    window.openFile(torchir::test::fixturePath(QStringLiteral("resnet18"), QStringLiteral(".pt2")));
    QTRY_COMPARE_WITH_TIMEOUT(shown.count(), 1, kLoadTimeoutMs);

    // Rows with "conv" anywhere (names, targets such as aten.conv2d, args), counted from Python's table.
    int expectedRows = 0;
    for (const QJsonValue& row : torchir::test::pythonFxTable(QStringLiteral("resnet18"))) {
      const QJsonObject cells = row.toObject();
      for (const QJsonValue& cell : cells) {
        if (cell.toString().contains(QStringLiteral("CONV"), Qt::CaseInsensitive)) {
          ++expectedRows;
          break;
        }
      }
    }
    QVERIFY(expectedRows > 0);
    auto* filter = window.findChild<QLineEdit*>(QStringLiteral("filterEdit"));
    auto* table = window.findChild<QTableView*>(QStringLiteral("fxTable"));
    QVERIFY(filter);
    filter->setText(QStringLiteral("CONV"));
    QCOMPARE(table->model()->rowCount(), expectedRows);
    filter->clear();
    QCOMPARE(table->model()->rowCount(), 193);
  }

  void successfulLoadIsRecent() {
    MainWindow window;
    QSignalSpy shown(&window, &MainWindow::programShown);
    const QString mlp = torchir::test::fixturePath(QStringLiteral("mlp"), QStringLiteral(".pt2"));
    window.openFile(mlp);
    QTRY_COMPARE_WITH_TIMEOUT(shown.count(), 1, kLoadTimeoutMs);
    // written on a thread of the menu's own
    auto recent = [] { return QSettings().value(QStringLiteral("recentFiles")).toStringList(); };
    QTRY_COMPARE_WITH_TIMEOUT(recent().value(0), QFileInfo(mlp).absoluteFilePath(), kLoadTimeoutMs);
  }

  void droppedFileOpens() {
    MainWindow window;
    QSignalSpy shown(&window, &MainWindow::programShown);
    const QString mlp = torchir::test::fixturePath(QStringLiteral("mlp"), QStringLiteral(".pt2"));
    QMimeData mime;
    mime.setUrls({QUrl::fromLocalFile(mlp)});
    QDragEnterEvent enter(QPoint(10, 10), Qt::CopyAction, &mime, Qt::LeftButton, Qt::NoModifier);
    QCoreApplication::sendEvent(&window, &enter);
    QVERIFY(enter.isAccepted());
    QDropEvent drop(QPointF(10, 10), Qt::CopyAction, &mime, Qt::LeftButton, Qt::NoModifier);
    QCoreApplication::sendEvent(&window, &drop);
    QTRY_COMPARE_WITH_TIMEOUT(shown.count(), 1, kLoadTimeoutMs);
    QCOMPARE(window.currentPath(), mlp);

    // Anything else is refused at the door.
    QMimeData text;
    text.setUrls({QUrl::fromLocalFile(QStringLiteral("/tmp/notes.txt"))});
    QDragEnterEvent refused(QPoint(10, 10), Qt::CopyAction, &text, Qt::LeftButton, Qt::NoModifier);
    refused.setAccepted(false);
    QCoreApplication::sendEvent(&window, &refused);
    QVERIFY(!refused.isAccepted());
  }

  void selectionFollowsEveryView() {
    MainWindow window;
    window.show();
    QSignalSpy shown(&window, &MainWindow::programShown);
    window.openFile(torchir::test::fixturePath(QStringLiteral("resnet18"), QStringLiteral(".pt2")));
    QTRY_COMPARE_WITH_TIMEOUT(shown.count(), 1, kLoadTimeoutMs);
    const torchir::Program& program = window.program()->program;
    const torchir::NodeId conv = *program.findNode("conv2d_1");
    const torchir::NodeId relu = *program.findNode("relu_");

    // The table picks a row: the graph and the arguments panel follow.
    auto* table = window.findChild<QTableView*>(QStringLiteral("fxTable"));
    table->setCurrentIndex(table->model()->index(conv, 1));
    QCOMPARE(window.selectedNode(), conv);
    QCOMPARE(window.graphPanel()->selectedNode(), conv);
    auto* title = window.findChild<QLabel*>(QStringLiteral("nodeTitle"));  // the arguments panel's
    QVERIFY(title);
    QVERIFY2(title->text().contains(QString::fromStdString(program.node(conv).name)), qPrintable(title->text()));

    // The graph picks a node (a click emits nodeSelected): the table follows.
    Q_EMIT window.graphPanel()->nodeSelected(relu);
    QCOMPARE(window.selectedNode(), relu);
    QCOMPARE(table->currentIndex().row(), relu);

    // Find (Ctrl+F), type, Enter: the first match in graph order is selected everywhere.
    QTest::keyClick(&window, Qt::Key_F, Qt::ControlModifier);
    auto* find = window.findChild<QLineEdit*>(QStringLiteral("findEdit"));
    QVERIFY(find);
    QTRY_VERIFY(find->isVisible());
    QTest::keyClicks(find, QStringLiteral("max_pool2d"));
    QTest::keyClick(find, Qt::Key_Return);
    QCOMPARE(window.selectedNode(), *program.findNode("max_pool2d"));
    QCOMPARE(table->currentIndex().row(), *program.findNode("max_pool2d"));
  }

  void breakpointsAreRememberedPerFile() {
    const QString mlp = torchir::test::fixturePath(QStringLiteral("mlp"), QStringLiteral(".pt2"));
    torchir::NodeId node = torchir::kNone;
    {
      MainWindow window;
      window.openFile(mlp);
      QTRY_COMPARE_WITH_TIMEOUT(window.session()->state(), torchir::ui::RunState::Ready, kLoadTimeoutMs);
      const torchir::Program& program = window.program()->program;
      for (const auto& n : program.nodes)
        if (n.opcode == torchir::Opcode::CallFunction) node = n.id;  // the last op
      Q_EMIT window.graphPanel()->nodeSelected(node);
      window.executionActions()->toggleBreakpoint()->trigger();  // F9
      QVERIFY(window.session()->marks().hasBreakpoint(node));
    }
    MainWindow reopened;
    reopened.openFile(mlp);
    QTRY_COMPARE_WITH_TIMEOUT(reopened.session()->state(), torchir::ui::RunState::Ready, kLoadTimeoutMs);
    QTRY_VERIFY(reopened.session()->marks().hasBreakpoint(node));

    // Continue stops before it.
    reopened.executionActions()->continueRun()->trigger();
    QTRY_COMPARE_WITH_TIMEOUT(reopened.session()->state(), torchir::ui::RunState::Paused, kLoadTimeoutMs);
    QCOMPARE(reopened.session()->marks().current, node);
  }

  // Opening another file and coming back, in one window, keeps each file's breakpoints: the
  // empty marks of a program being replaced or started are not a user's change to save.
  void breakpointsSurviveSwitchingFilesInOneWindow() {
    const QString mlp = torchir::test::fixturePath(QStringLiteral("mlp"), QStringLiteral(".pt2"));
    const QString topk = torchir::test::fixturePath(QStringLiteral("topk"), QStringLiteral(".pt2"));
    MainWindow window;
    auto lastOp = [&] {
      torchir::NodeId node = torchir::kNone;
      for (const auto& n : window.program()->program.nodes)
        if (n.opcode == torchir::Opcode::CallFunction) node = n.id;
      return node;
    };
    // Opens `path` and waits for its engine session (the previous file's stays Ready meanwhile).
    auto open = [&](const QString& path) {
      window.openFile(path);
      QTRY_COMPARE_WITH_TIMEOUT(window.program() ? window.program()->request.path : QString(), path, kLoadTimeoutMs);
      QTRY_VERIFY_WITH_TIMEOUT(window.session()->program() == window.program() &&
                                   window.session()->state() == torchir::ui::RunState::Ready,
                               kLoadTimeoutMs);
    };
    auto openAndSetBreakpoint = [&](const QString& path) {
      open(path);
      const torchir::NodeId node = lastOp();
      if (!window.session()->marks().hasBreakpoint(node)) {
        Q_EMIT window.graphPanel()->nodeSelected(node);
        window.executionActions()->toggleBreakpoint()->trigger();
      }
      QVERIFY(window.session()->marks().hasBreakpoint(node));
    };
    openAndSetBreakpoint(mlp);
    openAndSetBreakpoint(topk);
    open(mlp);
    QTRY_VERIFY(window.session()->marks().hasBreakpoint(lastOp()));
    open(topk);
    QTRY_VERIFY(window.session()->marks().hasBreakpoint(lastOp()));
  }

  // A step over a multi-output op passes its getitems too; the selection shows the op it ran.
  // Opening another file forgets the selection: its node id means nothing in the new program.
  void stepSelectsTheOpAndAnotherFileForgetsIt() {
    MainWindow window;
    const QString topk = torchir::test::fixturePath(QStringLiteral("topk"), QStringLiteral(".pt2"));
    window.openFile(topk);
    QTRY_VERIFY_WITH_TIMEOUT(sessionReady(window), kLoadTimeoutMs);
    window.executionActions()->step()->trigger();  // F10: topk, then getitem and getitem_1 are passed
    QTRY_COMPARE_WITH_TIMEOUT(window.session()->state(), torchir::ui::RunState::Paused, kLoadTimeoutMs);
    QCOMPARE(QString::fromStdString(window.program()->program.node(window.session()->marks().current).name),
             QStringLiteral("max_1"));
    QCOMPARE(window.selectedNode(), *window.program()->program.findNode("topk"));
    QVERIFY(window.executionActions()->toggleBreakpoint()->isEnabled());

    window.openFile(torchir::test::fixturePath(QStringLiteral("mlp"), QStringLiteral(".pt2")));
    QTRY_VERIFY_WITH_TIMEOUT(window.program()->request.path != topk && window.session()->program() == window.program() &&
                                 window.session()->state() == torchir::ui::RunState::Ready,
                             kLoadTimeoutMs);
    QCOMPARE(window.selectedNode(), torchir::kNone);
    QVERIFY(!window.executionActions()->toggleBreakpoint()->isEnabled());
    QVERIFY(!window.executionActions()->runToSelected()->isEnabled());
  }

  // A compared program that another one replaces is freed, comparison and all: no view keeps the
  // comparison (which holds its program), and the table shows no metric of it on the new rows.
  void aReplacedComparedProgramIsFreed() {
    MainWindow window;
    window.openFile(torchir::test::fixturePath(QStringLiteral("mlp"), QStringLiteral(".pt2")));
    QTRY_VERIFY_WITH_TIMEOUT(sessionReady(window), kLoadTimeoutMs);
    auto* withFloat64 = window.findChild<QAction*>(QStringLiteral("actionCompareFloat64"));
    QVERIFY(withFloat64);
    withFloat64->trigger();
    QTRY_VERIFY_WITH_TIMEOUT(window.session()->comparison() && window.session()->state() != torchir::ui::RunState::Running,
                             kLoadTimeoutMs);
    auto* table = window.findChild<QTableView*>(QStringLiteral("fxTable"));
    const int maxAbs = FxTableModel::MaxAbs;
    const auto metricShown = [&] {
      for (int row = 0; row < table->model()->rowCount(); ++row)
        if (!table->model()->index(row, maxAbs).data().toString().isEmpty()) return true;
      return false;
    };
    QVERIFY(metricShown());  // the case: the table shows the comparison
    std::weak_ptr<const torchir::ui::LoadedProgram> compared = window.program();

    window.openFile(torchir::test::fixturePath(QStringLiteral("topk"), QStringLiteral(".pt2")));
    QTRY_VERIFY_WITH_TIMEOUT(window.session()->program() == window.program() &&
                                 window.program()->request.path.contains(QStringLiteral("topk")) &&
                                 window.session()->state() == torchir::ui::RunState::Ready,
                             kLoadTimeoutMs);
    QVERIFY(!metricShown());
    QTRY_VERIFY_WITH_TIMEOUT(compared.expired(), kLoadTimeoutMs);  // its frees run on a pool thread
  }

  // resnet18's table starts with 122 placeholders: when the session is ready, the table shows the
  // node the run starts at, and the placeholders above it are inputs, not "done".
  void readyShowsWhereTheRunStarts() {
    MainWindow window;
    window.resize(1200, 800);
    window.show();
    QVERIFY(QTest::qWaitForWindowExposed(&window));
    window.openFile(torchir::test::fixturePath(QStringLiteral("resnet18"), QStringLiteral(".pt2")));
    QTRY_VERIFY_WITH_TIMEOUT(sessionReady(window), kLoadTimeoutMs);
    auto* table = window.findChild<QTableView*>(QStringLiteral("fxTable"));
    QVERIFY(table);
    const torchir::NodeId first = window.session()->marks().current;
    QCOMPARE(QString::fromStdString(window.program()->program.node(first).name), QStringLiteral("conv2d"));
    const QModelIndex row = table->model()->index(first, 0);  // no filter: proxy rows are node ids
    QTRY_VERIFY(table->viewport()->rect().intersects(table->visualRect(row)));
    const QModelIndex status = table->model()->index(0, FxTableModel::Status);
    QCOMPARE(status.data().toString(), QStringLiteral("input"));
  }

  void irJsonRunsWithTheWeightsNextToIt() {
    MainWindow window;
    window.openFile(torchir::test::fixturePath(QStringLiteral("mlp"), QStringLiteral(".ir.json")));
    QTRY_COMPARE_WITH_TIMEOUT(window.session()->state(), torchir::ui::RunState::Ready, kLoadTimeoutMs);
    QVERIFY(window.program()->program.missingData().empty());
    window.executionActions()->continueRun()->trigger();
    QTRY_COMPARE_WITH_TIMEOUT(window.session()->state(), torchir::ui::RunState::Finished, kLoadTimeoutMs);
  }

  void metaExportAsksForItsWeights() {
    MainWindow window;
    window.show();
    QSignalSpy shown(&window, &MainWindow::programShown);
    window.openFile(torchir::test::fixturePath(QStringLiteral("meta_mlp"), QStringLiteral(".pt2")));
    QTRY_COMPARE_WITH_TIMEOUT(shown.count(), 1, kLoadTimeoutMs);
    auto* banner = window.findChild<QLabel*>(QStringLiteral("loadErrorLabel"));
    QVERIFY(banner->isVisible());
    QVERIFY2(banner->text().contains(QStringLiteral("No data for")), qPrintable(banner->text()));
    QVERIFY2(banner->text().contains(QStringLiteral("Supply weights")), qPrintable(banner->text()));
  }

  // A message longer than the window is wide wraps and is shown whole, without widening the window.
  void longBannerWrapsAtTheWindowsWidth() {
    MainWindow window;
    window.resize(640, 700);
    window.show();
    QSignalSpy shown(&window, &MainWindow::programShown);
    window.open({torchir::test::fixturePath(QStringLiteral("mlp"), QStringLiteral(".pt2")),
                 torchir::test::fixturePath(QStringLiteral("mlp"), QStringLiteral(".half_weights.safetensors")), {}, {}});
    QTRY_COMPARE_WITH_TIMEOUT(shown.count(), 1, kLoadTimeoutMs);
    auto* banner = window.findChild<QLabel*>(QStringLiteral("loadErrorLabel"));
    QVERIFY(banner->isVisible());
    QVERIFY2(banner->text().contains(QStringLiteral("another dtype")), qPrintable(banner->text()));
    QTRY_VERIFY(banner->height() > 2 * banner->fontMetrics().height());  // more than one line
    QVERIFY(banner->height() >= banner->heightForWidth(banner->width()));  // as many as the text needs
    QVERIFY(banner->width() <= window.width());
    QCOMPARE(window.width(), 640);
  }

  // What a panel shows does not move the docks' edge: a compared 6-D tensor (a side box and four
  // index boxes, wider than the dock) leaves the graph and the table their width, as each step's
  // tensor would otherwise resize and repaint the whole window. Its controls scroll, whole.
  void aWideTensorLeavesTheDocksWhereTheyAre() {
    MainWindow window;
    window.resize(1000, 700);
    window.show();
    QVERIFY(QTest::qWaitForWindowExposed(&window));
    settleLayouts();
    auto* viewer = window.findChild<torchir::ui::TensorViewer*>();
    auto* strip = viewer ? viewer->findChild<torchir::ui::ControlStrip*>() : nullptr;
    QVERIFY(strip);
    const int centralWidth = window.centralWidget()->width();
    const torchir::TensorData wide = zeros({2, 3, 2, 3, 4, 5});
    viewer->setCompared(QStringLiteral("layer4.1.conv2"), wide, wide, wide);
    settleLayouts();
    const QWidget* controls = strip->widget();
    QVERIFY2(controls->minimumSizeHint().width() > strip->width(), "the tensor's controls fit the dock: the case is not shown");
    QCOMPARE(window.centralWidget()->width(), centralWidth);
    QVERIFY(strip->horizontalScrollBar()->maximum() > 0);  // the last controls are a scroll away
    QVERIFY(strip->viewport()->height() >= controls->minimumSizeHint().height());  // none cut short
  }

  // The window system's first expose comes before posted layout requests: every panel must be laid
  // out when show() returns, or the first frame shows stale geometry and the window paints twice.
  void everyPanelIsLaidOutBeforeTheFirstFrame() {
    MainWindow window;
    window.resize(1000, 700);
    window.show();
    QMap<QWidget*, QRect> shown;
    for (QWidget* w : window.findChildren<QWidget*>())
      if (w->isVisible()) shown.insert(w, w->geometry());
    settleLayouts();
    int moved = 0;
    for (auto it = shown.cbegin(); it != shown.cend(); ++it)
      if (it.key()->geometry() != it.value()) ++moved;
    QVERIFY(shown.size() > 50);  // the whole window, docks included
    QCOMPARE(moved, 0);
  }

  // QProgressBar::setValue may paint the whole window's pending changes at once, inside the report
  // that brought the value. The bar takes the value there and is painted with the window's next paint.
  void aProgressReportPaintsTheBarWithTheWindow() {
    MainWindow window;
    window.resize(1000, 700);
    window.show();
    QVERIFY(QTest::qWaitForWindowExposed(&window));
    auto* bar = window.findChild<QProgressBar*>(QStringLiteral("progressBar"));
    QVERIFY(bar);
    bar->show();  // as while a run goes on
    settleLayouts();
    PaintCounter paints;
    bar->installEventFilter(&paints);
    QTRY_VERIFY(paints.count > 0);  // shown: painted once, on its own turn
    paints.count = 0;

    Q_EMIT window.session()->progress(3, 10);
    QCOMPARE(bar->maximum(), 10);
    QCOMPARE(bar->value(), 3);
    QCOMPARE(paints.count, 0);  // not inside the report
    QTRY_VERIFY(paints.count > 0);
    QVERIFY(bar->updatesEnabled());
  }

  void cleanupTestCase() { QSettings().clear(); }
};

QTEST_MAIN(TestMainWindow)
#include "tst_mainwindow.moc"
