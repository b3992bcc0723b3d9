// An op defined in Python that no module the user named defines: the diagnosis names the modules
// the program points to and, with a Python named, the one whose source defines the op, without
// importing anything; `--python-import auto` imports it when the user says so. On the fixture
// family `moe` (tests/fixtures/make_moe.py): tiny transformers Mixtral and Qwen2-MoE programs, and
// a crafted program whose stack traces name `os` and a module that does not exist.
#include <QDir>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QTemporaryDir>
#include <QtTest>
#include <cmath>

#include "CliProcess.h"
#include "formats/Safetensors.h"
#include "program/PythonModuleHints.h"

using namespace torchir;
using namespace torchir::test;

namespace {

QString moe(const QString& name, const QString& suffix) {
  return QString::fromStdString(fixturesDir()) + "/moe/" + name + "/" + name + suffix;
}

QJsonObject diagnosisOf(const Ran& r) { return QJsonDocument::fromJson(r.out).object().value("diagnosis").toObject(); }

QStringList strings(const QJsonValue& v) {
  QStringList out;
  for (const auto& e : v.toArray()) out << e.toString();
  return out;
}

/// The largest difference between the float32 outputs in two files.
double largestDifference(const std::string& a, const std::string& b) {
  const TensorMap x = readSafetensors(a), y = readSafetensors(b);
  const TensorData& s = x.at("output_0");
  const TensorData& t = y.at("output_0");
  if (s.dtype != DType::Float32 || t.dtype != DType::Float32 || s.sizes != t.sizes) return INFINITY;
  const auto* p = reinterpret_cast<const float*>(s.storage->data) + s.storageOffset;
  const auto* q = reinterpret_cast<const float*>(t.storage->data) + t.storageOffset;
  double worst = 0;
  for (int64_t i = 0; i < s.numel(); ++i) worst = std::max(worst, std::fabs(double(p[i]) - double(q[i])));
  return worst;
}

}  // namespace

class PythonImportsTest : public QObject {
  Q_OBJECT
  QTemporaryDir m_tmp;
  QString m_marker;

  /// What a worker of the test's Python finds: the crafted program's module on its path, and the
  /// file that module writes when it is imported.
  QProcessEnvironment probeEnvironment() const {
    QProcessEnvironment env;
    env.insert("PYTHONPATH", QString::fromStdString(fixturesDir()) + "/moe/modules");
    env.insert("TORCHIR_PROBE_MARKER", m_marker);
    return env;
  }

 private Q_SLOTS:
  void initTestCase() {
    QVERIFY(m_tmp.isValid());
    m_marker = m_tmp.filePath("imported");
    QVERIFY2(QFile::exists(moe("crafted", ".pt2")), "the moe fixtures are missing: run scripts/fixtures.sh");
  }

  void init() { QFile::remove(m_marker); }

  void aSourceFileIsItsModule() {
    QCOMPARE(moduleOfSourceFile("/v/lib/python3.11/site-packages/transformers/integrations/moe.py"),
             std::string("transformers.integrations.moe"));
    QCOMPARE(moduleOfSourceFile("/usr/lib/python3/dist-packages/torchvision/__init__.py"), std::string("torchvision"));
    QCOMPARE(moduleOfSourceFile("/a/site-packages/x/site-packages/inner/m.py"), std::string("inner.m"));
    QCOMPARE(moduleOfSourceFile("/home/user/model.py"), std::string());               // not installed: no name
    QCOMPARE(moduleOfSourceFile("/s/site-packages/my-pkg/m.py"), std::string());       // no identifier
    QCOMPARE(moduleOfSourceFile("/s/site-packages/../os.py"), std::string());          // no module
    QCOMPARE(moduleOfSourceFile("/s/site-packages/m.so"), std::string());
    QCOMPARE(moduleOfSourceFile("/s/site-packages/pkg/\xc3\xa9t\xc3\xa9.py"), std::string());
  }

  void withoutAPythonTheDiagnosisNamesWhatTheProgramPointsTo() {
    QProcessEnvironment none;
    none.insert("TORCHIR_PYTHON", "");  // whatever the shell names
    const Ran crafted =
        runTorchir({"run", moe("crafted", ".pt2"), "--inputs", moe("crafted", ".inputs.safetensors")}, "1", none);
    QCOMPARE(crafted.exitCode, 1);
    // its stack trace's files, innermost first, then the op's namespace: never the user's own file
    QVERIFY2(crafted.err.contains("the program points to os, torchir_no_such_module.hidden, "
                                  "torchir_probe_package.layers, torchir_crafted_probe:"),
             crafted.err.constData());
    const Ran mixtral =
        runTorchir({"run", moe("mixtral", ".pt2"), "--inputs", moe("mixtral", ".inputs.safetensors")}, "1", none);
    QCOMPARE(mixtral.exitCode, 1);
    QVERIFY2(mixtral.err.contains("the program points to transformers.integrations.moe, "
                                  "transformers.models.mixtral.modeling_mixtral, transformers:"),
             mixtral.err.constData());
    const Ran autoAlone = runTorchir({"run", moe("mixtral", ".pt2"), "--python-import", "auto"}, "1", none);
    QCOMPARE(autoAlone.exitCode, 2);
    QVERIFY2(autoAlone.err.startsWith("error: --python-import needs a Python"), autoAlone.err.constData());
  }

