// ExecutionActions: which run commands are enabled in each state of a real session, their
// shortcuts, and that triggering them drives the controller.
#include <QAction>
#include <QSignalSpy>
#include <QStandardPaths>
#include <QtTest>

#include "Fixtures.h"
#include "program/FxTable.h"
#include "formats/ProgramLoader.h"
#include "session/ExecutionActions.h"
#include "session/Selection.h"
#include "session/SessionController.h"

using torchir::ui::ExecutionActions;
using torchir::ui::LoadedProgram;
using torchir::ui::RunState;
using torchir::ui::Selection;
using torchir::ui::SessionController;

namespace {

constexpr int kTimeoutMs = 60000;

torchir::ui::LoadedProgramPtr loadFixture(const char* name) { return torchir::test::loadedFixture(QLatin1String(name)); }

/// The enabled commands, in a fixed order, as a string QCOMPARE prints readably.
QString enabledSet(const ExecutionActions& a) {
  QStringList on;
  for (QAction* action :
       {a.step(), a.stepBack(), a.continueRun(), a.runToSelected(), a.toggleBreakpoint(), a.reset(), a.stop()})
    if (action->isEnabled()) on << action->objectName();
  return on.join(QLatin1Char(' '));
}

}  // namespace

class TestExecutionActions : public QObject {
  Q_OBJECT

 private Q_SLOTS:
  void initTestCase() {
    TORCHIR_REQUIRE_FIXTURES();
    torchir::test::isolateSettings();
  }

