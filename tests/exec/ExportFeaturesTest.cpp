// What torch.export writes, as the test environment's torch writes it: torch's own catalogue of
// export features (ExportDB, tests/fixtures/make_exportdb.py) and programs beyond it (sizes known
// only at run time, scan, map, autocast regions: make_reach.py). Each program's FX table against
// torch.export.load's, and its run against ep.module()'s outputs at one thread, bit for bit, on the
// example's inputs and on others that give other sizes (an empty mask, one row, the largest batch).
#include <QtTest>
#include <cstring>
#include <initializer_list>
#include <map>

#include "../program/FixtureZoo.h"
#include "RunComparison.h"
#include "formats/ProgramLoader.h"

using namespace torchir;
using namespace torchir::test;

namespace {

/// The families of programs, each a folder of the fixtures with a manifest.json.
constexpr const char* kFamilies[] = {"exportdb", "reach"};

std::string programFile(const QString& family, const std::string& name, const std::string& suffix) {
  return fixturesDir() + "/" + family.toStdString() + "/" + name + "/" + name + suffix;
}

/// One row per program, or per program and input (the example's, then each variant's).
void addProgramRows(bool perInput) {
  QTest::addColumn<QString>("family");
  QTest::addColumn<QString>("name");
  QTest::addColumn<QString>("variant");      // empty: the example's inputs
  QTest::addColumn<QString>("notExported");  // torch's error, empty when it exported
  QTest::addColumn<bool>("tensorInputs");
  QTest::addColumn<QString>("eagerError");
  for (const char* family : kFamilies) {
    const auto manifest = readJson(fixturesDir() + "/" + family + "/manifest.json");
    for (const auto& e : manifest.at("examples")) {
      const std::string name = e.at("name");
      std::vector<std::string> variants{""};
      if (perInput)
        for (const auto& v : e.value("variants", nlohmann::json::array())) variants.push_back(v.get<std::string>());
      for (const std::string& variant : variants) {
        const std::string row = std::string(family) + "/" + name + (variant.empty() ? "" : "." + variant);
        QTest::newRow(row.c_str()) << QString(family) << QString::fromStdString(name) << QString::fromStdString(variant)
                                   << QString::fromStdString(e.value("error", "")) << e.at("tensor_inputs").get<bool>()
                                   << QString::fromStdString(e.value("eager_error", ""));
      }
    }
  }
}

/// The row's program and its inputs' suffix ("" or ".VARIANT"); false (the row skipped) for a
/// program torch did not export, one whose inputs no file holds, or one eager fails on.
bool fetchRunnableRow(std::string& program, std::string& inputs) {
  QFETCH(QString, name);
  QFETCH(QString, variant);
  QFETCH(QString, notExported);
  QFETCH(bool, tensorInputs);
  QFETCH(QString, eagerError);
  const auto skip = [](const QString& why) {
    QTest::qSkip(qPrintable(why), __FILE__, __LINE__);
    return false;
  };
  if (!notExported.isEmpty()) return skip("torch does not export it: " + notExported);
  if (!tensorInputs) return skip(QStringLiteral("a user input is not a tensor: no inputs file holds it yet"));
  if (!eagerError.isEmpty()) return skip("ep.module() fails on the example itself: " + eagerError);
  program = name.toStdString();
  inputs = variant.isEmpty() ? "" : "." + variant.toStdString();
  return true;
}

/// Runs `session` on the inputs NAME`inputs`.inputs.safetensors to the end: why it did not give
/// eager's outputs (NAME`inputs`.outputs.safetensors), or "".
std::string runToEagers(Session& session, const QString& family, const std::string& name, const std::string& inputs) {
  if (const Diagnosis in = session.setInputs(inputsOf(programFile(family, name, inputs + ".inputs.safetensors"))); !in.ok())
    return "inputs refused: " + in.message;
  if (const StepOutcome end = session.run(); end.reason != StopReason::Finished)
    return "stopped at node '" + end.diagnosis.nodeName + "': " + end.diagnosis.message;
  return outputsMismatch(session, programFile(family, name, inputs + ".outputs.safetensors"));
}

/// Loads the program and runs it in one session once per inputs suffix, in order, each to eager's
/// outputs: why one did not give them (or could not load or run), or "".
std::string runsInOneSessionToEagers(const QString& family, const std::string& name,
                                     std::initializer_list<std::string> inputsInOrder) {
  try {
    const Program loaded = loadProgram(programFile(family, name, ".pt2"));
    auto session = atenBackend().createSession(loaded);
    for (const std::string& inputs : inputsInOrder)
      if (std::string problem = runToEagers(*session, family, name, inputs); !problem.empty()) return problem;
  } catch (const std::exception& e) {
    return std::string("not run: ") + e.what();
  }
  return "";
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

class ExportFeaturesTest : public QObject {
  Q_OBJECT
 private Q_SLOTS:
  void initTestCase() { atenBackend().setThreads(1); }

  void tableIsTorchs_data() { addProgramRows(false); }
  void tableIsTorchs() {
    QFETCH(QString, family);
    QFETCH(QString, name);
    QFETCH(QString, notExported);
    if (!notExported.isEmpty()) QSKIP(qPrintable("torch does not export it: " + notExported));
    const std::string n = name.toStdString();
    std::string mismatch;
    try {
      mismatch = fxTableMismatchWith(loadProgram(programFile(family, n, ".pt2")), programFile(family, n, ".table.json"));
    } catch (const std::exception& e) {
      mismatch = std::string("not loaded: ") + e.what();
    }
    QVERIFY2(mismatch.empty(), mismatch.c_str());
  }

  void runIsEagers_data() { addProgramRows(true); }
  void runIsEagers() {
    std::string program, inputs;
    if (!fetchRunnableRow(program, inputs)) return;
    QFETCH(QString, family);
    const std::string problem = runsInOneSessionToEagers(family, program, {inputs});
    QVERIFY2(problem.empty(), problem.c_str());
  }

  // A session runs again as a new one would: the example's inputs, then the row's (the example's
  // again, or a variant's), in one session, each to eager's outputs. What a session keeps from a
  // run to the next (a constant node's results) must not carry what the first run wrote.
  void aSecondRunIsEagersToo_data() { addProgramRows(true); }
  void aSecondRunIsEagersToo() {
    std::string program, inputs;
    if (!fetchRunnableRow(program, inputs)) return;
    QFETCH(QString, family);
    const std::string problem = runsInOneSessionToEagers(family, program, {"", inputs});
    QVERIFY2(problem.empty(), problem.c_str());
  }

  // A runtime assertion the export recorded that does not hold (constrain_as_value_example checks
  // x.item() <= 5) is a diagnosis at its node: the expression in torch's words, and the value the
  // test was made of with the node that made it.
  void aRuntimeAssertionThatFailsIsADiagnosis() {
    const QString db = QStringLiteral("exportdb");
    const std::string n = "constrain_as_value_example";
    if (!QFileInfo::exists(QString::fromStdString(programFile(db, n, ".pt2")))) QSKIP("this torch's ExportDB lacks it");
    const Program program = loadProgram(programFile(db, n, ".pt2"));
    auto session = atenBackend().createSession(program);
    auto inputs = inputsOf(programFile(db, n, ".inputs.safetensors"));
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

  // A number the program takes at run time (an int exported with Dim.DYNAMIC) is given as a 0-d
  // tensor; without it, or as anything else, the refusal names the input and says how to give it.
  void aNumberInputComesAsA0dTensor() {
    const QString reach = QStringLiteral("reach");
    const Program program = loadProgram(programFile(reach, "int_input", ".pt2"));
    auto session = atenBackend().createSession(program);
    auto inputs = inputsOf(programFile(reach, "int_input", ".inputs.safetensors"));
    QCOMPARE(inputs.size(), std::size_t{2});  // x and n; the float it was specialised on is not given
    QVERIFY(session->setInputs(inputs).ok());
    const Diagnosis tensorsOnly = session->setInputs({inputs[0]});
    QVERIFY2(QString::fromStdString(tensorsOnly.message).contains("'n' is a number"), tensorsOnly.message.c_str());
    const Diagnosis twoElements = session->setInputs({inputs[0], inputs[0]});
    QCOMPARE(twoElements.nodeName, std::string("n"));
    QVERIFY2(QString::fromStdString(twoElements.message).contains("0-d tensor"), twoElements.message.c_str());
    const Diagnosis random = session->setRandomInputs(0);
    QCOMPARE(random.kind, DiagnosisClass::MissingData);
    QCOMPARE(random.nodeName, std::string("n"));
    QVERIFY(session->setInputs({inputs[0], int64Scalar(2)}).ok());
    QCOMPARE(session->run().reason, StopReason::Finished);
    QCOMPARE(session->outputs().at(0).sizes, (std::vector<int64_t>{2, 3}));  // x[:n]
    // the number's range is the file's (x[:n] of 6 rows: [0, 6]), checked before the run
    QCOMPARE(program.inputSymbols.size(), std::size_t{1});
    for (const int64_t outside : {int64_t{7}, int64_t{-1}}) {
      const Diagnosis d = session->setInputs({inputs[0], int64Scalar(outside)});
      QCOMPARE(d.kind, DiagnosisClass::SymbolOutOfRange);
      QCOMPARE(d.nodeName, std::string("n"));
      QVERIFY2(QString::fromStdString(d.message).contains(QStringLiteral("'n' is %1, outside the range of").arg(outside)),
               d.message.c_str());
      QVERIFY2(QString::fromStdString(d.message).endsWith(QStringLiteral(": [0, 6]")), d.message.c_str());
    }
    QVERIFY(session->setInputs({inputs[0], int64Scalar(6)}).ok());
  }
};

QTEST_GUILESS_MAIN(ExportFeaturesTest)
#include "ExportFeaturesTest.moc"