  void aModuleTheProgramNamesIsSuggestedNotImported() {
    // its source defines the op, and importing it (or the package the trace names) would show:
    // sources are read, never run
    for (const char* verb : {"run", "check"}) {
      const Ran r = runTorchir({verb, moe("crafted", ".pt2"), "--inputs", moe("crafted", ".inputs.safetensors"),
                                "--python", TORCHIR_TEST_PYTHON, "--json"},
                               "1", probeEnvironment());
      QVERIFY2(r.exitCode == 1, r.err.constData());
      QVERIFY2(!QFile::exists(m_marker), verb);
    }
    const Ran r = runTorchir({"run", moe("crafted", ".pt2"), "--inputs", moe("crafted", ".inputs.safetensors"), "--python",
                              TORCHIR_TEST_PYTHON, "--json"},
                             "1", probeEnvironment());
    const QJsonObject d = diagnosisOf(r);
    QCOMPARE(d.value("class").toString(), QString("op not found"));
    QCOMPARE(strings(d.value("python_imports")), QStringList{"torchir_crafted_probe"});
    QVERIFY2(d.value("message").toString().contains("torchir_crafted_probe defines it: add --python-import torchir_crafted_probe"),
             qPrintable(d.value("message").toString()));
    QVERIFY(!QFile::exists(m_marker));
  }

  void autoImportsWhatTheProgramPointsToWhenAsked() {
    const Ran r = runTorchir({"run", moe("crafted", ".pt2"), "--inputs", moe("crafted", ".inputs.safetensors"), "--python",
                              TORCHIR_TEST_PYTHON, "--python-import", "auto", "--expect", moe("crafted", ".outputs.safetensors")},
                             "1", probeEnvironment());
    QVERIFY2(r.exitCode == 0, r.err.constData());
    QVERIFY(r.err.contains("note: --python-import auto: importing torchir_crafted_probe"));
    QVERIFY(QFile::exists(m_marker));
  }

  void aLibrarysOpIsFoundInItsPackage() {
    // torchvision::roi_align: the program points to torchvision's files and namespace, none of
    // which registers it; a module of the package that does is found by reading its sources
    const QStringList program = {moe("roi_align", ".pt2"), "--inputs", moe("roi_align", ".inputs.safetensors"), "--python",
                                 TORCHIR_TEST_PYTHON};
    const Ran asked = runTorchir(QStringList{"run"} + program + QStringList{"--json"});
    QCOMPARE(asked.exitCode, 1);
    const QStringList imports = strings(diagnosisOf(asked).value("python_imports"));
    QVERIFY2(!imports.isEmpty() && imports.front().startsWith("torchvision."), qPrintable(imports.join(", ")));
    const Ran ran = runTorchir(QStringList{"run"} + program +
                               QStringList{"--python-import", imports.front(), "--expect", moe("roi_align", ".outputs.safetensors")});
    QVERIFY2(ran.exitCode == 0, ran.err.constData());
  }

  void mixtureOfExpertsRunWithTheImportTheDiagnosisNames_data() {
    QTest::addColumn<QString>("name");
    QTest::newRow("mixtral") << "mixtral";
    QTest::newRow("qwen2_moe") << "qwen2_moe";
  }

  void mixtureOfExpertsRunWithTheImportTheDiagnosisNames() {
    QFETCH(QString, name);
    const QStringList program = {moe(name, ".pt2"), "--inputs", moe(name, ".inputs.safetensors"), "--python", TORCHIR_TEST_PYTHON};
    const Ran asked = runTorchir(QStringList{"run"} + program + QStringList{"--json"});
    QCOMPARE(asked.exitCode, 1);
    const QStringList imports = strings(diagnosisOf(asked).value("python_imports"));
    QCOMPARE(imports, QStringList{"transformers.integrations.moe"});
    // the suggestion copied, and `auto`: both run to eager's logits
    for (const QString& module : {imports.front(), QString("auto")}) {
      const QString saved = m_tmp.filePath(name + "-" + module + ".safetensors");
      const Ran ran = runTorchir(QStringList{"run"} + program + QStringList{"--python-import", module, "--save-outputs", saved});
      QVERIFY2(ran.exitCode == 0, ran.err.constData());
      const double worst = largestDifference(saved.toStdString(), moe(name, ".outputs.safetensors").toStdString());
      QVERIFY2(worst <= 1e-6, qPrintable(module + ": " + QString::number(worst)));
    }
  }
};

QTEST_GUILESS_MAIN(PythonImportsTest)
#include "PythonImportsTest.moc"
