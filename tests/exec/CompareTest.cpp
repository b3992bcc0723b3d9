// Two runs in lockstep (compare/PairedRun) on programs whose answer is known: a cancellation, a
// NaN, an overflow, two exports that differ in one op; the stops; and `torchir compare` as users
// call it (exit codes, JSON, CSV).
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QTemporaryDir>
#include <QtTest>
#include <cmath>
#include <cstring>

#include "../program/FixtureZoo.h"
#include "CliProcess.h"
#include "RunComparison.h"
#include "compare/PairedRun.h"
#include "formats/ProgramLoader.h"
#include "formats/WeightsFile.h"

using namespace torchir;
using namespace torchir::test;

namespace {

TensorData tensorOf(const std::vector<float>& values) {
  auto bytes = std::make_shared<std::vector<std::byte>>(values.size() * sizeof(float));
  std::memcpy(bytes->data(), values.data(), bytes->size());
  TensorData t;
  t.dtype = DType::Float32;
  t.sizes = {static_cast<int64_t>(values.size())};
  t.strides = {1};
  t.storage = std::make_shared<Storage>(Storage{bytes->data(), bytes->size(), bytes, "test"});
  return t;
}

/// Fixture `name` run against itself at float64, on its inputs file.
struct Shadowed {
  Program program;
  std::unique_ptr<Session> a, b;
  std::unique_ptr<PairedRun> run;

  /// `weightCacheBytes`: the most bytes of float64 weights the shadow holds at once (0: its default).
  explicit Shadowed(const char* name, CompareOptions options = {}, std::size_t weightCacheBytes = 0)
      : program(loadProgram(fixturePath(name, ".pt2"))) {
    atenBackend().setThreads(1);
    a = atenBackend().createSession(program);
    SessionOptions shadow{DType::Float64, "cpu"};
    shadow.weightCacheBytes = weightCacheBytes;
    b = atenBackend().createSession(program, shadow);
    const auto inputs = inputsOf(fixturePath(name, ".inputs.safetensors"));
    QVERIFY(a->setInputs(inputs).ok());
    QVERIFY(b->setInputs(inputs).ok());
    run = std::make_unique<PairedRun>(*a, *b, identityMatching(program), options);
  }
  const NodeComparison& at(const char* node) const {
    const NodeComparison* c = run->comparisonOf(*program.findNode(node));
    if (!c) throw std::runtime_error(std::string("no comparison of ") + node);
    return *c;
  }
  QString nameOf(const NodeComparison* c) const {
    return c ? QString::fromStdString(program.node(c->a).name) : QStringLiteral("(none)");
  }
};

Ran runCli(const QStringList& args) { return runTorchir(args); }

}  // namespace

class CompareTest : public QObject {
  Q_OBJECT
 private Q_SLOTS:
  void metricsOfKnownPairs() {
    const TensorData a = tensorOf({1.0f, 2.0f, 3.0f, 4.0f});
    const TensorMetrics same = compareTensors(a, a);
    QCOMPARE(same.maxAbs, 0.0);
    QCOMPARE(same.cosine, 1.0);
    QVERIFY(std::isinf(same.sqnrDb) && same.sqnrDb > 0);
    const TensorMetrics off = compareTensors(tensorOf({1.0f, 2.0f, 3.0f, 5.0f}), a);
    QCOMPARE(off.maxAbs, 1.0);
    QCOMPARE(off.maxRel, 0.25);  // 1 / max |b|
    QCOMPARE(off.meanAbs, 0.25);
    QVERIFY(std::abs(off.sqnrDb - 10 * std::log10(39.0)) < 1e-12);  // torchao's: |a| is the signal
    QVERIFY(std::abs(off.snrDb - 10 * std::log10(30.0)) < 1e-12);   // ExecuTorch's: |b| is
    QCOMPARE(off.mse, 0.25);
    QCOMPARE(off.l1, 1.0);
    const TensorMetrics inf = compareTensors(tensorOf({1.0f, INFINITY, NAN, 4.0f}), tensorOf({1.0f, INFINITY, 3.0f, 4.0f}));
    QCOMPARE(inf.nonfiniteA, 2);
    QCOMPARE(inf.nonfiniteB, 1);
    QCOMPARE(inf.nonfiniteApart, 1);  // the NaN; inf against inf agrees
    QCOMPARE(inf.compared, 2);
    QVERIFY(!compareTensors(tensorOf({1.0f, 2.0f}), a).comparable());
  }

