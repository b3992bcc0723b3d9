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

/// `torchir run ARGS` with TORCHIR_LIBTORCH=`dir`.
Ran torchirRunWithLibtorch(const QString& dir, const QStringList& args) {
  QProcessEnvironment env;
  env.insert("TORCHIR_LIBTORCH", dir);
  return runTorchir(QStringList{"run"} + args, "1", env);
}

/// A folder laid out as a torch package (lib/ and version.py) of `version`, without libraries.
QString fakeTorchPackage(const QTemporaryDir& dir, const QString& version) {
  QDir(dir.path()).mkpath("torch/lib");
  QFile file(dir.filePath("torch/version.py"));
  file.open(QIODevice::WriteOnly);
  file.write(("__version__ = '" + version + "'\ngit_version = 'x'\n").toUtf8());
  return dir.filePath("torch/lib");
}


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

  void expectChecksTheOutputsBitForBit() {
    const Ran same = torchirRun({fixture("demo", ".pt2"), "--expect", fixture("demo", ".outputs.safetensors")});
    QVERIFY2(same.exitCode == 0, same.err.constData());
    QVERIFY2(same.out.contains("output_0: equal to") && same.out.contains("bit for bit"), same.out.constData());

    // mlp's outputs are another shape; eager's outputs of mlp at other inputs are other numbers
    const Ran shape = torchirRun({fixture("demo", ".pt2"), "--expect", fixture("mlp", ".outputs.safetensors")});
    QCOMPARE(shape.exitCode, 1);
    QVERIFY2(shape.out.contains("shape [1, 10], expected [2, 8]"), shape.out.constData());
    const Ran numbers = torchirRun({fixture("mlp", ".pt2"), "--random-inputs", "3", "--expect",
                                    fixture("mlp", ".outputs.safetensors")});
    QCOMPARE(numbers.exitCode, 1);
    QVERIFY2(numbers.out.contains("differs: max abs"), numbers.out.constData());
  }

  // The command line is parsed by CLI11: every command has its help, and a word it does not
  // know is a usage error (exit 2) that names it.
  void eachCommandHasItsHelp() {
    const Ran help = runTorchir({"help", "run"});
    QCOMPARE(help.exitCode, 0);
    for (const char* option : {"--expect", "--save-outputs", "--stop-on", "--threads", "--weights"})
      QVERIFY2(help.out.contains(option), help.out.constData());
    const Ran flag = runTorchir({"run", "--help"});
    QCOMPARE(flag.exitCode, 0);
    QCOMPARE(flag.out, help.out);
    const Ran all = runTorchir({"--help"});
    QCOMPARE(all.exitCode, 0);
    for (const char* verb : {"info", "table", "convert", "run", "compare", "layout", "help"})
      QVERIFY2(all.out.contains(verb), all.out.constData());

    const Ran unknown = runTorchir({"run", fixture("mlp", ".pt2"), "--frobnicate"});
    QCOMPARE(unknown.exitCode, 2);
    QVERIFY2(unknown.err.startsWith("error: ") && unknown.err.contains("--frobnicate"), unknown.err.constData());
    const Ran noFile = runTorchir({"run"});
    QCOMPARE(noFile.exitCode, 2);
    QVERIFY2(noFile.err.contains("FILE is required"), noFile.err.constData());
    const Ran noCommand = runTorchir({"help", "frobnicate"});
    QCOMPARE(noCommand.exitCode, 2);
    QVERIFY2(noCommand.err.contains("no command 'frobnicate'"), noCommand.err.constData());
  }

  void versionNamesTheLibtorchItWasBuiltFor() {
    const Ran r = runTorchir({"--version"});
    QCOMPARE(r.exitCode, 0);
    QVERIFY2(r.out.startsWith("torchir ") && r.out.contains("(libtorch " TORCHIR_TORCH_VERSION ")"), r.out.constData());
  }

  // TORCHIR_LIBTORCH: another torch package's libtorch (the Python environment's, here) runs the
  // program to the same bits; a folder that is not one, or of another version, is one line.
  void anotherLibtorchIsUsedWhenNamed() {
    const Ran r = torchirRunWithLibtorch(TORCHIR_TORCH_LIB, {fixture("demo", ".pt2"), "--expect",
                                                             fixture("demo", ".outputs.safetensors")});
    QVERIFY2(r.exitCode == 0, r.err.constData());

    QTemporaryDir dir;
    const Ran none = torchirRunWithLibtorch(dir.path(), {fixture("demo", ".pt2")});
    QCOMPARE(none.exitCode, 2);
    QVERIFY2(none.err.contains("is not the lib folder of a torch package") && none.err.count('\n') == 1,
             none.err.constData());

    QTemporaryDir other;
    const Ran old = torchirRunWithLibtorch(fakeTorchPackage(other, "1.13.0+cpu"), {fixture("demo", ".pt2")});
    QCOMPARE(old.exitCode, 2);
    QVERIFY2(old.err.contains("holds torch 1.13.0+cpu; this build needs torch"), old.err.constData());
  }

  void aFailingNodeExitsOneWithItsDiagnosis() {
    const Ran r = torchirRun({fixture("mixed_precision", ".pt2"), "--inputs", fixture("mixed_precision", ".inputs_fp16.safetensors")});
    QCOMPARE(r.exitCode, 1);
    const QString err = QString::fromUtf8(r.err);
    QVERIFY2(err.contains("linear") && err.contains("dtype mismatch"), qPrintable(err));
    QVERIFY2(err.contains("float16") && err.contains("float32"), qPrintable(err));
    QVERIFY2(err.contains("fix: 'input' cast to float32"), qPrintable(err));  // the studio's one-click cast
  }
};

QTEST_GUILESS_MAIN(RunCommandTest)
#include "RunCommandTest.moc"