  void namesShortcutsAndOrder() {
    SessionController c;
    Selection s;
    ExecutionActions a(&c, &s, nullptr);
    QCOMPARE(a.step()->objectName(), QStringLiteral("actionStep"));
    QCOMPARE(a.step()->shortcut(), QKeySequence(Qt::Key_F10));
    QCOMPARE(a.stepBack()->shortcut(), QKeySequence(Qt::SHIFT | Qt::Key_F10));
    QCOMPARE(a.continueRun()->shortcut(), QKeySequence(Qt::Key_F5));
    QCOMPARE(a.runToSelected()->shortcut(), QKeySequence(Qt::CTRL | Qt::Key_F10));
    QCOMPARE(a.toggleBreakpoint()->shortcut(), QKeySequence(Qt::Key_F9));
    QCOMPARE(a.reset()->shortcut(), QKeySequence(Qt::SHIFT | Qt::Key_F5));
    const QList<QKeySequence> stop = a.stop()->shortcuts();
    QVERIFY(stop.contains(QKeySequence(Qt::CTRL | Qt::Key_Pause)));  // Ctrl+Break
    QVERIFY(stop.contains(QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_F5)));
    QStringList order;  // toolbar and menu order
    for (QAction* action : a.runActions()) order << action->objectName();
    QCOMPARE(order, (QStringList{"actionContinue", "actionStep", "actionStepBack", "actionRunToSelected", "actionStop",
                                 "actionReset", "actionToggleBreakpoint"}));
    QSet<QString> names;
    for (QAction* action : a.runActions() + QList<QAction*>{a.stopOnNan(), a.stopOnDtype(), a.stopOnShape()}) {
      QVERIFY(!action->objectName().isEmpty());
      names.insert(action->objectName());
    }
    QCOMPARE(names.size(), 10);
    QVERIFY(!a.step()->icon().isNull());
  }

  void enabledSetPerState() {
    SessionController c;
    Selection s;
    ExecutionActions a(&c, &s, nullptr);
    QCOMPARE(enabledSet(a), QString());  // Empty

    c.setProgram(loadFixture("mlp"));
    QCOMPARE(c.state(), RunState::Starting);
    QCOMPARE(enabledSet(a), QString());
    QTRY_COMPARE_WITH_TIMEOUT(c.state(), RunState::Ready, kTimeoutMs);
    QCOMPARE(enabledSet(a), QStringLiteral("actionStep actionContinue"));

    const torchir::NodeId relu = *c.program()->program.findNode("relu");
    s.reset(c.program()->program.nodes.size());
    s.select(relu);
    QCOMPARE(enabledSet(a), QStringLiteral("actionStep actionContinue actionRunToSelected actionToggleBreakpoint"));

    // Running: only Stop (and breakpoints).
    c.continueRun();
    QCOMPARE(c.state(), RunState::Running);
    QCOMPARE(enabledSet(a), QStringLiteral("actionToggleBreakpoint actionStop"));
    QTRY_COMPARE_WITH_TIMEOUT(c.state(), RunState::Finished, kTimeoutMs);
    QCOMPARE(enabledSet(a), QStringLiteral("actionStepBack actionToggleBreakpoint actionReset"));

    a.reset()->trigger();
    QTRY_COMPARE_WITH_TIMEOUT(c.state(), RunState::Ready, kTimeoutMs);
    a.step()->trigger();
    QTRY_COMPARE_WITH_TIMEOUT(c.state(), RunState::Paused, kTimeoutMs);
    QCOMPARE(enabledSet(a), QStringLiteral("actionStep actionStepBack actionContinue actionRunToSelected "
                                           "actionToggleBreakpoint actionReset"));
    s.select(*c.program()->program.findNode("linear"));  // has run: nothing to run to
    QCOMPARE(enabledSet(a),
             QStringLiteral("actionStep actionStepBack actionContinue actionToggleBreakpoint actionReset"));
    s.reset(c.program()->program.nodes.size());  // nothing selected
    QCOMPARE(enabledSet(a), QStringLiteral("actionStep actionStepBack actionContinue actionReset"));

    // back to where nothing has run: Ready, as at the start, with nothing to go back to or reset
    a.stepBack()->trigger();
    QTRY_COMPARE_WITH_TIMEOUT(c.state(), RunState::Ready, kTimeoutMs);
    QTRY_COMPARE_WITH_TIMEOUT(c.marks().current, *c.program()->program.findNode("linear"), kTimeoutMs);
    QCOMPARE(enabledSet(a), QStringLiteral("actionStep actionContinue"));

    c.setProgram(loadFixture("half_before_linear"));
    QTRY_COMPARE_WITH_TIMEOUT(c.state(), RunState::Ready, kTimeoutMs);
    a.continueRun()->trigger();
    QTRY_COMPARE_WITH_TIMEOUT(c.state(), RunState::Failed, kTimeoutMs);
    QCOMPARE(enabledSet(a), QStringLiteral("actionStepBack actionReset"));  // x.half() ran

    c.clear();
    QCOMPARE(enabledSet(a), QString());
  }

  void triggeringDrivesTheController() {
    SessionController c;
    Selection s;
    ExecutionActions a(&c, &s, nullptr);
    c.setProgram(loadFixture("mlp"));
    QTRY_COMPARE_WITH_TIMEOUT(c.state(), RunState::Ready, kTimeoutMs);
    const torchir::NodeId linear = *c.program()->program.findNode("linear");
    const torchir::NodeId relu = *c.program()->program.findNode("relu");
    QCOMPARE(c.marks().current, linear);

    QSignalSpy stopped(&c, &SessionController::stopped);
    a.step()->trigger();
    QVERIFY(stopped.wait(kTimeoutMs));
    QCOMPARE(c.marks().current, relu);
    QVERIFY(c.record(linear) != nullptr);

    s.reset(c.program()->program.nodes.size());
    s.select(relu);
    a.toggleBreakpoint()->trigger();
    QVERIFY(c.marks().hasBreakpoint(relu));
    a.toggleBreakpoint()->trigger();
    QVERIFY(!c.marks().hasBreakpoint(relu));

    a.stopOnNan()->setChecked(true);
    QVERIFY(c.stopConditions().nanOrInf);
    a.stopOnShape()->setChecked(true);
    QVERIFY(c.stopConditions().shapeDiffers && !c.stopConditions().dtypeDiffers);
    a.stopOnNan()->setChecked(false);
    QVERIFY(!c.stopConditions().nanOrInf);

    stopped.clear();
    a.runToSelected()->trigger();
    QVERIFY(stopped.wait(kTimeoutMs));
    QVERIFY(c.record(relu) != nullptr);
  }
};

QTEST_MAIN(TestExecutionActions)
#include "tst_executionactions.moc"
