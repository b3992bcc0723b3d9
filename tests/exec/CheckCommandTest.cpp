// torchir check: what would stop a run, found without running, on every fixture and on the cases
// that stop one (meta exports, dynamic shapes, float16 weights and inputs, ops the dispatcher lacks).
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QTemporaryDir>
#include <QtTest>

#include "../program/FixtureZoo.h"
#include "CliProcess.h"
#include "exec/AtenBackend.h"
#include "check/ProgramCheck.h"
#include "exec/Session.h"
#include "formats/CompanionFiles.h"
#include "formats/ProgramLoader.h"
#include "formats/Safetensors.h"

using namespace torchir;
using namespace torchir::test;

namespace {

/// A higher-order op (an op type without a dot: `cond`, `auto_functionalized_v2`).
bool hasHigherOrderOp(const Program& p) {
  for (const auto& n : p.nodes)
    if (isOpNode(n) && n.target.find('.') == std::string::npos) return true;
  return false;
}

Ran check(const QStringList& args) { return runTorchir(QStringList{"check"} + args); }

/// The problems `torchir check --json` lists, as "severity kind node".
QStringList problemsOf(const Ran& r) {
  QStringList out;
  for (const auto& p : QJsonDocument::fromJson(r.out).object()["problems"].toArray()) {
    const QJsonObject o = p.toObject();
    out << o["severity"].toString() + " " + o["kind"].toString() + " " + o["node"].toString();
  }
  return out;
}

}  // namespace

class CheckCommandTest : public QObject {
  Q_OBJECT
 private Q_SLOTS:
  // Every fixture, .pt2 and IR JSON, checked as the command checks it (in this process: seventy
  // runs of the command add nothing the cases below do not show): it would stop a run exactly
  // where a run stops (eager fails, an op only Python has, no weight data).
  void eachFixture_data() { addFixtureRows(); }
  void eachFixture() {
    QFETCH(QString, name);
    QFETCH(bool, meta);
    QFETCH(bool, ir);
    QFETCH(bool, eagerFails);
    QFETCH(bool, customOp);
    const std::string n = name.toStdString();
    for (const std::string suffix : {".pt2", ".ir.json"}) {
      const bool isIr = suffix == ".ir.json";
      if (isIr && !ir) continue;
      const std::string path = fixturePath(n, suffix);
      const Program program = loadProgram(path, withCompanionFiles(path, {}));
      // an IR JSON finds the data a meta export lacks next to it; it keeps no subgraphs, so a
      // higher-order op cannot run from it
      const bool noData = meta && !(isIr && fixtureHas(n, ".weights.safetensors"));
      const bool expected = noData || eagerFails || customOp || (isIr && hasHigherOrderOp(program));
      const auto session = atenBackend().createSession(program);
      const std::vector<Problem> problems = checkProgram(program, *session);
      std::string listed;
      for (const Problem& p : problems) listed += std::string(severityName(p.severity)) + " " + p.kind + ": " + p.message + "\n";
      QVERIFY2(stopsARun(problems) == expected, (n + suffix + ":\n" + listed).c_str());
    }
    // and the command says the same, with its exit code, for one that runs and one that does not
    if (n == "mlp" || n == "meta_mlp") {
      const Ran r = check({fixture(n.c_str(), ".pt2"), "--json"});
      QCOMPARE(r.exitCode, meta ? 1 : 0);
      QCOMPARE(QJsonDocument::fromJson(r.out).object()["stops_a_run"].toBool(), meta);
    }
  }

  void metaExportListsEachWeightWithoutData() {
    const Ran r = check({fixture("meta_mlp", ".pt2"), "--json"});
    QCOMPARE(r.exitCode, 1);
    QCOMPARE(problemsOf(r), QStringList({"error missing data p_fc1_bias", "error missing data p_fc1_weight",
                                         "error missing data p_fc2_bias", "error missing data p_fc2_weight"}));
    // a lifted constant is supplied with --constants
    const Ran constant = check({fixture("meta_lifted_constant", ".pt2")});
    QVERIFY2(constant.out.contains("node 'c_mask': missing data: 'mask' has no data") &&
                 constant.out.contains("--constants FILE"),
             constant.out.constData());
    // with the data given, nothing stops a run
    const Ran given = check({fixture("meta_lifted_constant", ".pt2"), "--weights",
                             fixture("meta_lifted_constant", ".weights.safetensors"), "--constants",
                             fixture("meta_lifted_constant", ".constants.safetensors")});
    QVERIFY2(given.exitCode == 0, given.out.constData());
  }

