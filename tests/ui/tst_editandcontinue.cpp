// Edit and continue over the real engine: a change to some arguments of a node's call keeps its
// changes to the others, whether made through the controller (a fix, one change after another)
// or in the Edit Call dialog, which reads the .safetensors files it is given off the GUI thread.
#include <QComboBox>
#include <QDockWidget>
#include <QFile>
#include <QLabel>
#include <QLineEdit>
#include <QMainWindow>
#include <QPushButton>
#include <QStatusBar>
#include <QTableWidget>
#include <QTemporaryDir>
#include <QtTest>

#include "Fixtures.h"
#include "controllers/EditAndContinue.h"
#include "controllers/EditCallDialog.h"
#include "controllers/TensorDock.h"
#include "panels/ArgumentsPanel.h"
#include "panels/DiagnosisPanel.h"
#include "panels/TensorViewer.h"
#include "session/BackgroundPool.h"
#include "session/Selection.h"
#include "session/SessionController.h"
#include "session/StudioContext.h"

using torchir::ArgumentPatch;
using torchir::NodeId;
using torchir::ui::EditCallDialog;
using torchir::ui::RunState;
using torchir::ui::SessionController;

namespace {

constexpr int kTimeoutMs = 60000;

/// What the edit-and-continue controller drives, as the window gives it.
struct Studio {
  QMainWindow window;
  SessionController session;
  torchir::ui::Selection selection;
  torchir::ui::DiagnosisPanel* diagnosis = new torchir::ui::DiagnosisPanel(&window);
  torchir::ui::ArgumentsPanel* arguments = new torchir::ui::ArgumentsPanel(&window);
  torchir::ui::TensorViewer* viewer = new torchir::ui::TensorViewer(&window);
  QDockWidget* dock = new QDockWidget(&window);
  QStatusBar* status = new QStatusBar(&window);
  torchir::ui::StudioContext context{session, selection, window, *status};
  torchir::ui::TensorDock tensors{context, arguments, viewer, dock};
  torchir::ui::EditAndContinue edits{context, diagnosis, &tensors};
};

/// Sets the program and waits until the engine session exists.
bool startOn(SessionController& c, const char* fixture, const QString& inputsPath = {}) {
  c.setProgram(torchir::test::loadedFixture(QLatin1String(fixture), inputsPath));
  return QTest::qWaitFor([&] { return c.state() != RunState::Starting; }, kTimeoutMs) && c.state() == RunState::Ready;
}

NodeId nodeId(const SessionController& c, const char* name) {
  const auto id = c.program()->program.findNode(name);
  return id ? *id : torchir::kNone;
}

ArgumentPatch number(const char* argument, double value) {
  ArgumentPatch p;
  p.argument = argument;
  p.kind = ArgumentPatch::Kind::Scalar;
  p.value = value;
  return p;
}

ArgumentPatch cast(const char* argument, torchir::DType dtype) {
  ArgumentPatch p;
  p.argument = argument;
  p.kind = ArgumentPatch::Kind::Cast;
  p.dtype = dtype;
  return p;
}

/// "argument: change" for each change, sorted: the session's for `node`, or a dialog's.
QStringList described(const std::vector<ArgumentPatch>& patches) {
  QStringList out;
  for (const auto& p : patches)
    out << QStringLiteral("%1: %2").arg(QString::fromStdString(p.argument),
                                        QString::fromStdString(torchir::describePatch(p)));
  out.sort();
  return out;
}
QStringList described(const SessionController& c, NodeId node) {
  const auto it = c.patches().find(node);
  return it == c.patches().end() ? QStringList() : described(it->second);
}

/// The dialog's row of `argument`; -1 when it has none.
int rowOf(const QTableWidget* table, const QString& argument) {
  for (int r = 0; r < table->rowCount(); ++r)
    if (table->item(r, 0)->text() == argument) return r;
  return -1;
}

}  // namespace

class TestEditAndContinue : public QObject {
  Q_OBJECT

