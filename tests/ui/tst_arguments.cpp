// ArgumentsModel and ArgumentsPanel over real runs: what a call received, where each argument came
// from, and which tensors do not match.
#include <QAbstractItemModelTester>
#include <QFontDatabase>
#include <QLabel>
#include <QSignalSpy>
#include <QTreeView>
#include <QtTest>

#include "Fixtures.h"
#include "exec/AtenBackend.h"
#include "exec/Session.h"
#include "panels/ArgumentsModel.h"
#include "panels/ArgumentsPanel.h"
#include "formats/ProgramLoader.h"
#include "formats/Safetensors.h"

using torchir::ui::ArgumentsModel;
using torchir::ui::ArgumentsPanel;

namespace {

torchir::Program load(const char* name) {
  return torchir::loadProgram(torchir::test::fixturePath(QLatin1String(name), QStringLiteral(".pt2")).toStdString());
}

std::vector<torchir::TensorData> inputsOf(const QString& path) {
  const torchir::TensorMap m = torchir::readSafetensors(path.toStdString());
  std::vector<torchir::TensorData> out;
  for (std::size_t i = 0; m.count("input_" + std::to_string(i)); ++i) out.push_back(m.at("input_" + std::to_string(i)));
  return out;
}

QModelIndex group(const ArgumentsModel& m, int g) { return m.index(g, 0); }

QString cell(const ArgumentsModel& m, int g, int row, int column) {
  return m.index(row, column, group(m, g)).data().toString();
}

// The row of the argument named `name`, or -1.
int argumentRow(const ArgumentsModel& m, const QString& name) {
  const QModelIndex args = group(m, ArgumentsModel::ArgumentsGroup);
  for (int r = 0; r < m.rowCount(args); ++r)
    if (m.index(r, ArgumentsModel::Name, args).data().toString() == name) return r;
  return -1;
}

void dump(const ArgumentsModel& m) {
  for (int g = 0; g < m.rowCount(); ++g)
    for (int r = 0; r < m.rowCount(group(m, g)); ++r) {
      QStringList cells;
      for (int c = 0; c < ArgumentsModel::ColumnCount; ++c) cells << cell(m, g, r, c);
      qInfo().noquote() << cells.join(QStringLiteral(" | "));
    }
}

}  // namespace

class TestArguments : public QObject {
  Q_OBJECT

 private Q_SLOTS:
  void initTestCase() { TORCHIR_REQUIRE_FIXTURES(); }

