// Captures (capture/CaptureFile): everything a capture holds comes back as it was written, and a
// damaged or foreign one is refused in one line naming the file.
#include <QTemporaryDir>
#include <QtTest>
#include <cmath>
#include <fstream>

#include "FixtureZoo.h"
#include "capture/CaptureFile.h"
#include "program/LoadError.h"
#include "formats/Safetensors.h"

using namespace torchir;
using namespace torchir::test;

namespace {

Capture sampleCapture() {
  Capture c;
  c.program = programReference(fixturePath("mlp", ".pt2"));
  const TensorMap inputs = readSafetensors(fixturePath("mlp", ".inputs.safetensors"));
  c.inputs = {inputs.at("input_0")};
  c.breakpoints = {"relu", "linear_1"};
  c.bookmarks = {{1, "linear"}, {9, "relu"}};
  c.notes = {{"linear", "the first layer — its bias looks large"}};
  ArgumentPatch cast;
  cast.argument = "input";
  cast.kind = ArgumentPatch::Kind::Cast;
  cast.dtype = DType::Float32;
  ArgumentPatch replace;
  replace.argument = "weight";
  replace.kind = ArgumentPatch::Kind::Replace;
  replace.tensor = readSafetensors(fixturePath("mlp", ".weights.safetensors")).at("fc1.weight");
  replace.origin = "mlp.weights.safetensors:fc1.weight";
  c.patches["linear"] = {cast, replace};
  c.next = "linear_1";
  NodeRecord r;
  r.executed = true;
  r.schema = "aten::relu(Tensor self) -> Tensor";
  r.arguments = {{"self", "Tensor", ArgSource::Patched, "cast to float32 (was x)",
                  {"Tensor", DType::Float32, {2, 32}, {32, 1}, "cpu", "float32[2, 32] min 0 max 1.5"}}};
  r.outputs = {{"Tensor", DType::Float32, {2, 32}, {32, 1}, "cpu", "float32[2, 32] min 0 max 1.5"}};
  r.microseconds = 12.5;
  c.records = {{"relu", r}};
  c.diagnosis.kind = DiagnosisClass::DtypeMismatch;
  c.diagnosis.nodeName = "linear";
  c.diagnosis.opType = "aten.linear.default";
  c.diagnosis.message = "mat1 and mat2 must have the same dtype";
  c.pinned = {{"relu", inputs.at("input_0")}};
  Capture::Comparison compared;
  compared.reference = "float64";
  NodeComparison n;
  n.output = 1;
  n.metrics.maxAbs = 0.25;
  n.metrics.maxRel = INFINITY;  // JSON has none: written as text
  n.metrics.sqnrDb = -INFINITY;
  n.metrics.cosine = NAN;
  n.metrics.nonfiniteA = 3;
  n.tolerance = 1e-3;
  n.ownRel = 0.5;
  n.diverges = n.startsDivergence = n.makesNonfinite = true;
  compared.nodes = {{"relu", n}, {"linear", NodeComparison{}}};
  compared.nonfiniteSlice = {"linear", "relu"};
  c.comparison = compared;
  c.python.python = "/venv/bin/python";
  c.python.imports = {"mypkg.ops"};
  c.python.executorFiles = {"/work/my_executors.py"};
  return c;
}

void expectRefused(const std::string& path, const char* words) {
  try {
    readCapture(path);
    QFAIL("read");
  } catch (const LoadError& e) {
    const std::string what = e.what();
    QVERIFY2(what.find(path) != std::string::npos && what.find(words) != std::string::npos &&
                 what.find('\n') == std::string::npos,
             what.c_str());
  }
}

}  // namespace

