// Programs written by torch 2.7 and 2.8 themselves (tests/fixtures/make_old_torch.py, each from an
// environment with that torch): their FX table must be the one torch.export.load of the pinned torch
// prints, and their runs must give the outputs of the program it loads, bit for bit.
#include <QtTest>

#include "RunComparison.h"
#include "program/FxTable.h"
#include "formats/ProgramLoader.h"

using namespace torchir;
using namespace torchir::test;

class OldTorchTest : public QObject {
  Q_OBJECT

  static std::string pathOf(const QString& file, const char* suffix) {
    return fixturesDir() + "/old_torch/" + file.toStdString() + suffix;
  }

 private Q_SLOTS:
  void readsAndRunsAsTheLoadedProgram_data() {
    QTest::addColumn<QString>("file");
    QTest::addColumn<QString>("writtenBy");
    const auto manifest = readJson(fixturesDir() + "/old_torch/manifest.json");
    std::set<std::string> versions;
    for (const auto& f : manifest.at("files")) {
      const std::string file = f.at("dir").get<std::string>() + "/" + f.at("name").get<std::string>();
      versions.insert(f.at("written_by").get<std::string>().substr(0, 3));
      QTest::newRow(file.c_str()) << QString::fromStdString(file)
                                  << QString::fromStdString(f.at("written_by").get<std::string>());
    }
    QVERIFY(versions.count("2.7") && versions.count("2.8"));
  }
  void readsAndRunsAsTheLoadedProgram() {
    QFETCH(QString, file);
    QFETCH(QString, writtenBy);
    const Program p = loadProgram(pathOf(file, ".pt2"));
    QVERIFY2(p.source.torchVersion.empty() || p.source.torchVersion == writtenBy.toStdString(),
             p.source.torchVersion.c_str());
    const std::string tableMismatch = fxTableMismatchWith(p, pathOf(file, ".table.json"));
    QVERIFY2(tableMismatch.empty(), tableMismatch.c_str());
    auto s = atenBackend().createSession(p);
    runAndCompare(*s, pathOf(file, ".inputs.safetensors"), pathOf(file, ".outputs.safetensors"));
  }

  // torch 2.7 and 2.8 name no multi-output node: FX names it after the op's overload.
  void multiOutputNodesAreNamedAfterTheirOverload() {
    const Program p = loadProgram(fixturesDir() + "/old_torch/torch2.7/max_dim.pt2");
    QVERIFY(p.findNode("max_dim"));
    QVERIFY(p.findNode("min_dim"));
    QVERIFY(!p.findNode("max"));
  }
};

QTEST_APPLESS_MAIN(OldTorchTest)
#include "OldTorchTest.moc"