  void firstConvOfResnet18AfterOneStep() {
    const torchir::Program program = load("resnet18");
    auto session = torchir::atenBackend().createSession(program);
    QVERIFY(session->setInputs(program.sampleInputs).ok());
    const torchir::NodeId conv = session->position();
    QCOMPARE(QString::fromStdString(program.node(conv).target), QStringLiteral("aten.conv2d.default"));
    QCOMPARE(session->step().reason, torchir::StopReason::Stepped);
    const torchir::NodeRecord* record = session->record(conv);
    QVERIFY(record);

    ArgumentsModel model;
    QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
    model.setNode(program, conv, record, nullptr);
    dump(model);  // the rows in the log make a failure here readable

    QCOMPARE(model.rowCount(), 2);
    QCOMPARE(model.index(0, 0).data().toString(), QStringLiteral("Arguments"));
    QCOMPARE(model.index(1, 0).data().toString(), QStringLiteral("Outputs"));
    const QModelIndex args = group(model, ArgumentsModel::ArgumentsGroup);
    const QStringList names{"input", "weight", "bias", "stride", "padding", "dilation", "groups"};
    // as the schema spells them: aten::conv2d(Tensor input, ..., SymInt[2] stride=1, ...)
    const QStringList types{"Tensor", "Tensor", "Tensor?", "SymInt[2]", "SymInt[2]", "SymInt[2]", "SymInt"};
    QCOMPARE(model.rowCount(args), names.size());
    for (int r = 0; r < names.size(); ++r) {
      QCOMPARE(cell(model, 0, r, ArgumentsModel::Name), names[r]);
      QCOMPARE(cell(model, 0, r, ArgumentsModel::Type), types[r]);
    }
    // Sources: graph values by name, values the export gave, schema defaults.
    QCOMPARE(cell(model, 0, 0, ArgumentsModel::Source), QStringLiteral("input (x)"));
    QCOMPARE(cell(model, 0, 1, ArgumentsModel::Source), QStringLiteral("input (p_conv1_weight)"));
    QVERIFY(cell(model, 0, 3, ArgumentsModel::Source).startsWith(QStringLiteral("attribute")));
    QVERIFY(cell(model, 0, 5, ArgumentsModel::Source).contains(QStringLiteral("default")));
    QVERIFY(cell(model, 0, 6, ArgumentsModel::Source).contains(QStringLiteral("default")));
    // Values, shapes and strides of what ran.
    QCOMPARE(cell(model, 0, 1, ArgumentsModel::Shape), QStringLiteral("[64, 3, 7, 7]"));
    QCOMPARE(cell(model, 0, 1, ArgumentsModel::Strides), QStringLiteral("[147, 49, 7, 1]"));
    QCOMPARE(cell(model, 0, 1, ArgumentsModel::DType), QStringLiteral("float32"));
    QCOMPARE(cell(model, 0, 1, ArgumentsModel::Device), QStringLiteral("cpu"));
    QCOMPARE(cell(model, 0, 0, ArgumentsModel::Shape), QStringLiteral("[1, 3, 64, 64]"));
    QCOMPARE(cell(model, 0, 2, ArgumentsModel::Value), QStringLiteral("None"));
    QCOMPARE(cell(model, 0, 3, ArgumentsModel::Value), QStringLiteral("[2, 2]"));
    QCOMPARE(cell(model, 0, 6, ArgumentsModel::Value), QStringLiteral("1"));
    QVERIFY(cell(model, 0, 3, ArgumentsModel::Shape).isEmpty());
    // The output, as recorded.
    QCOMPARE(model.rowCount(group(model, ArgumentsModel::OutputsGroup)), 1);
    QCOMPARE(cell(model, 1, 0, ArgumentsModel::Shape), QStringLiteral("[1, 64, 32, 32]"));
    // One dtype, one device: nothing is marked.
    for (int r = 0; r < model.rowCount(args); ++r)
      QVERIFY(!model.index(r, ArgumentsModel::Name, args).data(Qt::BackgroundRole).isValid());

    // Tensor rows map to graph values; scalars to nothing.
    QCOMPARE(model.valueAt(model.index(1, ArgumentsModel::Value, args)), program.findValue("p_conv1_weight"));
    QCOMPARE(model.valueAt(model.index(0, 0, args)), program.findValue("x"));
    QVERIFY(!model.valueAt(model.index(3, 0, args)));
    QVERIFY(!model.valueAt(model.index(0, 0)));
    QCOMPARE(model.valueAt(model.index(0, 0, group(model, ArgumentsModel::OutputsGroup))),
             std::optional<torchir::ValueId>(program.node(conv).outputs.at(0)));
  }

  void condShowsWhatRanInsideItsBranch() {
    const torchir::Program program = load("cond_branch");
    auto session = torchir::atenBackend().createSession(program);
    // The negated sample sums above zero: the true branch, x * w + 1.
    QVERIFY(session->setInputs(inputsOf(torchir::test::fixturePath(QStringLiteral("cond_branch"),
                                                                   QStringLiteral(".alt_inputs.safetensors")))).ok());
    QCOMPARE(session->run().reason, torchir::StopReason::Finished);
    const torchir::NodeId cond = *program.findNode("cond");
    ArgumentsModel model;
    QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
    model.setNode(program, cond, session->record(cond), nullptr);
    dump(model);
    QCOMPARE(model.rowCount(), 3);
    const QModelIndex inside = group(model, ArgumentsModel::InsideGroup);
    QCOMPARE(inside.data().toString(), QStringLiteral("Inside"));
    QCOMPARE(model.rowCount(inside), 2);
    QCOMPARE(cell(model, ArgumentsModel::InsideGroup, 0, ArgumentsModel::Name), QStringLiteral("mul"));
    QCOMPARE(cell(model, ArgumentsModel::InsideGroup, 0, ArgumentsModel::Type), QStringLiteral("aten.mul.Tensor"));
    QCOMPARE(cell(model, ArgumentsModel::InsideGroup, 0, ArgumentsModel::Source), QStringLiteral("true_graph_0"));
    QCOMPARE(cell(model, ArgumentsModel::InsideGroup, 1, ArgumentsModel::Shape), QStringLiteral("[2, 4]"));
    QCOMPARE(cell(model, ArgumentsModel::InsideGroup, 1, ArgumentsModel::DType), QStringLiteral("float32"));
    // The subgraph's values are not the main graph's: nothing to open in the tensor viewer.
    QVERIFY(!model.valueAt(model.index(1, 0, inside)));

    // A plain op has no "Inside".
    const torchir::NodeId gt = *program.findNode("gt");
    model.setNode(program, gt, session->record(gt), nullptr);
    QCOMPARE(model.rowCount(), 2);
  }