class CaptureFileTest : public QObject {
  Q_OBJECT
 private Q_SLOTS:
  void whatIsWrittenIsReadBack() {
    QTemporaryDir dir;
    const std::string path = dir.filePath("run.capture").toStdString();
    const Capture c = sampleCapture();
    writeCapture(path, c);
    const Capture back = readCapture(path);
    QVERIFY(back == c);  // every field, through the capture's own equality
    for (auto change : std::initializer_list<void (*)(Capture&)>{
             [](Capture& x) { x.records[0].second.microseconds += 1; },
             [](Capture& x) { x.comparison->nodes[0].second.metrics.cosine = 0; },
             [](Capture& x) { x.patches.at("linear")[1].tensor = x.inputs[0]; },
             [](Capture& x) { x.notes.clear(); },
             [](Capture& x) { x.python.imports.clear(); }}) {
      Capture other = back;
      change(other);
      QVERIFY(!(other == c));
    }
    QVERIFY(back.program == c.program);
    QVERIFY(back.program.size > 0 && back.program.crc32 != 0);
    QVERIFY(!back.embeddedProgram.hasData() || back.embeddedProgram.numel() == 0);
    QCOMPARE(back.inputs.size(), std::size_t{1});
    QVERIFY(sameTensor(back.inputs[0], c.inputs[0]));
    QCOMPARE(back.breakpoints, c.breakpoints);
    QCOMPARE(back.bookmarks, c.bookmarks);
    QCOMPARE(back.notes, c.notes);
    QCOMPARE(back.next, c.next);
    QCOMPARE(back.patches.at("linear").size(), std::size_t{2});
    QCOMPARE(back.patches.at("linear")[0].kind, ArgumentPatch::Kind::Cast);
    QCOMPARE(back.patches.at("linear")[0].dtype, DType::Float32);
    QVERIFY(sameTensor(back.patches.at("linear")[1].tensor, c.patches.at("linear")[1].tensor));
    QCOMPARE(back.patches.at("linear")[1].origin, c.patches.at("linear")[1].origin);
    QCOMPARE(back.records.size(), std::size_t{1});
    const NodeRecord& r = back.records[0].second;
    QCOMPARE(back.records[0].first, std::string("relu"));
    QCOMPARE(r.microseconds, 12.5);
    QCOMPARE(r.arguments.at(0).source, ArgSource::Patched);
    QCOMPARE(r.arguments.at(0).value.sizes, (std::vector<int64_t>{2, 32}));
    QCOMPARE(r.outputs.at(0).text, c.records[0].second.outputs[0].text);
    QCOMPARE(back.diagnosis.kind, DiagnosisClass::DtypeMismatch);
    QCOMPARE(back.diagnosis.nodeName, std::string("linear"));
    QVERIFY(sameTensor(back.pinned.at("relu"), c.pinned.at("relu")));
    QVERIFY(back.comparison);
    QCOMPARE(back.comparison->reference, std::string("float64"));
    QCOMPARE(back.comparison->nodes.size(), std::size_t{2});
    QCOMPARE(back.comparison->nodes[0].first, std::string("relu"));
    const NodeComparison& n = back.comparison->nodes[0].second;
    QCOMPARE(n.output, 1);
    QCOMPARE(n.metrics.maxAbs, 0.25);
    QVERIFY(std::isinf(n.metrics.maxRel) && n.metrics.maxRel > 0);
    QVERIFY(std::isinf(n.metrics.sqnrDb) && n.metrics.sqnrDb < 0);
    QVERIFY(std::isnan(n.metrics.cosine));
    QCOMPARE(n.metrics.nonfiniteA, int64_t{3});
    QCOMPARE(n.tolerance, 1e-3);
    QVERIFY(n.ownRel && *n.ownRel == 0.5);
    QVERIFY(n.diverges && n.startsDivergence && n.makesNonfinite);
    QVERIFY(!back.comparison->nodes[1].second.ownRel);
    QCOMPARE(back.comparison->nonfiniteSlice, (std::vector<std::string>{"linear", "relu"}));
    // a capture without one (an older build's) reads as having none
    Capture plain = sampleCapture();
    plain.comparison.reset();
    writeCapture(path, plain);
    QVERIFY(!readCapture(path).comparison);
  }

