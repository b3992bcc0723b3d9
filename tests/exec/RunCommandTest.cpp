// `torchir run` as users call it: exit codes, saved outputs equal to eager's, the trace (with what
// higher-order nodes ran inside), and a failing node's diagnosis.
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QTemporaryDir>
#include <QThread>
#include <QtTest>

#include "../program/FixtureZoo.h"
#include "CliProcess.h"
#include "RunComparison.h"

using namespace torchir;
using namespace torchir::test;

namespace {

/// `torchir run ARGS`.
Ran torchirRun(const QStringList& args, const QString& threads = "1") { return runTorchir(QStringList{"run"} + args, threads); }


}  // namespace

class RunCommandTest : public QObject {
  Q_OBJECT
 private Q_SLOTS:
  void savesOutputsEqualToEager() {
    QTemporaryDir dir;
    const QString saved = dir.filePath("out.safetensors");
    const Ran r = torchirRun({fixture("resnet18", ".pt2"), "--inputs", fixture("resnet18", ".inputs.safetensors"),
                              "--save-outputs", saved});
    QCOMPARE(r.exitCode, 0);
    const TensorMap ours = readSafetensors(saved.toStdString());
    const TensorMap eager = readSafetensors(fixturePath("resnet18", ".outputs.safetensors"));
    QCOMPARE(relativeError(ours.at("output_0"), eager.at("output_0")), 0.0);
  }

  // An IR JSON carries no tensors: the weights next to it are found as the studio finds them.
  void irJsonFindsItsWeightsBesideIt() {
    QTemporaryDir dir;
    const QString saved = dir.filePath("out.safetensors");
    const Ran r = torchirRun({fixture("mlp", ".ir.json"), "--inputs", fixture("mlp", ".inputs.safetensors"),
                              "--save-outputs", saved});
    QVERIFY2(r.exitCode == 0, r.err.constData());
    QCOMPARE(relativeError(readSafetensors(saved.toStdString()).at("output_0"),
                           readSafetensors(fixturePath("mlp", ".outputs.safetensors")).at("output_0")),
             0.0);
  }

  void threadsOptionSetsTheIntraOpThreads() {
    QTemporaryDir dir;
    const QString saved = dir.filePath("out.safetensors");
    // The environment asks for two threads; --threads 1 wins, and the run then matches eager's bits.
    const Ran one = torchirRun({fixture("resnet18", ".pt2"), "--threads", "1", "--json", "--save-outputs", saved}, "2");
    QCOMPARE(one.exitCode, 0);
    QCOMPARE(QJsonDocument::fromJson(one.out).object()["threads"].toInt(), 1);
    QCOMPARE(relativeError(readSafetensors(saved.toStdString()).at("output_0"),
                           readSafetensors(fixturePath("resnet18", ".outputs.safetensors")).at("output_0")),
             0.0);
    // Without it the environment's count holds (ATen takes no more threads than cores).
    const Ran two = torchirRun({fixture("resnet18", ".pt2"), "--json"}, "2");
    QCOMPARE(two.exitCode, 0);
    QCOMPARE(QJsonDocument::fromJson(two.out).object()["threads"].toInt(), std::min(2, QThread::idealThreadCount()));
    const Ran bad = torchirRun({fixture("resnet18", ".pt2"), "--threads", "two"});
    QCOMPARE(bad.exitCode, 2);
    QVERIFY2(QString::fromUtf8(bad.err).contains("--threads"), bad.err.constData());
  }

  void traceListsEachNodeAndWhatRanInsideACond() {
    const Ran r = torchirRun({fixture("cond_branch", ".pt2"), "--trace", "--json"});
    QCOMPARE(r.exitCode, 0);
    const QJsonObject doc = QJsonDocument::fromJson(r.out).object();
    QCOMPARE(doc["status"].toString(), QStringLiteral("finished"));
    QJsonObject cond;
    for (const auto& e : doc["trace"].toArray())
      if (e.toObject()["op"].toString() == "cond") cond = e.toObject();
    const QJsonArray inner = cond["inner"].toArray();
    QCOMPARE(inner.size(), 1);  // the sample takes the false branch: x - w
    QCOMPARE(inner[0].toObject()["graph"].toString(), QStringLiteral("false_graph_0"));
    QCOMPARE(inner[0].toObject()["op"].toString(), QStringLiteral("aten.sub.Tensor"));
    QCOMPARE(inner[0].toObject()["shape"].toArray().size(), 2);
  }

  void aFailingNodeExitsOneWithItsDiagnosis() {
    const Ran r = torchirRun({fixture("mixed_precision", ".pt2"), "--inputs", fixture("mixed_precision", ".inputs_fp16.safetensors")});
    QCOMPARE(r.exitCode, 1);
    const QString err = QString::fromUtf8(r.err);
    QVERIFY2(err.contains("linear") && err.contains("dtype mismatch"), qPrintable(err));
    QVERIFY2(err.contains("float16") && err.contains("float32"), qPrintable(err));
  }
};

QTEST_GUILESS_MAIN(RunCommandTest)
#include "RunCommandTest.moc"