  // (x + 1e4) - 1e4: the add is right to float32's rounding, the sub shows what that rounding lost.
  void cancellationIsFoundAtItsNode() {
    Shadowed s("cancellation");
    QCOMPARE(s.run->run().reason, StopReason::Finished);
    QCOMPARE(s.nameOf(s.run->firstDivergence()), QStringLiteral("sub"));
    QVERIFY(!s.at("add").diverges);
    QVERIFY(s.at("sub").metrics.maxRel > 1e-2);
    QVERIFY(s.at("mul_1").diverges);
    QVERIFY(!s.at("mul_1").startsDivergence);  // it inherits the sub's error
    QVERIFY(s.at("mul_1").ownRel && *s.at("mul_1").ownRel < 1e-6);
    QVERIFY(!s.run->firstNonfinite());
    // the record the studio keeps takes the user to the same node
    QCOMPARE(s.nameOf(s.run->record("float64", nullptr).firstDivergingNode()), QStringLiteral("sub"));
  }

  void nanIsFoundAtTheOpThatMakesIt() {
    Shadowed s("nan_from_sqrt");
    QCOMPARE(s.run->run().reason, StopReason::Finished);
    QCOMPARE(s.nameOf(s.run->firstNonfinite()), QStringLiteral("sqrt"));
    QVERIFY(s.at("sqrt").metrics.nonfiniteA > 0);
    QVERIFY(!s.at("add").makesNonfinite);  // its NaN comes from its input
    QVERIFY(!s.run->firstDivergence());    // float64 makes the same NaNs
    // the record the studio keeps takes the user where the NaN is made, not past it
    QCOMPARE(s.nameOf(s.run->record("float64", nullptr).firstDivergingNode()), QStringLiteral("sqrt"));
    QStringList slice;
    for (NodeId n : s.run->backwardSlice(s.run->firstNonfinite()->a)) slice << QString::fromStdString(s.program.node(n).name);
    QCOMPARE(slice, (QStringList{"mul", "sub", "sqrt"}));
  }

  void overflowIsFoundWhereItHappens() {
    Shadowed s("exp_overflow");
    QCOMPARE(s.run->run().reason, StopReason::Finished);
    QCOMPARE(s.nameOf(s.run->firstNonfinite()), QStringLiteral("exp"));
    QCOMPARE(s.nameOf(s.run->firstDivergence()), QStringLiteral("exp"));
    QVERIFY(s.at("exp").metrics.nonfiniteApart > 0);
    QVERIFY(s.at("exp").ownRel && std::isinf(*s.at("exp").ownRel));  // float64's exp stays finite
    QVERIFY(!s.at("mul").diverges);
  }

  void stopsAtTheDivergenceThenGoesOn() {
    Shadowed s("cancellation");
    const StepOutcome o = s.run->run(CompareStop::Divergence);
    QCOMPARE(o.reason, StopReason::StopCondition);
    QCOMPARE(o.diagnosis.kind, DiagnosisClass::Divergence);
    QCOMPARE(QString::fromStdString(o.diagnosis.nodeName), QStringLiteral("sub"));
    QVERIFY(s.a->record(*s.program.findNode("sub")));
    QVERIFY(!s.a->record(*s.program.findNode("mul_1")));
    // The next divergence: none starts after it (mul_1 inherits).
    QCOMPARE(s.run->run(CompareStop::Divergence).reason, StopReason::Finished);

    Shadowed n("nan_from_sqrt");
    const StepOutcome bad = n.run->run(CompareStop::Nonfinite);
    QCOMPARE(bad.reason, StopReason::StopCondition);
    QCOMPARE(bad.diagnosis.kind, DiagnosisClass::NanOrInf);
    QCOMPARE(QString::fromStdString(bad.diagnosis.nodeName), QStringLiteral("sqrt"));
  }

