// torch's own catalogue of export features (ExportDB), as the test environment's torch writes it
// (tests/fixtures/make_exportdb.py): each example's FX table against torch.export.load's, and its
// run against ep.module()'s outputs at one thread, bit for bit.
#include <QtTest>
#include <cstring>
#include <map>

#include "../program/FixtureZoo.h"
#include "RunComparison.h"
#include "formats/ProgramLoader.h"

using namespace torchir;
using namespace torchir::test;

namespace {

std::string exampleFile(const std::string& name, const std::string& suffix) {
  return fixturesDir() + "/exportdb/" + name + "/" + name + suffix;
}

void addExampleRows() {
  QTest::addColumn<QString>("name");
  QTest::addColumn<QString>("notExported");  // torch's error, empty when it exported
  QTest::addColumn<bool>("tensorInputs");
  QTest::addColumn<QString>("eagerError");
  const auto manifest = readJson(fixturesDir() + "/exportdb/manifest.json");
  for (const auto& e : manifest.at("examples")) {
    const std::string name = e.at("name");
    QTest::newRow(name.c_str()) << QString::fromStdString(name) << QString::fromStdString(e.value("error", ""))
                                << e.at("tensor_inputs").get<bool>()
                                << QString::fromStdString(e.value("eager_error", ""));
  }
}

/// A 0-d int64 tensor holding `value`, as `torch.tensor(value)` makes one.
TensorData int64Scalar(int64_t value) {
  auto bytes = std::make_shared<std::vector<std::byte>>(sizeof value);
  std::memcpy(bytes->data(), &value, sizeof value);
  auto storage = std::make_shared<Storage>();
  storage->data = bytes->data();
  storage->nbytes = bytes->size();
  storage->owner = bytes;
  TensorData t;
  t.dtype = DType::Int64;
  t.storage = std::move(storage);
  return t;
}

}  // namespace

class ExportDbTest : public QObject {
  Q_OBJECT
 private Q_SLOTS:
  void initTestCase() { atenBackend().setThreads(1); }

  void tableIsTorchs_data() { addExampleRows(); }
  void tableIsTorchs() {
    QFETCH(QString, name);
    QFETCH(QString, notExported);
    if (!notExported.isEmpty()) QSKIP(qPrintable("torch does not export it: " + notExported));
    const std::string n = name.toStdString();
    std::string mismatch;
    try {
      mismatch = fxTableMismatchWith(loadProgram(exampleFile(n, ".pt2")), exampleFile(n, ".table.json"));
    } catch (const std::exception& e) {
      mismatch = std::string("not loaded: ") + e.what();
    }
    QVERIFY2(mismatch.empty(), mismatch.c_str());
  }

  void runIsEagers_data() { addExampleRows(); }
  void runIsEagers() {
    QFETCH(QString, name);
    QFETCH(QString, notExported);
    QFETCH(bool, tensorInputs);
    QFETCH(QString, eagerError);
    if (!notExported.isEmpty()) QSKIP(qPrintable("torch does not export it: " + notExported));
    if (!tensorInputs) QSKIP("a user input is not a tensor: no inputs file holds it yet");
    if (!eagerError.isEmpty()) QSKIP(qPrintable("ep.module() fails on the example itself: " + eagerError));
    const std::string n = name.toStdString();
    std::string problem;
    try {
      const Program program = loadProgram(exampleFile(n, ".pt2"));
      auto session = atenBackend().createSession(program);
      if (const Diagnosis in = session->setInputs(inputsOf(exampleFile(n, ".inputs.safetensors"))); !in.ok())
        problem = "inputs refused: " + in.message;
      else if (const StepOutcome end = session->run(); end.reason != StopReason::Finished)
        problem = "stopped at node '" + end.diagnosis.nodeName + "': " + end.diagnosis.message;
      else
        problem = outputsMismatch(*session, exampleFile(n, ".outputs.safetensors"));
    } catch (const std::exception& e) {
      problem = std::string("not run: ") + e.what();
    }
    QVERIFY2(problem.empty(), problem.c_str());
  }

  // A runtime assertion the export recorded that does not hold (constrain_as_value_example checks
  // x.item() <= 5) is a diagnosis at its node: the expression in torch's words, and the value the
  // test was made of with the node that made it.
  void aRuntimeAssertionThatFailsIsADiagnosis() {
    const std::string n = "constrain_as_value_example";
    if (!QFileInfo::exists(QString::fromStdString(exampleFile(n, ".pt2")))) QSKIP("this torch's ExportDB lacks it");
    const Program program = loadProgram(exampleFile(n, ".pt2"));
    auto session = atenBackend().createSession(program);
    auto inputs = inputsOf(exampleFile(n, ".inputs.safetensors"));
    QVERIFY(!inputs.empty());
    inputs[0] = int64Scalar(10);
    QVERIFY(session->setInputs(inputs).ok());
    const StepOutcome end = session->run();
    QCOMPARE(end.reason, StopReason::Failed);
    QCOMPARE(end.diagnosis.kind, DiagnosisClass::SymbolOutOfRange);
    QVERIFY2(end.diagnosis.nodeName.rfind("_assert_scalar", 0) == 0, end.diagnosis.nodeName.c_str());
    const QString why = QString::fromStdString(end.diagnosis.explanation);
    QVERIFY2(why.contains("u0 <= 5") && why.contains("item = 10") && why.contains("at node 'item'"), qPrintable(why));
  }
};

QTEST_GUILESS_MAIN(ExportDbTest)
#include "ExportDbTest.moc"