 private Q_SLOTS:
  void initTestCase() {
    TORCHIR_REQUIRE_FIXTURES();
    torchir::test::isolateSettings();
  }
  // The file reads' worker threads are joined before exit: LeakSanitizer's exit-time tracer
  // can die stopping a pool thread that is still winding down.
  void cleanupTestCase() { torchir::ui::backgroundPool()->waitForDone(); }

  // ((x * 1e-3 + 1e4) - 1e4) * 3, paused at mul: a change to `other`, then one to `self`, and the
  // node has both; a change to `other` again replaces its first.
  void aChangeToAnotherArgumentKeepsTheFirst() {
    Studio s;
    QVERIFY(startOn(s.session, "cancellation"));
    const NodeId mul = nodeId(s.session, "mul");
    QCOMPARE(s.session.marks().current, mul);

    s.edits.applyChanges(mul, {number("other", 1)}, false);
    QTRY_COMPARE_WITH_TIMEOUT(described(s.session, mul).size(), 1, kTimeoutMs);
    s.edits.applyChanges(mul, {cast("self", torchir::DType::Float64)}, false);
    QTRY_COMPARE_WITH_TIMEOUT(described(s.session, mul).size(), 2, kTimeoutMs);
    QCOMPARE(described(s.session, mul), described({number("other", 1), cast("self", torchir::DType::Float64)}));

    s.edits.applyChanges(mul, {number("other", 2)}, false);
    QTRY_COMPARE_WITH_TIMEOUT(described(s.session, mul),
                              described({number("other", 2), cast("self", torchir::DType::Float64)}), kTimeoutMs);
    QCOMPARE(s.session.state(), RunState::Ready);  // applied, not run
  }

  // float16 inputs fail at linear; a change made to its bias first stays when the diagnosis's cast
  // of its input is applied, and the run goes on to the end with both.
  void theDiagnosissFixKeepsEarlierChanges() {
    Studio s;
    QVERIFY(startOn(
        s.session, "mixed_precision",
        torchir::test::fixturePath(QStringLiteral("mixed_precision"), QStringLiteral(".inputs_fp16.safetensors"))));
    s.session.continueRun();
    QTRY_COMPARE_WITH_TIMEOUT(s.session.state(), RunState::Failed, kTimeoutMs);
    const NodeId linear = nodeId(s.session, "linear");
    QCOMPARE(s.session.marks().current, linear);
    QVERIFY(!s.edits.suggestedFix().empty());
    QVERIFY(s.edits.applyFixAction()->isEnabled());

    s.edits.applyChanges(linear, {cast("bias", torchir::DType::Float32)}, false);  // no change to its values
    QTRY_COMPARE_WITH_TIMEOUT(described(s.session, linear).size(), 1, kTimeoutMs);
    const QStringList expected = described(std::vector<ArgumentPatch>{cast("bias", torchir::DType::Float32)}) +
                                 described(s.edits.suggestedFix());
    s.edits.applyFixAction()->trigger();
    QTRY_COMPARE_WITH_TIMEOUT(s.session.state(), RunState::Finished, kTimeoutMs);
    QStringList sorted = expected;
    sorted.sort();
    QCOMPARE(described(s.session, linear), sorted);
    QVERIFY(s.edits.suggestedFix().empty());
    QVERIFY(!s.edits.applyFixAction()->isEnabled());
  }