  void dynamicShapesHaveTheirRangesAndInputsOutsideThemStop() {
    const Ran r = check({fixture("dynamic_batch", ".pt2")});
    QCOMPARE(r.exitCode, 0);
    QVERIFY2(r.out.contains("input 'x' dimension 0 is s77, in [1, 64] (exported at 4)"), r.out.constData());
    QVERIFY2(r.out.contains("pytorch-ir's conversion refuses it: Dynamic shape detected in node 'x'"), r.out.constData());

    QTemporaryDir dir;
    const QString big = dir.filePath("big.safetensors");
    TensorData x = readSafetensors(fixturePath("dynamic_batch", ".inputs.safetensors")).at("input_0");
    const std::size_t rowBytes = x.contiguousBytes().size() / static_cast<std::size_t>(x.sizes[0]);
    auto bytes = std::make_shared<std::vector<std::byte>>(rowBytes * 100);
    auto storage = std::make_shared<Storage>();
    storage->data = bytes->data();
    storage->nbytes = bytes->size();
    storage->owner = bytes;
    TensorData hundred{x.dtype, {100, x.sizes[1]}, TensorData::contiguousStrides({100, x.sizes[1]}), 0, storage, nullptr};
    writeSafetensors(big.toStdString(), {{"input_0", hundred}});
    const Ran outside = check({fixture("dynamic_batch", ".pt2"), "--inputs", big, "--json"});
    QCOMPARE(outside.exitCode, 1);
    QVERIFY2(problemsOf(outside).contains("error symbolic dimension out of range x"), outside.out.constData());
  }

  void otherDtypesOfWeightsAndInputsStop() {
    const Ran weights = check({fixture("mlp", ".pt2"), "--weights", fixture("mlp", ".half_weights.safetensors")});
    QCOMPARE(weights.exitCode, 1);
    QVERIFY2(weights.out.contains("'fc1.weight' is float16 in the weights given, float32 in the export") &&
                 weights.out.contains("--cast-weights"),
             weights.out.constData());
    // where the run would stop: the first layer meets float32 x and the float16 weights
    QVERIFY2(weights.out.contains("error: node 'linear': dtype mismatch: aten.linear.default takes 'x' float32 and "
                                  "'p_fc1_weight' float16 (as given)"),
             weights.out.constData());
    const Ran inputs = check({fixture("mixed_precision", ".pt2"), "--inputs",
                              fixture("mixed_precision", ".inputs_fp16.safetensors"), "--json"});
    QCOMPARE(inputs.exitCode, 1);
    QCOMPARE(problemsOf(inputs), QStringList({"error dtype mismatch linear", "warning input dtype x"}));
    // x.half() before a float32 layer, as export recorded it
    const Ran half = check({fixture("half_before_linear", ".pt2"), "--json"});
    QCOMPARE(problemsOf(half), QStringList({"error dtype mismatch linear"}));
  }

  // A dtype that differs from the export's stops a run only where it meets another at a matmul
  // or a convolution: float16 inputs through an elementwise-only program run.
  void otherDtypesStopOnlyWhereTheyMeet() {
    QTemporaryDir dir;
    const QString half = dir.filePath("half.safetensors");
    const TensorData x = readSafetensors(fixturePath("nan_from_sqrt", ".inputs.safetensors")).at("input_0");
    const std::vector<std::byte> f32 = x.contiguousBytes();
    auto bytes = std::make_shared<std::vector<std::byte>>(f32.size() / 2, std::byte{0});  // float16 zeros
    auto storage = std::make_shared<Storage>();
    storage->data = bytes->data();
    storage->nbytes = bytes->size();
    storage->owner = bytes;
    writeSafetensors(half.toStdString(),
                     {{"input_0", TensorData{DType::Float16, x.sizes, TensorData::contiguousStrides(x.sizes), 0, storage, nullptr}}});
    const Ran r = check({fixture("nan_from_sqrt", ".pt2"), "--inputs", half, "--json"});
    QCOMPARE(r.exitCode, 0);  // mul, sub, sqrt, add: each takes float16 as it is
    QCOMPARE(problemsOf(r), QStringList({"warning input dtype x"}));
  }

  void opsTheDispatcherLacksAreNamed() {
    const Ran r = check({fixture("custom_inplace", ".pt2")});
    QCOMPARE(r.exitCode, 1);
    QVERIFY2(r.out.contains("node 'auto_functionalized_v2': op not found") && r.out.contains("torchir_test::add_one_"),
             r.out.constData());
  }

  void unusableInputExitsTwo() {
    const Ran r = check({QString::fromStdString(fixturesDir() + "/bad/truncated.pt2")});
    QCOMPARE(r.exitCode, 2);
    QVERIFY2(r.err.startsWith("error: ") && r.err.count('\n') == 1, r.err.constData());
  }
};

QTEST_GUILESS_MAIN(CheckCommandTest)
#include "CheckCommandTest.moc"
