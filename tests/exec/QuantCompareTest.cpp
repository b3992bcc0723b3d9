// A quantized program against its float export (tests/fixtures/make_quant_pairs.py, real torchao):
// pairing by provenance, Q/DQ counted as quantization, SQNR equal to torchao's own numeric
// debugger, keep in float, and layer sensitivity on a model whose answer is known.
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QtTest>
#include <cmath>
#include <fstream>
#include <limits>

#include "../program/FixtureZoo.h"
#include "CliProcess.h"
#include "RunComparison.h"
#include "exec/AtenBackend.h"
#include "quant/KeepInFloat.h"
#include "quant/QuantComparison.h"
#include "compare/PairedRun.h"
#include "quant/Sensitivity.h"
#include "formats/ProgramLoader.h"
#include "program/QuantOps.h"

using namespace torchir;
using namespace torchir::test;

namespace {

std::string pairPath(const std::string& name, const std::string& suffix) {
  return fixturesDir() + "/quantpairs/" + name + "/" + name + suffix;
}

/// A quantized program and its float twin, both run to the end in lockstep.
struct Pair {
  Program q, f;
  std::unique_ptr<Session> a, b;
  std::unique_ptr<PairedRun> run;

  explicit Pair(const std::string& name)
      : q(loadProgram(pairPath(name, ".pt2"))), f(loadProgram(pairPath(name, ".float.pt2"))) {
    atenBackend().setThreads(1);
    a = atenBackend().createSession(q);
    b = atenBackend().createSession(f);
    a->setMemoryBudget(std::numeric_limits<std::size_t>::max());
    const auto inputs = inputsOf(pairPath(name, ".inputs.safetensors"));
    if (!a->setInputs(inputs).ok() || !b->setInputs(inputs).ok()) throw std::runtime_error("inputs refused");
    run = std::make_unique<PairedRun>(*a, *b, matchNodes(q, f), CompareOptions{}, quantComparison());
    if (run->run().reason != StopReason::Finished) throw std::runtime_error("the quantized run did not finish");
    if (!b->finished()) b->run();
  }
  const NodeComparison* of(const std::string& node) const {
    const auto id = q.findNode(node);
    return id ? run->comparisonOf(*id) : nullptr;
  }
};

std::string moduleOf(const Program& p, NodeId n) {
  const auto& frames = p.node(n).moduleFrames();
  return frames.empty() ? std::string() : frames.back().path;
}

}  // namespace

class QuantCompareTest : public QObject {
  Q_OBJECT
 private Q_SLOTS:
  void initTestCase() {
    if (!std::ifstream(fixturesDir() + "/quantpairs/manifest.json"))
      QSKIP("no quantpairs fixtures (scripts/fixtures.sh writes them)");
  }

  void pt2eCnnPairsEveryNodeWithItsFloatOriginal() {
    const Program q = loadProgram(pairPath("qp_cnn", ".pt2"));
    const Program f = loadProgram(pairPath("qp_cnn", ".float.pt2"));
    const NodeMatching m = matchNodes(q, f);
    int quantization = 0, modelOps = 0;
    for (const Node& n : q.nodes)
      if (isOpNode(n)) (quantRole(n.target) != QuantRole::None ? quantization : modelOps)++;
    QVERIFY(quantization > 0);
    QCOMPARE(static_cast<int>(m.quantizationA.size()), quantization);  // Q/DQ: quantization, not "only in A"
    QVERIFY(m.unmatchedA.empty());
    QVERIFY(m.unmatchedB.empty());
    QCOMPARE(m.paired(), modelOps);
    QCOMPARE(m.byOrigin, modelOps);  // every pair from the from_node provenance
    QVERIFY(m.twins());
    // the batch norm pt2e folded into the first conv: the conv is compared with the norm's output
    const NodeId conv = *q.findNode("conv2d");
    QCOMPARE(QString::fromStdString(f.node(m.bOf[static_cast<std::size_t>(conv)]).name), QStringLiteral("batch_norm"));
    bool folded = false;
    for (const auto& [nb, na] : m.foldedB) folded = folded || (f.node(nb).name == "batch_norm" && na == conv);
    QVERIFY(folded);
  }