  // A healthy float32 network against its float64 shadow: nothing diverges at the default tolerance.
  void healthyProgramDoesNotDiverge() {
    Shadowed s("resnet18");
    QCOMPARE(s.run->run().reason, StopReason::Finished);
    QVERIFY2(!s.run->firstDivergence(), qPrintable(s.nameOf(s.run->firstDivergence())));
    QVERIFY(s.run->nodes().size() > 50);
    double worst = 0;
    for (const auto& c : s.run->nodes()) worst = std::max(worst, c.metrics.maxRel);
    QVERIFY(worst > 0);  // float32 is not float64: the comparison sees the rounding
  }

  // A shadow that may hold one byte of float64 weights makes each when its node needs it and lets
  // it go: every node compares as with all of them held, a weight let go still shows (at float64),
  // and a step back's replay makes them again.
  void aShadowHoldingNoWeightComparesAsOneHoldingAll() {
    Shadowed all("resnet18");
    Shadowed none("resnet18", {}, 1);
    QCOMPARE(all.run->run().reason, StopReason::Finished);
    QCOMPARE(none.run->run().reason, StopReason::Finished);
    QCOMPARE(none.run->nodes().size(), all.run->nodes().size());
    for (std::size_t i = 0; i < all.run->nodes().size(); ++i) {
      const TensorMetrics& x = all.run->nodes()[i].metrics;
      const TensorMetrics& y = none.run->nodes()[i].metrics;
      QCOMPARE(y.maxAbs, x.maxAbs);
      QCOMPARE(y.sqnrDb, x.sqnrDb);
    }
    QCOMPARE(relativeError(none.b->outputs().at(0), all.b->outputs().at(0)), 0.0);

    const InputSpec* conv1 = nullptr;
    for (const auto& s : none.program.inputs)
      if (s.kind == InputKind::Parameter && s.target == "conv1.weight") conv1 = &s;
    QVERIFY(conv1);
    const auto weight = none.b->tensor(conv1->value);  // let go long ago: made again to be shown
    QVERIFY(weight);
    QCOMPARE(weight->dtype, DType::Float64);
    QCOMPARE(relativeError(*weight, *all.b->tensor(conv1->value)), 0.0);

    QCOMPARE(none.b->stepBack().reason, StopReason::Stepped);
    QCOMPARE(none.b->step().reason, StopReason::Finished);
    QCOMPARE(relativeError(none.b->outputs().at(0), all.b->outputs().at(0)), 0.0);
  }

  void twoExportsDifferAtTheChangedOp() {
    const Program v1 = loadProgram(fixturePath("compare_v1", ".pt2"));
    const Program v2 = loadProgram(fixturePath("compare_v2", ".pt2"));
    auto a = atenBackend().createSession(v1);
    auto b = atenBackend().createSession(v2);
    const auto inputs = inputsOf(fixturePath("compare_v1", ".inputs.safetensors"));
    QVERIFY(a->setInputs(inputs).ok());
    QVERIFY(b->setInputs(inputs).ok());
    PairedRun run(*a, *b, matchNodes(v1, v2));
    QCOMPARE(run.run().reason, StopReason::Finished);
    const NodeComparison* first = run.firstDivergence();
    QVERIFY(first);
    QCOMPARE(QString::fromStdString(v1.node(first->a).name), QStringLiteral("mul"));
    QVERIFY(first->ownRel && std::abs(*first->ownRel - 0.2) < 1e-6);  // 2.0 against 2.5
    QCOMPARE(run.comparisonOf(*v1.findNode("linear"))->metrics.maxAbs, 0.0);
    QVERIFY(run.matching().unmatchedA.empty());
    QCOMPARE(run.matching().unmatchedB.size(), std::size_t{1});
    QCOMPARE(QString::fromStdString(v2.node(run.matching().unmatchedB.front()).target), QStringLiteral("aten.abs.default"));
  }

