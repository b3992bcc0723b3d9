// BreakpointStore: breakpoints saved per file by node name, so they map back onto a program that
// was exported again with other node ids.
#include <QSettings>
#include <QStandardPaths>
#include <QtTest>

#include "Fixtures.h"
#include "formats/ProgramLoader.h"
#include "session/AppIdentity.h"
#include "session/BreakpointStore.h"

using torchir::ui::BreakpointStore;

namespace {

torchir::Program load(const char* name) {
  return torchir::loadProgram(torchir::test::fixturePath(QLatin1String(name), QStringLiteral(".pt2")).toStdString());
}

torchir::NodeId id(const torchir::Program& p, const char* name) { return *p.findNode(name); }

}  // namespace

class TestBreakpointStore : public QObject {
  Q_OBJECT

 private Q_SLOTS:
  void initTestCase() {
    TORCHIR_REQUIRE_FIXTURES();
    torchir::test::isolateSettings();
  }

  void roundTripByFile() {
    const torchir::Program mlp = load("mlp");
    const QString path = torchir::test::fixturePath(QStringLiteral("mlp"), QStringLiteral(".pt2"));
    const std::set<torchir::NodeId> nodes{id(mlp, "relu"), id(mlp, "linear_1")};
    BreakpointStore().save(path, mlp, nodes);
    QCOMPARE(BreakpointStore().load(path, mlp), nodes);
    // Another file has its own breakpoints.
    const QString other = torchir::test::fixturePath(QStringLiteral("mlp"), QStringLiteral(".ir.json"));
    QVERIFY(BreakpointStore().load(other, mlp).empty());
    // Relative and absolute spellings are one file.
    const QString relative = QDir::current().relativeFilePath(path);
    QCOMPARE(BreakpointStore().load(relative, mlp), nodes);
  }

  void storedAsNamesAndMappedOntoAnotherExport() {
    const torchir::Program mlp = load("mlp");
    const QString path = torchir::test::fixturePath(QStringLiteral("mlp"), QStringLiteral(".pt2"));
    BreakpointStore().save(path, mlp, {id(mlp, "linear")});
    // As if the file were exported again: `linear` is now another node id, and there is no `relu`.
    const torchir::Program other = load("attention");
    QVERIFY(id(other, "linear") != id(mlp, "linear"));
    QCOMPARE(BreakpointStore().load(path, other), (std::set<torchir::NodeId>{id(other, "linear")}));

    BreakpointStore().save(path, mlp, {id(mlp, "relu")});
    QVERIFY(BreakpointStore().load(path, other).empty());
  }

  void emptySetRemovesTheEntry() {
    const torchir::Program mlp = load("mlp");
    const QString path = torchir::test::fixturePath(QStringLiteral("mlp"), QStringLiteral(".pt2"));
    BreakpointStore().save(path, mlp, {id(mlp, "relu")});
    BreakpointStore().save(path, mlp, {});
    QVERIFY(BreakpointStore().load(path, mlp).empty());
    QSettings settings;
    settings.beginGroup(QStringLiteral("breakpoints"));
    QVERIFY(settings.childKeys().isEmpty());
  }
};

QTEST_MAIN(TestBreakpointStore)
#include "tst_breakpointstore.moc"
