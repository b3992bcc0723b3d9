// FxTableModel over real programs: a well-behaved model whose cells are Python's FX table.
#include <QAbstractItemModelTester>
#include <QFileInfo>
#include <QJsonObject>
#include <QSignalSpy>
#include <QtTest>
#include <limits>
#include <climits>

#include "Fixtures.h"
#include "exec/AtenBackend.h"
#include "exec/Session.h"
#include "panels/FxTableModel.h"
#include "program/FxTable.h"
#include "formats/ProgramLoader.h"
#include "program/TensorValues.h"

using torchir::ui::ExecutionMarks;
using torchir::ui::FxTableModel;

namespace {

torchir::Program load(const char* name) {
  return torchir::loadProgram(torchir::test::fixturePath(QLatin1String(name), QStringLiteral(".pt2")).toStdString());
}

// The marks a controller derives from a session: what ran, what runs next, where it failed.
ExecutionMarks marksOf(const torchir::Session& session, torchir::NodeId failed = torchir::kNone) {
  ExecutionMarks marks;
  const auto n = session.program().nodes.size();
  marks.executed.assign(n, false);
  for (std::size_t i = 0; i < n; ++i) marks.executed[i] = session.record(static_cast<torchir::NodeId>(i)) != nullptr;
  marks.current = session.finished() || failed != torchir::kNone ? torchir::kNone : session.position();
  marks.failed = failed;
  return marks;
}

FxTableModel::RecordLookup lookupIn(const torchir::Session& session) {
  // A copy, as the session controller shares: the engine's own record changes with the next run.
  return [&session](torchir::NodeId n) -> std::shared_ptr<const torchir::NodeRecord> {
    const torchir::NodeRecord* r = session.record(n);
    return r ? std::make_shared<const torchir::NodeRecord>(*r) : nullptr;
  };
}

}  // namespace

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

    QCOMPARE(model.columnCount(), int(FxTableModel::ColumnCount));
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

  void runColumnsFollowTheHeaders() {
    FxTableModel model;
    QCOMPARE(model.headerData(FxTableModel::Status, Qt::Horizontal).toString(), QStringLiteral("status"));
    QCOMPARE(model.headerData(FxTableModel::Output, Qt::Horizontal).toString(), QStringLiteral("output"));
    QVERIFY(model.headerData(FxTableModel::Time, Qt::Horizontal).toString().startsWith(QStringLiteral("time")));
  }

  void outputsThatDifferFromExportAreFlagged() {
    // topk exported for float32, run on float64: the input and topk's values differ from export.
    const auto program = std::make_shared<const torchir::Program>(load("topk"));
    const torchir::TensorData& sample = program->sampleInputs.at(0);
    auto bytes = std::make_shared<std::vector<double>>();
    for (int64_t i = 0; i < sample.numel(); ++i) bytes->push_back(torchir::elementAsDouble(sample, i));
    torchir::TensorData wide;
    wide.dtype = torchir::DType::Float64;
    wide.sizes = sample.sizes;
    wide.strides = torchir::TensorData::contiguousStrides(sample.sizes);
    wide.storage = std::make_shared<torchir::Storage>(torchir::Storage{
        reinterpret_cast<const std::byte*>(bytes->data()), bytes->size() * sizeof(double), bytes, "test"});

    FxTableModel model;
    QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
    model.setRows(torchir::fxTable(*program));
    model.setExported(program);
    auto session = torchir::atenBackend().createSession(*program);
    QVERIFY(session->setInputs({wide}).ok());
    const torchir::NodeId topk = *program->findNode("topk");
    QCOMPARE(session->runTo(topk).reason, torchir::StopReason::Stepped);
    model.updateExecution(marksOf(*session), lookupIn(*session));

    const QModelIndex out = model.index(topk, FxTableModel::Output);
    const QString tip = out.data(Qt::ToolTipRole).toString();
    QVERIFY2(tip.startsWith(QStringLiteral("Differs from export")), qPrintable(tip));
    QVERIFY2(tip.contains(QStringLiteral("float32[3, 3]")) && tip.contains(QStringLiteral("float64[3, 3]")), qPrintable(tip));
    QVERIFY(out.data(Qt::BackgroundRole).isValid());
    const QModelIndex input = model.index(*program->findNode("x"), FxTableModel::Output);
    QVERIFY(input.data(Qt::ToolTipRole).toString().startsWith(QStringLiteral("Differs from export")));

    // The same program on the inputs it was exported with: nothing is flagged.
    QVERIFY(session->setInputs(program->sampleInputs).ok());
    QCOMPARE(session->run().reason, torchir::StopReason::Finished);
    model.updateExecution(marksOf(*session), lookupIn(*session));
    for (int row = 0; row < model.rowCount(); ++row)
      QVERIFY2(!model.index(row, FxTableModel::Output).data(Qt::ToolTipRole).toString().startsWith(QStringLiteral("Differs")),
               qPrintable(model.index(row, FxTableModel::Name).data().toString()));
  }

  // A model told which rows each update's records cover (as engine reports do) shows what a model
  // that looks at every row shows, through steps, a breakpoint, a step back and a run to the end.
  void anUpdateForAReportsRowsShowsWhatAFullOneShows() {
    const torchir::Program program = load("resnet18");
    FxTableModel full, ranged;
    full.setRows(torchir::fxTable(program));
    ranged.setRows(torchir::fxTable(program));
    auto session = torchir::atenBackend().createSession(program);
    QVERIFY(session->setInputs(program.sampleInputs).ok());
    // Compared once both have taken every slice: a slow (sanitizer) build may leave rows for later.
    auto same = [&](const char* when) {
      QTRY_VERIFY_WITH_TIMEOUT(!full.updatePending() && !ranged.updatePending(), 60000);
      for (int row = 0; row < full.rowCount(); ++row)
        for (int column = FxTableModel::Status; column < FxTableModel::kFirstMetricColumn; ++column)
          for (int role : {int(Qt::DisplayRole), int(Qt::DecorationRole), int(Qt::ToolTipRole)})
            QVERIFY2(full.index(row, column).data(role) == ranged.index(row, column).data(role),
                     qPrintable(QStringLiteral("%1: row %2 column %3").arg(when).arg(row).arg(column)));
    };
    // the rows the ranged model said changed, lowest and highest
    auto update = [&](ExecutionMarks marks, int first, int end) {
      full.updateExecution(marks, lookupIn(*session));
      QSignalSpy changed(&ranged, &QAbstractItemModel::dataChanged);
      ranged.updateExecution(marks, lookupIn(*session), std::pair{first, end});
      std::pair<int, int> rows{INT_MAX, -1};
      for (const auto& signal : changed)
        rows = {std::min(rows.first, signal.at(0).toModelIndex().row()), std::max(rows.second, signal.at(1).toModelIndex().row())};
      return rows;
    };
    update(marksOf(*session), 0, session->position());  // the inputs passed before the first node
    same("start");
    for (int i = 0; i < 5; ++i) {
      const int before = session->position();
      QCOMPARE(session->step().reason, torchir::StopReason::Stepped);
      const auto [low, high] = update(marksOf(*session), before, session->position());
      same("step");
      QVERIFY(low <= high);  // the step's rows changed
      QVERIFY(low >= before && high <= session->position());  // the step's rows and the next, no more
    }
    ExecutionMarks marks = marksOf(*session);
    marks.breakpoints.insert(2);
    update(marks, 0, 0);
    same("breakpoint");
    QCOMPARE(session->stepBack().reason, torchir::StopReason::Stepped);
    update(marksOf(*session), 0, session->position());  // a replay: a restart's report from the first row
    same("step back");
    const int before = session->position();
    QCOMPARE(session->run().reason, torchir::StopReason::Finished);
    update(marksOf(*session), before, full.rowCount());
    same("run");
  }

  // An update that takes longer than its slice leaves rows pending; the event loop takes them in
  // later slices, against the latest marks and records, and the table ends as one updated at once.
  void anUpdateTakenInSlicesEndsAsOneTakenAtOnce() {
    const torchir::Program program = load("resnet18");
    FxTableModel full, sliced;
    full.setRows(torchir::fxTable(program));
    sliced.setRows(torchir::fxTable(program));
    sliced.setSliceBudgetNs(0);  // the clock is over budget at its first reading: 63 rows a slice
    // every row at once, however loaded the machine (4 ms could end a slice before the last row)
    full.setSliceBudgetNs(std::numeric_limits<qint64>::max());
    const int rows = full.rowCount();
    QVERIFY(rows > 2 * 64);
    auto session = torchir::atenBackend().createSession(program);
    QVERIFY(session->setInputs(program.sampleInputs).ok());
    QCOMPARE(session->run().reason, torchir::StopReason::Finished);
    ExecutionMarks marks = marksOf(*session);
    full.updateExecution(marks, lookupIn(*session));
    sliced.updateExecution(marks, lookupIn(*session), std::pair{0, rows});
    QVERIFY(sliced.updatePending());
    const int last = rows - 1;
    QVERIFY(full.index(last, FxTableModel::Status).data() != sliced.index(last, FxTableModel::Status).data());
    // A newer update while rows are pending: a breakpoint on a row not yet looked at.
    marks.breakpoints.insert(last);
    full.updateExecution(marks, lookupIn(*session));
    sliced.updateExecution(marks, lookupIn(*session), std::pair{0, 0});
    QTRY_VERIFY_WITH_TIMEOUT(!sliced.updatePending(), 60000);
    for (int row = 0; row < rows; ++row)
      for (int column = FxTableModel::Status; column < FxTableModel::kFirstMetricColumn; ++column)
        for (int role : {int(Qt::DisplayRole), int(Qt::DecorationRole)})
          QVERIFY2(full.index(row, column).data(role) == sliced.index(row, column).data(role),
                   qPrintable(QStringLiteral("row %1 column %2").arg(row).arg(column)));
  }

  void steppedRowsShowStatusOutputAndTime() {
    const torchir::Program program = load("mlp");
    FxTableModel model;
    QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
    model.setRows(torchir::fxTable(program));
    auto session = torchir::atenBackend().createSession(program);
    QVERIFY(session->setInputs(program.sampleInputs).ok());

    constexpr int kSteps = 2;
    for (int i = 0; i < kSteps; ++i) QCOMPARE(session->step().reason, torchir::StopReason::Stepped);
    QSignalSpy changed(&model, &QAbstractItemModel::dataChanged);
    model.updateExecution(marksOf(*session), lookupIn(*session));
    // The two stepped rows and the next one are adjacent: one range, not a reset.
    QCOMPARE(changed.size(), 1);

    int done = 0;
    for (int row = 0; row < model.rowCount(); ++row) {
      const torchir::NodeRecord* record = session->record(row);
      const QString status = model.index(row, FxTableModel::Status).data().toString();
      if (!record) {
        QCOMPARE(status, row == session->position() ? QStringLiteral("next") : QString());
        QVERIFY(model.index(row, FxTableModel::Time).data().toString().isEmpty());
        continue;
      }
      // Placeholders are passed on the way and have records too (their value), but they are inputs:
      // not "done" and not tinted as if they had run.
      if (program.node(row).opcode == torchir::Opcode::Placeholder) {
        QCOMPARE(status, QStringLiteral("input"));
        QVERIFY(!model.index(row, FxTableModel::Name).data(Qt::BackgroundRole).isValid());
        continue;
      }
      ++done;
      QCOMPARE(status, QStringLiteral("done"));
      const QString time = model.index(row, FxTableModel::Time).data().toString();
      QVERIFY2(QRegularExpression(QStringLiteral("^\\d+\\.\\d$")).match(time).hasMatch(), qPrintable(time));
      QCOMPARE(time.toDouble(), QString::number(record->microseconds, 'f', 1).toDouble());
      const auto& out = record->outputs.at(0);
      QString shape;
      for (std::size_t d = 0; d < out.sizes.size(); ++d) shape += (d ? ", " : "") + QString::number(out.sizes[d]);
      QCOMPARE(model.index(row, FxTableModel::Output).data().toString(),
               QStringLiteral("%1[%2]").arg(QLatin1String(torchir::dtypeName(out.dtype).data()), shape));
      QVERIFY(model.index(row, FxTableModel::Name).data(Qt::BackgroundRole).isValid());
    }
    QCOMPARE(done, kSteps);
    // mlp's first op: linear(x, fc1.weight, fc1.bias) on a [2, 16] input.
    const int linear = *program.findNode("linear");
    QCOMPARE(model.index(linear, FxTableModel::Output).data().toString(), QStringLiteral("float32[2, 32]"));
    QVERIFY(model.index(session->position(), FxTableModel::Args).data(Qt::BackgroundRole).isValid());
    QVERIFY(!model.index(model.rowCount() - 1, FxTableModel::Name).data(Qt::BackgroundRole).isValid());

    // Nothing changed: no signal at all.
    changed.clear();
    model.updateExecution(marksOf(*session), lookupIn(*session));
    QCOMPARE(changed.size(), 0);
  }

  void breakpointIsARedDotOnTheStatusCell() {
    const torchir::Program program = load("mlp");
    FxTableModel model;
    QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
    model.setRows(torchir::fxTable(program));
    ExecutionMarks marks;
    marks.executed.assign(program.nodes.size(), false);
    const int relu = *program.findNode("relu");
    marks.breakpoints = {relu};
    QSignalSpy changed(&model, &QAbstractItemModel::dataChanged);
    model.updateExecution(marks, {});
    QCOMPARE(changed.size(), 1);
    QCOMPARE(changed.at(0).at(0).value<QModelIndex>().row(), relu);
    QCOMPARE(changed.at(0).at(1).value<QModelIndex>().row(), relu);
    QVERIFY(model.index(relu, FxTableModel::Status).data(Qt::DecorationRole).canConvert<QImage>());
    QVERIFY(!model.index(relu, FxTableModel::Name).data(Qt::DecorationRole).isValid());
    QVERIFY(!model.index(relu - 1, FxTableModel::Status).data(Qt::DecorationRole).isValid());
  }

  void failedRowShowsFailed() {
    const torchir::Program program = load("half_before_linear");
    FxTableModel model;
    QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
    model.setRows(torchir::fxTable(program));
    auto session = torchir::atenBackend().createSession(program);
    QVERIFY(session->setInputs(program.sampleInputs).ok());
    const torchir::StepOutcome outcome = session->run();
    QCOMPARE(outcome.reason, torchir::StopReason::Failed);
    model.updateExecution(marksOf(*session, outcome.diagnosis.node), lookupIn(*session));
    const int failed = outcome.diagnosis.node;
    QCOMPARE(model.index(failed, FxTableModel::Name).data().toString(), QStringLiteral("linear"));
    QCOMPARE(model.index(failed, FxTableModel::Status).data().toString(), QStringLiteral("failed"));
    const auto tint = model.index(failed, FxTableModel::Name).data(Qt::BackgroundRole).value<QBrush>().color();
    QVERIFY2(tint.red() > tint.green(), "the failed row is tinted red");
    // The cast before it ran.
    int done = 0;
    for (int row = 0; row < failed; ++row)
      done += model.index(row, FxTableModel::Status).data().toString() == QStringLiteral("done");
    QVERIFY(done >= 1);
  }

  void clearEmptiesTheModel() {
    FxTableModel model;
    QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
    model.setRows(std::vector<torchir::FxRow>{{"placeholder", "x", "x", "()", "{}"}});
    QCOMPARE(model.rowCount(), 1);
    model.clear();
    QCOMPARE(model.rowCount(), 0);
  }
};

QTEST_GUILESS_MAIN(TestFxTableModel)
#include "tst_fxtablemodel.moc"