  // float16 weights for a float32 program: it opens (the weights listed), the run stops at the
  // op that mixes dtypes with the cast as the fix, the cast run finishes, and comparing it with
  // the exported weights' run shows what float16 weights cost.
  void halfWeightsOpenFailWhereTheyMixThenCastAndCompare() {
    const Program half = loadProgram(fixturePath("mlp", ".pt2"), {fixturePath("mlp", ".half_weights.safetensors"), ""});
    const auto other = weightsOfOtherDtype(half);
    QCOMPARE(other.size(), std::size_t{4});
    QCOMPARE(other.front().given, DType::Float16);
    QCOMPARE(other.front().exported, DType::Float32);
    const auto inputs = inputsOf(fixturePath("mlp", ".inputs.safetensors"));

    auto plain = atenBackend().createSession(half);
    QVERIFY(plain->setInputs(inputs).ok());
    const StepOutcome failed = plain->run();
    QCOMPARE(failed.reason, StopReason::Failed);
    QCOMPARE(failed.diagnosis.kind, DiagnosisClass::DtypeMismatch);
    QCOMPARE(QString::fromStdString(failed.diagnosis.nodeName), QStringLiteral("linear"));
    QVERIFY2(failed.diagnosis.explanation.find("'fc1.weight', 'fc1.bias' are float16") != std::string::npos &&
                 failed.diagnosis.explanation.find("--cast-weights") != std::string::npos,
             failed.diagnosis.explanation.c_str());

    SessionOptions cast;
    cast.castWeightsToExport = true;
    auto a = atenBackend().createSession(half, cast);
    const Program exported = loadProgram(fixturePath("mlp", ".pt2"));
    auto b = atenBackend().createSession(exported);
    QVERIFY(a->setInputs(inputs).ok());
    QVERIFY(b->setInputs(inputs).ok());
    PairedRun run(*a, *b, matchNodes(half, exported));
    QCOMPARE(run.run().reason, StopReason::Finished);
    QCOMPARE(run.nodes().size(), std::size_t{3});
    for (const auto& c : run.nodes()) {
      QVERIFY(c.metrics.maxRel > 0);     // float16 weights are not the exported ones
      QVERIFY(c.metrics.maxRel < 1e-2);  // but close: float16's rounding
    }
    const auto eager = readSafetensors(fixturePath("mlp", ".outputs.safetensors"));
    const double err = relativeError(a->outputs().at(0), eager.at("output_0"));
    QVERIFY(err > 0 && err < 1e-2);
  }