  void sqnrPerNodeIsTorchaosOwn_data() {
    QTest::addColumn<QString>("name");
    QTest::addColumn<int>("inCommon");  // pairs both make (XNNPACK's relu: torchao takes the dequantize after it)
    QTest::newRow("qp_cnn") << "qp_cnn" << 7;
    QTest::newRow("qp_outlier_mlp") << "qp_outlier_mlp" << 3;
  }
  void sqnrPerNodeIsTorchaosOwn() {
    QFETCH(QString, name);
    QFETCH(int, inCommon);
    const Pair p(name.toStdString());
    int same = 0;
    for (const auto& entry : readJson(pairPath(name.toStdString(), ".numeric_debug.json"))) {
      const NodeComparison* c = p.of(entry.at("quant_program_node").get<std::string>());
      // torchao pairs a folded conv with the float conv before its batch norm, and an XNNPACK
      // output's dequantize with its op: only the pairs both make are compared
      if (!c || p.f.node(c->b).name != entry.at("float_node").get<std::string>()) continue;
      const double torchao = entry.at("sqnr").get<double>();
      if (std::abs(c->metrics.sqnrDb - torchao) > 1e-4)
        QFAIL(qPrintable(QString("%1: SQNR %2 dB, torchao's %3 dB")
                             .arg(QString::fromStdString(p.q.node(c->a).name))
                             .arg(c->metrics.sqnrDb, 0, 'g', 10)
                             .arg(torchao, 0, 'g', 10)));
      ++same;
    }
    QVERIFY2(same >= inCommon, qPrintable(QString("only %1 pairs in common with torchao").arg(same)));
  }

  void outlierLayerIsTheMostSensitiveAndLosesMostOnItsOwn() {
    Pair p("qp_outlier_mlp");
    const auto expected = readJson(pairPath("qp_outlier_mlp", ".expected.json"));
    const std::string outlier = expected.at("outlier_layer").get<std::string>();
    const SensitivityResult r = layerSensitivity(*p.a, *p.b, p.run->matching());
    QVERIFY(!r.cancelled);
    QCOMPARE(r.layers.size(), std::size_t{4});
    // the quantized run's output SQNR is the one torchao's flow measured in Python
    QVERIFY(std::abs(r.baselineSqnrDb - expected.at("baseline_sqnr").get<double>()) < 1e-3);
    QCOMPARE(QString::fromStdString(moduleOf(p.q, r.layers[0].node)), QString::fromStdString(outlier));
    QVERIFY(r.layers[0].gainDb > r.layers[1].gainDb + 6);  // by far, not by a rounding
    // its own error (the layer on its float inputs and weights) is the largest: the lowest own SQNR
    double lowest = INFINITY;
    std::string worst;
    std::vector<NodeId> everyNodeLookedAt;  // what quantizedLayers finds from the dequantize nodes' readers
    for (const Node& n : p.q.nodes)
      if (isQuantizedLayer(p.q, n)) everyNodeLookedAt.push_back(n.id);
    QCOMPARE(quantizedLayers(p.q), everyNodeLookedAt);
    QCOMPARE(everyNodeLookedAt.size(), std::size_t{4});
    for (NodeId layer : quantizedLayers(p.q)) {
      const NodeComparison* c = p.run->comparisonOf(layer);
      QVERIFY(c && c->ownSqnrDb);
      if (*c->ownSqnrDb < lowest) lowest = *c->ownSqnrDb, worst = moduleOf(p.q, layer);
    }
    QCOMPARE(QString::fromStdString(worst), QString::fromStdString(outlier));
    // where the error starts: the outlier layer, not the layers before it
    QVERIFY(p.run->firstDivergence());
    QCOMPARE(QString::fromStdString(moduleOf(p.q, p.run->firstDivergence()->a)), QString::fromStdString(outlier));
  }

  /// Each layer's sensitivity (its cone made again from shared values) is what a whole run with
  /// the Keep in Float change gives, in-place ops included (resnet18's add_ and relu_).
  void sensitivityIsAWholeRunWithKeepInFloat_data() {
    QTest::addColumn<QString>("name");
    QTest::newRow("qp_outlier_mlp") << "qp_outlier_mlp";
    QTest::newRow("qp_resnet18") << "qp_resnet18";
  }
  void sensitivityIsAWholeRunWithKeepInFloat() {
    QFETCH(QString, name);
    Pair p(name.toStdString());
    const SensitivityResult r = layerSensitivity(*p.a, *p.b, p.run->matching());
    QVERIFY(!r.layers.empty());
    const auto inputs = inputsOf(pairPath(name.toStdString(), ".inputs.safetensors"));
    int checked = 0;
    for (const LayerSensitivity& l : r.layers) {
      QVERIFY2(l.problem.empty(), l.problem.c_str());
      if (checked >= 8 && &l != &r.layers.back()) continue;  // the best 8 and the worst: enough, and quick
      auto whole = atenBackend().createSession(p.q);
      QVERIFY(whole->setInputs(inputs).ok());
      const auto patches = keepInFloatPatches(p.q, l.node, p.b.get(), &p.run->matching());
      QVERIFY(!patches.empty());
      whole->setPatches(l.node, patches);
      QCOMPARE(whole->run().reason, StopReason::Finished);
      const double sqnr = outputSqnrDb(*whole, *p.b, [&](ValueId v) { return whole->tensorView(v); });
      if (std::abs(sqnr - l.outputSqnrDb) > 1e-9)
        QFAIL(qPrintable(QString("%1 kept in float: %2 dB in a whole run, %3 dB in the sensitivity's")
                             .arg(QString::fromStdString(p.q.node(l.node).name))
                             .arg(sqnr, 0, 'g', 12)
                             .arg(l.outputSqnrDb, 0, 'g', 12)));
      ++checked;
    }
  }