  // The dialog starts from the node's changes: untouched, they are its answer; a row changed
  // replaces its argument's change, a row cleared drops it.
  void theDialogReturnsTheWholeList() {
    Studio s;
    QVERIFY(startOn(s.session, "cancellation"));
    const NodeId mul = nodeId(s.session, "mul");
    s.edits.applyChanges(mul, {number("other", 1)}, false);
    QTRY_COMPARE_WITH_TIMEOUT(described(s.session, mul).size(), 1, kTimeoutMs);

    EditCallDialog dialog(&s.session, mul);
    auto* table = dialog.findChild<QTableWidget*>(QStringLiteral("editCallArguments"));
    QTRY_COMPARE_WITH_TIMEOUT(table->rowCount(), 2, kTimeoutMs);
    const int self = rowOf(table, QStringLiteral("self")), other = rowOf(table, QStringLiteral("other"));
    QVERIFY(self >= 0 && other >= 0);
    QCOMPARE(described(dialog.patches()), described({number("other", 1)}));  // Apply with no edit keeps it

    auto* change = qobject_cast<QComboBox*>(table->cellWidget(self, 3));
    QVERIFY(change);
    change->setCurrentIndex(change->findText(QStringLiteral("cast to float64")));
    QCOMPARE(described(dialog.patches()), described({number("other", 1), cast("self", torchir::DType::Float64)}));

    auto* with = qobject_cast<QLineEdit*>(table->cellWidget(other, 4));
    QVERIFY(with);
    with->setText(QStringLiteral("5"));
    QCOMPARE(described(dialog.patches()), described({number("other", 5), cast("self", torchir::DType::Float64)}));
    with->clear();  // as exported again
    QCOMPARE(described(dialog.patches()), described({cast("self", torchir::DType::Float64)}));
    change->setCurrentIndex(change->findText(QStringLiteral("as is")));
    QVERIFY(dialog.patches().empty());
  }

  // A tensor from a .safetensors file is read on a worker thread: the dialog says it is reading,
  // then tries the call with it; a file that is no safetensors is said in one line.
  void aTensorFileIsReadOffTheGuiThread() {
    Studio s;
    QVERIFY(startOn(s.session, "cancellation"));
    const NodeId mul = nodeId(s.session, "mul");
    EditCallDialog dialog(&s.session, mul);
    auto* table = dialog.findChild<QTableWidget*>(QStringLiteral("editCallArguments"));
    auto* result = dialog.findChild<QLabel*>(QStringLiteral("editCallResult"));
    auto* tryButton = dialog.findChild<QPushButton*>(QStringLiteral("editCallTry"));
    QTRY_COMPARE_WITH_TIMEOUT(table->rowCount(), 2, kTimeoutMs);
    const int self = rowOf(table, QStringLiteral("self"));
    auto* change = qobject_cast<QComboBox*>(table->cellWidget(self, 3));
    auto* with = qobject_cast<QLineEdit*>(table->cellWidget(self, 4));
    QVERIFY(change && with);

    QTemporaryDir dir;
    const QString bad = dir.filePath(QStringLiteral("bad.safetensors"));
    {
      QFile file(bad);
      QVERIFY(file.open(QIODevice::WriteOnly));
      file.write("not\na safetensors file\n");
    }
    with->setText(bad);  // first: an empty field asks for a file when "replace" is chosen
    change->setCurrentIndex(change->findText(QStringLiteral("replace from file")));
    tryButton->click();
    QVERIFY(dialog.isReading());
    QVERIFY2(result->text().startsWith(QStringLiteral("Reading")), qPrintable(result->text()));
    QTRY_VERIFY_WITH_TIMEOUT(!dialog.isReading(), kTimeoutMs);
    QVERIFY2(result->text().contains(QStringLiteral("bad.safetensors")) && !result->text().contains(QLatin1Char('\n')),
             qPrintable(result->text()));

    with->setText(torchir::test::fixturePath(QStringLiteral("cancellation"), QStringLiteral(".inputs.safetensors")) +
                  QStringLiteral(":input_0"));
    tryButton->click();
    QVERIFY(dialog.isReading());
    QTRY_VERIFY_WITH_TIMEOUT(result->text().contains(QStringLiteral("With the changes, it gives float32[4, 8]")),
                             kTimeoutMs);
    const auto patches = dialog.patches();
    QCOMPARE(patches.size(), std::size_t{1});
    QCOMPARE(patches.front().kind, ArgumentPatch::Kind::Replace);
    QVERIFY2(patches.front().origin.find(":input_0") != std::string::npos, patches.front().origin.c_str());
  }
};

QTEST_MAIN(TestEditAndContinue)
#include "tst_editandcontinue.moc"
