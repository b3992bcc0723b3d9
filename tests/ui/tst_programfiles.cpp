// completeRequest: an IR JSON finds its weights and constants next to it; other programs and paths
// the user gave are left alone.
#include <QDir>
#include <QFile>
#include <QTemporaryDir>
#include <QtTest>

#include "Fixtures.h"
#include "session/ProgramFiles.h"

using torchir::ui::OpenRequest;
using torchir::ui::completeRequest;

namespace {

void touch(const QString& path) {
  QFile f(path);
  QVERIFY2(f.open(QIODevice::WriteOnly), qPrintable(path));
}

}  // namespace

class TestProgramFiles : public QObject {
  Q_OBJECT

 private Q_SLOTS:
  void initTestCase() { TORCHIR_REQUIRE_FIXTURES(); }

  void irJsonFixtureFindsItsSafetensorsWeights() {
    const QString ir = torchir::test::fixturePath(QStringLiteral("mlp"), QStringLiteral(".ir.json"));
    const OpenRequest r = completeRequest(OpenRequest{ir, {}, {}, {}});
    QCOMPARE(r.path, ir);
    // mlp.state_dict.pt is there too: the mapped safetensors file comes first.
    QCOMPARE(r.weightsPath, torchir::test::fixturePath(QStringLiteral("mlp"), QStringLiteral(".weights.safetensors")));
    QVERIFY(r.constantsPath.isEmpty());
    QVERIFY(r.inputsPath.isEmpty());
  }

  void pt2IsLeftAlone() {
    const QString pt2 = torchir::test::fixturePath(QStringLiteral("mlp"), QStringLiteral(".pt2"));
    const OpenRequest r = completeRequest(OpenRequest{pt2, {}, {}, {}});
    QVERIFY(r.weightsPath.isEmpty());
    QVERIFY(r.constantsPath.isEmpty());
  }

  void candidatesInOrder() {
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    const QString ir = dir.filePath(QStringLiteral("model.ir.json"));
    touch(ir);
    QVERIFY(completeRequest(OpenRequest{ir, {}, {}, {}}).weightsPath.isEmpty());  // nothing next to it

    // Added from the last choice to the first: each new file wins over the ones before.
    const QStringList suffixes = {QStringLiteral(".bin"), QStringLiteral(".pth"), QStringLiteral(".pt"),
                                  QStringLiteral(".state_dict.pt"), QStringLiteral(".safetensors"),
                                  QStringLiteral(".weights.safetensors")};
    for (const QString& suffix : suffixes) {
      touch(dir.filePath(QStringLiteral("model") + suffix));
      QCOMPARE(completeRequest(OpenRequest{ir, {}, {}, {}}).weightsPath, dir.filePath(QStringLiteral("model") + suffix));
    }
    touch(dir.filePath(QStringLiteral("model.constants.safetensors")));
    const OpenRequest r = completeRequest(OpenRequest{ir, {}, {}, {}});
    QCOMPARE(r.constantsPath, dir.filePath(QStringLiteral("model.constants.safetensors")));
  }

  void plainJsonStem() {
    QTemporaryDir dir;
    const QString json = dir.filePath(QStringLiteral("net.json"));
    touch(json);
    touch(dir.filePath(QStringLiteral("net.pt")));
    QCOMPARE(completeRequest(OpenRequest{json, {}, {}, {}}).weightsPath, dir.filePath(QStringLiteral("net.pt")));
  }

  void givenPathsAreKept() {
    QTemporaryDir dir;
    const QString ir = dir.filePath(QStringLiteral("model.ir.json"));
    touch(ir);
    touch(dir.filePath(QStringLiteral("model.weights.safetensors")));
    touch(dir.filePath(QStringLiteral("model.constants.safetensors")));
    const OpenRequest r = completeRequest(OpenRequest{ir, QStringLiteral("/elsewhere/w.pt"), QStringLiteral("/elsewhere/c.safetensors"),
                                                      QStringLiteral("/elsewhere/in.safetensors")});
    QCOMPARE(r.weightsPath, QStringLiteral("/elsewhere/w.pt"));
    QCOMPARE(r.constantsPath, QStringLiteral("/elsewhere/c.safetensors"));
    QCOMPARE(r.inputsPath, QStringLiteral("/elsewhere/in.safetensors"));
  }

  void aFolderIsNotAWeightsFile() {
    QTemporaryDir dir;
    const QString ir = dir.filePath(QStringLiteral("model.ir.json"));
    touch(ir);
    QVERIFY(QDir(dir.path()).mkdir(QStringLiteral("model.safetensors")));
    QVERIFY(completeRequest(OpenRequest{ir, {}, {}, {}}).weightsPath.isEmpty());
  }
};

QTEST_MAIN(TestProgramFiles)
#include "tst_programfiles.moc"