  // The fuzz target's seeds are captures as this reader takes them (tests/data/crafted).
  void theCraftedSeedsRead() {
    const Capture valid = readCapture(TORCHIR_CRAFTED "/valid.capture");
    QVERIFY(!valid.comparison);
    const Capture compared = readCapture(TORCHIR_CRAFTED "/compared.capture");
    QVERIFY(compared.comparison && compared.comparison->nodes.size() == 1);
    QVERIFY(std::isinf(compared.comparison->nodes[0].second.metrics.maxRel));
  }

  void theProgramEmbeddedComesBackByteForByte() {
    QTemporaryDir dir;
    const std::string path = dir.filePath("embedded.capture").toStdString();
    Capture c = sampleCapture();
    std::ifstream in(fixturePath("mlp", ".pt2"), std::ios::binary);
    auto bytes = std::make_shared<std::vector<std::byte>>();
    for (char ch; in.get(ch);) bytes->push_back(static_cast<std::byte>(ch));
    auto storage = std::make_shared<Storage>();
    storage->data = bytes->data();
    storage->nbytes = bytes->size();
    storage->owner = bytes;
    c.embeddedProgram = TensorData{DType::UInt8, {static_cast<int64_t>(bytes->size())}, {1}, 0, storage, nullptr};
    writeCapture(path, c);
    const Capture back = readCapture(path);
    QCOMPARE(static_cast<std::size_t>(back.embeddedProgram.numel()), bytes->size());
    QVERIFY(back.embeddedProgram.contiguousBytes() == *bytes);
    QCOMPARE(back.program.size, static_cast<uint64_t>(bytes->size()));
  }

  void damagedOrForeignCapturesAreRefusedInOneLine() {
    QTemporaryDir dir;
    const std::string good = dir.filePath("good.capture").toStdString();
    writeCapture(good, sampleCapture());

    // cut short: the safetensors reader refuses it
    std::ifstream in(good, std::ios::binary);
    const std::string whole((std::istreambuf_iterator<char>(in)), {});
    const std::string cut = dir.filePath("cut.capture").toStdString();
    std::ofstream(cut, std::ios::binary).write(whole.data(), static_cast<std::streamsize>(whole.size() / 2));
    try {
      readCapture(cut);
      QFAIL("read a truncated capture");
    } catch (const LoadError& e) {
      QVERIFY2(std::string(e.what()).find(cut) != std::string::npos, e.what());
    }

    // a plain .safetensors (the fixture's inputs) is no capture
    expectRefused(fixturePath("mlp", ".inputs.safetensors"), "not a capture");

    // metadata of a newer version, or with a field of the wrong type
    auto withMetadata = [&](const std::string& name, const std::string& json) {
      const std::string path = dir.filePath(QString::fromStdString(name)).toStdString();
      writeSafetensors(path, {}, {{"torchir.capture", json}});
      return path;
    };
    expectRefused(withMetadata("newer.capture", R"({"version": 7})"), "version 7; this build reads versions 1 to 1");
    std::string meta = R"({"version": 1, "program": {"path": "p.pt2", "size": "big", "crc32": 0, "embedded": false}})";
    expectRefused(withMetadata("size.capture", meta), "program.size is not a 64-bit integer");
    meta = R"({"version": 1, "program": {"path": "p.pt2", "size": 1, "crc32": 0, "embedded": false}, "inputs": 3})";
    expectRefused(withMetadata("inputs.capture", meta), "inputs: more than the file holds");
    expectRefused(withMetadata("deep.capture", std::string(100000, '[') + std::string(100000, ']')), "capture metadata");
    expectRefused(withMetadata("syntax.capture", "{\"version\": 1,"), "capture metadata");
  }
};

QTEST_GUILESS_MAIN(CaptureFileTest)
#include "CaptureFileTest.moc"