  void mixedPrecisionFailureMarksInputAndWeight() {
    const torchir::Program program = load("mixed_precision");
    auto session = torchir::atenBackend().createSession(program);
    QVERIFY(session->setInputs(inputsOf(torchir::test::fixturePath(
                                   QStringLiteral("mixed_precision"), QStringLiteral(".inputs_fp16.safetensors"))))
                .ok());
    const torchir::StepOutcome outcome = session->run();
    QCOMPARE(outcome.reason, torchir::StopReason::Failed);
    const torchir::Diagnosis& d = outcome.diagnosis;

    ArgumentsModel model;
    QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
    model.setNode(program, d.node, session->record(d.node), &d);
    dump(model);
    const QModelIndex args = group(model, ArgumentsModel::ArgumentsGroup);
    const int input = argumentRow(model, QStringLiteral("input"));
    const int weight = argumentRow(model, QStringLiteral("weight"));
    QVERIFY(input >= 0 && weight >= 0);
    QCOMPARE(cell(model, 0, input, ArgumentsModel::DType), QStringLiteral("float16"));
    QCOMPARE(cell(model, 0, weight, ArgumentsModel::DType), QStringLiteral("float32"));
    for (int r : {input, weight}) {
      QVERIFY(model.index(r, ArgumentsModel::DType, args).data(Qt::BackgroundRole).isValid());
      const QString why = model.index(r, ArgumentsModel::Name, args).data(Qt::ToolTipRole).toString();
      QVERIFY2(why.contains(QStringLiteral("float16")) && why.contains(QStringLiteral("float32")), qPrintable(why));
    }
    QVERIFY(model.highlightReason(model.index(input, 0, args)).contains(QStringLiteral("'input' is float16")));
    // The failed call produced nothing to open.
    const QModelIndex outs = group(model, ArgumentsModel::OutputsGroup);
    QVERIFY(model.rowCount(outs) >= 1);
    QVERIFY(!model.valueAt(model.index(0, 0, outs)));
    QVERIFY(cell(model, 1, 0, ArgumentsModel::Source).contains(QStringLiteral("failed")));

    // The panel says so, with the schema the failed call went through.
    ArgumentsPanel panel;
    panel.showNode(program, d.node, session->record(d.node), &d);
    QCOMPARE(panel.findChild<QLabel*>(QStringLiteral("nodeStatus"))->text(), QStringLiteral("failed"));
    QCOMPARE(panel.findChild<QLabel*>(QStringLiteral("schemaLabel"))->text(), QString::fromStdString(d.schema));
  }

  void nodeNotRunYetShowsTheExport() {
    const torchir::Program program = load("mlp");
    const torchir::NodeId linear = *program.findNode("linear");
    ArgumentsModel model;
    QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
    model.setNode(program, linear, nullptr, nullptr);
    dump(model);
    const QModelIndex args = group(model, ArgumentsModel::ArgumentsGroup);
    QCOMPARE(model.rowCount(args), int(program.node(linear).inputs.size()));
    const int weight = argumentRow(model, QStringLiteral("weight"));
    QVERIFY(weight >= 0);
    QCOMPARE(cell(model, 0, weight, ArgumentsModel::Source), QStringLiteral("not run yet"));
    QCOMPARE(cell(model, 0, weight, ArgumentsModel::Type), QStringLiteral("Tensor"));
    QCOMPARE(cell(model, 0, weight, ArgumentsModel::Shape), QStringLiteral("[32, 16]"));
    QCOMPARE(cell(model, 0, weight, ArgumentsModel::DType), QStringLiteral("float32"));
    QCOMPARE(model.valueAt(model.index(weight, 0, args)), program.findValue("p_fc1_weight"));
    QCOMPARE(cell(model, 1, 0, ArgumentsModel::Shape), QStringLiteral("[2, 32]"));
    QCOMPARE(cell(model, 1, 0, ArgumentsModel::Source), QStringLiteral("not run yet"));

    model.clear();
    QCOMPARE(model.rowCount(), 0);
  }

