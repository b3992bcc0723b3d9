// The two older .pt2 layouts (torch 2.8's pickled weights, torch 2.6/2.7's flat zip), repackaged from
// the zoo by tests/fixtures/make_old_layouts.py: the same program and weights as the fixture they came
// from, so they must read exactly as it does.
#include <QtTest>

#include "FixtureZoo.h"
#include "program/FxTable.h"
#include "formats/ProgramLoader.h"
#include "formats/Safetensors.h"

using namespace torchir;
using namespace torchir::test;

class OldLayoutTest : public QObject {
  Q_OBJECT
 private Q_SLOTS:
  void readsLikeTheCurrentLayout_data() {
    QTest::addColumn<QString>("file");
    QTest::addColumn<QString>("fixture");
    QTest::addColumn<QString>("layout");
    const auto manifest = readJson(fixturesDir() + "/old_layouts/manifest.json");
    QVERIFY(!manifest.at("files").empty());
    for (const auto& f : manifest.at("files")) {
      const std::string path = f.at("path");
      QTest::newRow(path.c_str()) << QString::fromStdString(fixturesDir() + "/" + path)
                                  << QString::fromStdString(f.at("fixture").get<std::string>())
                                  << QString::fromStdString(f.at("layout").get<std::string>());
    }
  }
  void readsLikeTheCurrentLayout() {
    QFETCH(QString, file);
    QFETCH(QString, fixture);
    QFETCH(QString, layout);
    const std::string n = fixture.toStdString();
    const Program p = loadProgram(file.toStdString());
    QCOMPARE(QString::fromStdString(p.source.layout), layout);

    // torch 2.6/2.7 wrote no is_hop_single_tensor_return: their reader, like ours, gives a
    // higher-order op's one tensor result without the getitem node that torch 2.14 prints.
    for (const auto& node : p.nodes)
      if (node.opcode == Opcode::CallFunction && node.target.find('.') == std::string::npos &&
          node.target.front() != '<' && !node.returnsTuple && p.source.layout.rfind("flat zip", 0) == 0)
        QSKIP("a higher-order op with one result: the table has no getitem row in this layout");

    // the FX table torch prints for the fixture
    const std::string tableMismatch = fxTableMismatch(p, n);
    QVERIFY2(tableMismatch.empty(), (n + ": " + tableMismatch).c_str());

    // every weight and constant the program takes, bit for bit
    const std::string mismatch = weightMismatch(p, readSafetensors(fixturePath(n, ".weights.safetensors")));
    QVERIFY2(mismatch.empty(), (n + ": " + mismatch).c_str());

    // and the sample inputs, which the old layouts pickle too
    const TensorMap inputs = readSafetensors(fixturePath(n, ".inputs.safetensors"));
    QCOMPARE(p.sampleInputs.size(), inputs.size());
    for (std::size_t i = 0; i < p.sampleInputs.size(); ++i)
      QVERIFY(p.sampleInputs[i].contiguousBytes() == inputs.at("input_" + std::to_string(i)).contiguousBytes());
  }

  void tiedWeightsStayTied() {
    for (const char* layout : {"torch2.8", "torch2.6", "torch2.6-deflated"}) {
      const Program p = loadProgram(fixturesDir() + "/old_layouts/" + layout + "/tied.pt2");
      QCOMPARE(p.weights.at("emb.weight").storage.get(), p.weights.at("head.weight").storage.get());
    }
  }
};

QTEST_APPLESS_MAIN(OldLayoutTest)
#include "OldLayoutTest.moc"