  void commandLineReportsAndExits() {
    QTemporaryDir dir;
    const QString csv = dir.filePath("nodes.csv");
    const Ran r = runCli({"compare", fixture("cancellation", ".pt2"), "--inputs", fixture("cancellation", ".inputs.safetensors"),
                           "--json", "--csv", csv});
    QCOMPARE(r.exitCode, 1);
    const QJsonObject j = QJsonDocument::fromJson(r.out).object();
    QCOMPARE(j["first_divergence"].toObject()["name"].toString(), QStringLiteral("sub"));
    QVERIFY(j["first_nonfinite"].isNull());
    const QJsonArray nodes = j["nodes"].toArray();
    QCOMPARE(nodes.size(), 4);
    for (const char* key : {"name", "op", "b_name", "max_abs", "max_rel", "cosine", "sqnr_db", "nonfinite_a",
                            "nonfinite_b", "own_rel"})
      QVERIFY2(nodes[0].toObject().contains(key), key);
    QVERIFY(j["unmatched_a"].toArray().isEmpty() && j["unmatched_b"].toArray().isEmpty());
    QFile f(csv);
    QVERIFY(f.open(QIODevice::ReadOnly));
    const QList<QByteArray> lines = f.readAll().trimmed().split('\n');
    QCOMPARE(lines.size(), 5);
    QVERIFY(lines[0].startsWith("name,op,b_name,max_abs,max_rel"));
    QVERIFY2(lines[3].startsWith("sub,aten.sub.Tensor,sub,") && lines[3].contains(",true,"), lines[3].constData());

    const Ran healthy = runCli({"compare", fixture("mlp", ".pt2"), "--inputs", fixture("mlp", ".inputs.safetensors")});
    QCOMPARE(healthy.exitCode, 0);
    QVERIFY2(healthy.out.contains("first divergence: none"), healthy.out.constData());

    const Ran exports = runCli({"compare", fixture("compare_v1", ".pt2"), fixture("compare_v2", ".pt2"), "--json"});
    QCOMPARE(exports.exitCode, 1);
    const QJsonObject e = QJsonDocument::fromJson(exports.out).object();
    QCOMPARE(e["first_divergence"].toObject()["name"].toString(), QStringLiteral("mul"));
    QCOMPARE(e["unmatched_b"].toArray().size(), 1);

    const Ran nan = runCli({"compare", fixture("nan_from_sqrt", ".pt2"), "--inputs", fixture("nan_from_sqrt", ".inputs.safetensors"), "--json"});
    QCOMPARE(nan.exitCode, 1);
    const QJsonObject bad = QJsonDocument::fromJson(nan.out).object()["first_nonfinite"].toObject();
    QCOMPARE(bad["name"].toString(), QStringLiteral("sqrt"));
    QCOMPARE(bad["slice"].toArray().size(), 3);

    const Ran half = runCli({"run", fixture("mlp", ".pt2"), "--weights", fixture("mlp", ".half_weights.safetensors")});
    QCOMPARE(half.exitCode, 1);
    QVERIFY2(half.err.contains("warning: 4 weights have another dtype than the export") &&
                 half.err.contains("dtype mismatch"),
             half.err.constData());
    const Ran halfCast = runCli({"run", fixture("mlp", ".pt2"), "--weights", fixture("mlp", ".half_weights.safetensors"),
                                 "--cast-weights", "--json"});
    QCOMPARE(halfCast.exitCode, 0);
    QVERIFY(QJsonDocument::fromJson(halfCast.out).object()["weights_of_other_dtype"].toArray()[0].toObject()["cast"].toBool());

    // The same program on other inputs (x and -x): the first op that sees them differs.
    const Ran inputs = runCli({"compare", fixture("cond_branch", ".pt2"), "--inputs", fixture("cond_branch", ".inputs.safetensors"),
                               "--inputs-b", fixture("cond_branch", ".alt_inputs.safetensors"), "--json"});
    QCOMPARE(inputs.exitCode, 1);
    const QJsonObject in = QJsonDocument::fromJson(inputs.out).object();
    QVERIFY(in["reference"].toString().startsWith("inputs "));
    QVERIFY(!in["first_divergence"].isNull());
    QCOMPARE(in["nodes"].toArray()[0].toObject()["max_rel"].toDouble(), 2.0);  // sum(x) against sum(-x)

    const Ran wrong = runCli({"compare", fixture("mlp", ".pt2"), "--against", "int8"});
    QCOMPARE(wrong.exitCode, 2);
    // cuda: compared where a GPU is, said and refused where none is
    const QString problem = QString::fromStdString(atenBackend().deviceProblem("cuda"));
    const Ran cuda = runCli({"compare", fixture("mlp", ".pt2"), "--against", "cuda", "--inputs", fixture("mlp", ".inputs.safetensors")});
    if (problem.isEmpty()) {
      QVERIFY2(cuda.exitCode == 0 || cuda.exitCode == 1, cuda.err.constData());
    } else {
      QCOMPARE(cuda.exitCode, 2);
      QVERIFY2(QString::fromUtf8(cuda.err).contains(problem), cuda.err.constData());
    }
  }
};

QTEST_APPLESS_MAIN(CompareTest)
#include "CompareTest.moc"
