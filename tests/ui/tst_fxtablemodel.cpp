// FxTableModel over real programs: a well-behaved model whose cells are Python's FX table.
#include <QAbstractItemModelTester>
#include <QFileInfo>
#include <QJsonObject>
#include <QtTest>

#include "Fixtures.h"
#include "panels/FxTableModel.h"
#include "program/FxTable.h"
#include "program/ProgramLoader.h"

using torchir::ui::FxTableModel;

class TestFxTableModel : public QObject {
  Q_OBJECT

 private Q_SLOTS:
  void initTestCase() { TORCHIR_REQUIRE_FIXTURES(); }

  void matchesPythonTable_data() {
    QTest::addColumn<QString>("name");
    QTest::newRow("mlp") << QStringLiteral("mlp");
    QTest::newRow("resnet18") << QStringLiteral("resnet18");
  }

  void matchesPythonTable() {
    QFETCH(QString, name);
    const QJsonArray expected = torchir::test::pythonFxTable(name);
    QVERIFY2(!expected.isEmpty(), qPrintable(QStringLiteral("no FX table json for %1").arg(name)));

    FxTableModel model;
    // Attached before the rows arrive, so the reset itself is checked too.
    QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
    const torchir::Program program =
        torchir::loadProgram(torchir::test::fixturePath(name, QStringLiteral(".pt2")).toStdString());
    model.setRows(torchir::fxTable(program));

    QCOMPARE(model.columnCount(), 5);
    QCOMPARE(model.rowCount(), expected.size());
    const char* keys[] = {"opcode", "name", "target", "args", "kwargs"};
    const int columns[] = {FxTableModel::Opcode, FxTableModel::Name, FxTableModel::Target, FxTableModel::Args,
                           FxTableModel::Kwargs};
    for (int row = 0; row < model.rowCount(); ++row) {
      const QJsonObject pythonRow = expected[row].toObject();
      for (int i = 0; i < 5; ++i) {
        const QString cell = model.index(row, columns[i]).data().toString();
        const QString want = pythonRow.value(QLatin1String(keys[i])).toString();
        if (cell != want) {
          QFAIL(qPrintable(QStringLiteral("%1 row %2 %3: got \"%4\", Python has \"%5\"")
                               .arg(name).arg(row).arg(QLatin1String(keys[i]), cell, want)));
        }
      }
    }
  }

  void headersAreThoseOfPrintTabular() {
    FxTableModel model;
    QCOMPARE(model.headerData(FxTableModel::Opcode, Qt::Horizontal).toString(), QStringLiteral("opcode"));
    QCOMPARE(model.headerData(FxTableModel::Kwargs, Qt::Horizontal).toString(), QStringLiteral("kwargs"));
  }

  void clearEmptiesTheModel() {
    FxTableModel model;
    QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
    model.setRows({{"placeholder", "x", "x", "()", "{}"}});
    QCOMPARE(model.rowCount(), 1);
    model.clear();
    QCOMPARE(model.rowCount(), 0);
  }
};

QTEST_GUILESS_MAIN(TestFxTableModel)
#include "tst_fxtablemodel.moc"