  void panelShowsTheCallAndRequestsTensors() {
    const torchir::Program program = load("mlp");
    auto session = torchir::atenBackend().createSession(program);
    QVERIFY(session->setInputs(program.sampleInputs).ok());
    const torchir::NodeId linear = session->position();
    QCOMPARE(session->step().reason, torchir::StopReason::Stepped);
    const torchir::NodeRecord* record = session->record(linear);
    QVERIFY(record);

    ArgumentsPanel panel;
    QAbstractItemModelTester tester(panel.model(), QAbstractItemModelTester::FailureReportingMode::QtTest);
    panel.resize(800, 400);
    panel.show();
    panel.showNode(program, linear, record, nullptr);

    auto* schema = panel.findChild<QLabel*>(QStringLiteral("schemaLabel"));
    QVERIFY(schema);
    QCOMPARE(schema->text(), QString::fromStdString(record->schema));
    QVERIFY(schema->text().contains(QStringLiteral("linear(Tensor input")));
    QVERIFY(schema->wordWrap());
    QVERIFY(schema->textInteractionFlags() & Qt::TextSelectableByMouse);
    QVERIFY(schema->font().fixedPitch() || schema->font().styleHint() == QFont::Monospace ||
            schema->font().family() == QFontDatabase::systemFont(QFontDatabase::FixedFont).family());
    auto* status = panel.findChild<QLabel*>(QStringLiteral("nodeStatus"));
    QVERIFY(status && status->text().startsWith(QStringLiteral("ran in ")));
    QVERIFY(status->text().endsWith(QStringLiteral(" µs")));
    auto* title = panel.findChild<QLabel*>(QStringLiteral("nodeTitle"));
    QVERIFY(title && title->text().contains(QStringLiteral("linear")) &&
            title->text().contains(QStringLiteral("aten.linear.default")));

    auto* view = panel.findChild<QTreeView*>(QStringLiteral("argumentsView"));
    QVERIFY(view);
    QVERIFY(view->isExpanded(panel.model()->index(0, 0)));
    QVERIFY(view->isExpanded(panel.model()->index(1, 0)));

    QSignalSpy requested(&panel, &ArgumentsPanel::tensorRequested);
    const QModelIndex args = panel.model()->index(ArgumentsModel::ArgumentsGroup, 0);
    const int weight = argumentRow(*panel.model(), QStringLiteral("weight"));
    view->setFocus();
    view->setCurrentIndex(panel.model()->index(weight, ArgumentsModel::Name, args));
    QTest::keyClick(view, Qt::Key_Return);
    QCOMPARE(requested.size(), 1);
    QCOMPARE(requested.at(0).at(0).value<torchir::ValueId>(), *program.findValue("p_fc1_weight"));
    QCOMPARE(requested.at(0).at(1).toString(), QStringLiteral("linear.weight"));

    // A scalar row asks for nothing.
    requested.clear();
    const QModelIndex out = panel.model()->index(0, ArgumentsModel::Name,
                                                 panel.model()->index(ArgumentsModel::OutputsGroup, 0));
    view->setCurrentIndex(panel.model()->index(0, 0));
    QTest::keyClick(view, Qt::Key_Return);
    QCOMPARE(requested.size(), 0);
    // Double-click on the output opens it.
    const QRect rect = view->visualRect(out);
    // A double-click is a press, then the double-click event on the same item.
    QTest::mousePress(view->viewport(), Qt::LeftButton, {}, rect.center());
    QTest::mouseDClick(view->viewport(), Qt::LeftButton, {}, rect.center());
    QCOMPARE(requested.size(), 1);
    QCOMPARE(requested.at(0).at(0).value<torchir::ValueId>(), program.node(linear).outputs.at(0));

    // Not run, then failed status words.
    panel.showNode(program, *program.findNode("relu"), nullptr, nullptr);
    QCOMPARE(status->text(), QStringLiteral("not run"));
    panel.clear();
    QCOMPARE(panel.model()->rowCount(), 0);
  }
};

QTEST_MAIN(TestArguments)
#include "tst_arguments.moc"