  void commandLineRanksTheOutlierLayerFirst() {
    const QString base = QString::fromStdString(pairPath("qp_outlier_mlp", ""));
    const Ran r = runTorchir({"compare", base + ".pt2", base + ".float.pt2", "--inputs", base + ".inputs.safetensors",
                              "--sensitivity", "--json"});
    QVERIFY2(r.exitCode == 1, r.err.constData());  // it diverges: exit 1, as any divergence
    const QJsonObject j = QJsonDocument::fromJson(r.out).object();
    const QJsonArray layers = j["sensitivity"].toObject()["layers"].toArray();
    QCOMPARE(layers.size(), 4);
    QCOMPARE(layers[0].toObject()["module"].toString(), QStringLiteral("fc3"));
    QVERIFY(layers[0].toObject()["gain_db"].toDouble() > layers[1].toObject()["gain_db"].toDouble());
    const auto expected = readJson(pairPath("qp_outlier_mlp", ".expected.json"));
    QVERIFY(std::abs(j["output_sqnr_db"].toDouble() - expected.at("baseline_sqnr").get<double>()) < 1e-3);
    const QJsonObject pairing = j["pairing"].toObject();
    QVERIFY(pairing["quantization_a"].toArray().size() > 0);
    QVERIFY(j["unmatched_a"].toArray().isEmpty() && j["unmatched_b"].toArray().isEmpty());
    for (const auto& n : j["nodes"].toArray())
      for (const char* key : {"sqnr_db", "snr_db", "mse", "l1", "own_sqnr_db"}) QVERIFY(n.toObject().contains(key));
  }

  void programsThatAreNotTwinsGetOneLine() {
    const Ran r = runTorchir({"compare", QString::fromStdString(pairPath("qp_cnn", ".pt2")),
                              QString::fromStdString(pairPath("qp_outlier_mlp", ".float.pt2")), "--random-inputs", "0"});
    QCOMPARE(r.exitCode, 2);
    QVERIFY(r.out.isEmpty());
    QCOMPARE(r.err.count('\n'), 1);
    QVERIFY2(r.err.contains("are not two exports of one model"), r.err.constData());
  }

  /// A float32 run against bfloat16 is held to bfloat16's rounding, not float32's.
  void toleranceFollowsTheComparedDtype() {
    QCOMPARE(defaultTolerance(DType::Float32, DType::BFloat16), defaultTolerance(DType::BFloat16));
    QCOMPARE(defaultTolerance(DType::Float32, DType::Float64), defaultTolerance(DType::Float32));
    const Program f = loadProgram(pairPath("qp_outlier_mlp", ".float.pt2"));
    auto a = atenBackend().createSession(f);
    auto b = atenBackend().createSession(f, SessionOptions{DType::BFloat16, "cpu"});
    const auto inputs = inputsOf(pairPath("qp_outlier_mlp", ".inputs.safetensors"));
    QVERIFY(a->setInputs(inputs).ok() && b->setInputs(inputs).ok());
    PairedRun run(*a, *b, identityMatching(f), CompareOptions{}, quantComparison());
    QCOMPARE(run.run().reason, StopReason::Finished);
    QVERIFY(!run.nodes().empty());
    for (const NodeComparison& c : run.nodes()) QCOMPARE(c.tolerance, defaultTolerance(DType::BFloat16));
    // and a quantized value: a few steps of its scale (XNNPACK's int8 activations)
    Pair p("qp_outlier_mlp");
    const NodeComparison* fc1 = p.of("linear");
    QVERIFY(fc1 && fc1->tolerance > defaultTolerance(DType::Float32));
    QVERIFY(!fc1->diverges);  // one layer's rounding to int8 is not a divergence
  }
};

QTEST_GUILESS_MAIN(QuantCompareTest)
#include "QuantCompareTest.moc"
