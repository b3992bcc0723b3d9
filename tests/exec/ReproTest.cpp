// The .pt2 writer and repro extraction, in process: every fixture written back out reads as the
// source (torch's own FX table, the weights, the sample inputs) with aligned records and runs to
// eager's bits; what cannot be written or cut out is refused in words. That torch.export.load
// runs repros is tests/repro/check_repros.py's part.
#include <QTemporaryDir>
#include <fstream>
#include <QtTest>

#include "RunComparison.h"
#include "formats/ProgramLoader.h"
#include "formats/Pt2Archive.h"
#include "formats/Pt2Writer.h"
#include "repro/Repro.h"

using namespace torchir;
using namespace torchir::test;

namespace {

/// A fixture whose writing must be refused, and the words that say why; "" when it can be written.
std::string refusalOf(const Program& p) {
  if (!p.missingData().empty()) return "has no data";
  if (p.isDynamic()) return "symbolic size";
  return "";
}

/// Stops the run before the first node: a user's Stop.
struct StopAtOnce : RunObserver {
  bool cancelled() override { return true; }
};

}  // namespace

class ReproTest : public QObject {
  Q_OBJECT
 private Q_SLOTS:
  void initTestCase() { atenBackend().setThreads(1); }

  void writtenProgramReadsAndRunsAsTheSource_data() { addFixtureRows(); }
  void writtenProgramReadsAndRunsAsTheSource() {
    QFETCH(QString, name);
    QFETCH(bool, eagerFails);
    QFETCH(bool, customOp);
    const std::string n = name.toStdString();
    const Program source = loadProgram(fixturePath(n, ".pt2"));
    QTemporaryDir dir;
    const std::string path = dir.filePath(name + QStringLiteral(".pt2")).toStdString();
    const std::string refusal = refusalOf(source);
    try {
      writePt2(source, atenBackend().torchSaveArgs(source.sampleInputs), path);
      QVERIFY2(refusal.empty(), ("written, though it " + refusal).c_str());
    } catch (const std::invalid_argument& e) {
      QVERIFY2(!refusal.empty() && std::string(e.what()).find(refusal) != std::string::npos, e.what());
      return;
    }
    const Program written = loadProgram(path);
    const std::string table = fxTableMismatch(written, n);  // torch's own table of the source
    QVERIFY2(table.empty(), table.c_str());
    QCOMPARE(written.weights.size(), source.weights.size());
    for (const auto& [key, tensor] : source.weights) {
      QVERIFY2(written.weights.count(key), key.c_str());
      QVERIFY2(sameTensor(written.weights.at(key), tensor), key.c_str());
    }
    QCOMPARE(written.sampleInputs.size(), source.sampleInputs.size());
    for (std::size_t i = 0; i < source.sampleInputs.size(); ++i)
      QVERIFY(sameTensor(written.sampleInputs[i], source.sampleInputs[i]));
    QCOMPARE(written.source.verifiers, source.source.verifiers);
    // every record's data starts on a 64-byte boundary of the file (the map is page-aligned)
    const Pt2Archive archive(path);
    for (const std::string& record : archive.records()) {
      const auto bytes = archive.storage(record);
      if (bytes->nbytes == 0) continue;
      QVERIFY2(reinterpret_cast<std::uintptr_t>(bytes->data) % 64 == 0, record.c_str());
    }
    if (!eagerFails && !customOp && fixtureHas(n, ".outputs.safetensors")) runAndCompare(written, n);
  }

  void aChangedCallInsideThePartIsRefused() {
    const Program p = loadProgram(fixturePath("mlp", ".pt2"));
    auto s = atenBackend().createSession(p);
    QVERIFY(s->setInputs(p.sampleInputs).ok());
    ArgumentPatch fill;
    fill.argument = "self";
    fill.kind = ArgumentPatch::Kind::Fill;
    fill.value = 1;
    s->setPatches(*p.findNode("relu"), {fill});
    try {
      extractRepro(*s, {ReproPart::Node, "relu"});
      QFAIL("a changed call was cut out");
    } catch (const std::invalid_argument& e) {
      QVERIFY2(std::string(e.what()).find("change to its call") != std::string::npos, e.what());
    }
    // outside the part, a change is what the part received: fc2 takes relu's filled output
    const Repro r = extractRepro(*s, {ReproPart::Module, "fc2"});
    QCOMPARE(r.inputs.size(), std::size_t{1});
    for (int64_t i = 0; i < r.inputs[0].numel(); ++i) QCOMPARE(elementAsDouble(r.inputs[0], i), 1.0);
  }

  // A stranger's text (a module path, the file's name) stays words in the repro's docstring: a
  // crafted name cannot end it and make the script run code of its own.
  void aStrangersTextStaysInTheDocstring() {
    const Program p = loadProgram(fixturePath("mlp", ".pt2"));
    auto s = atenBackend().createSession(p);
    QVERIFY(s->setInputs(p.sampleInputs).ok());
    Repro r = extractRepro(*s, {ReproPart::Node, "relu"});
    r.description = "module 'a\"\"\"\nimport os; os.system(\"touch pwned\")\n\"\"\"\\' of x.pt2";
    QTemporaryDir dir;
    const auto files = writeRepro(r, dir.filePath(QStringLiteral("we\"\"\"ird.pt2")).toStdString());
    std::string py;
    for (const auto& f : files)
      if (f.size() > 3 && f.compare(f.size() - 3, 3, ".py") == 0) {
        std::ifstream in(f);
        py.assign(std::istreambuf_iterator<char>(in), {});
      }
    QVERIFY(!py.empty());
    // the module docstring ends where the script's code begins, with the hostile text inside it
    const std::size_t open = py.find("\"\"\""), close = py.find("\"\"\"", open + 3);
    QVERIFY(open != std::string::npos && close != std::string::npos);
    QCOMPARE(QString::fromStdString(py.substr(close, 18)), QStringLiteral("\"\"\"\nimport pathlib"));
    const std::string doc = py.substr(open, close - open);
    QVERIFY2(doc.find(R"(a\"\"\"\\nimport os; os.system(\"touch pwned\"))") != std::string::npos, doc.c_str());
    QVERIFY2(doc.find(R"(we\"\"\"ird.pt2)") != std::string::npos, doc.c_str());
    QVERIFY(py.find("\nimport os") == std::string::npos);
  }

  void aRunThatStopsFirstSaysSo() {
    const Program p = loadProgram(fixturePath("mlp", ".pt2"));
    auto s = atenBackend().createSession(p);
    QVERIFY(s->setInputs(p.sampleInputs).ok());
    StopAtOnce stop;
    QVERIFY_THROWS_EXCEPTION(std::runtime_error, extractRepro(*s, {ReproPart::Node, "linear_1"}, &stop));
    const Program failing = loadProgram(fixturePath("half_before_linear", ".pt2"));
    auto f = atenBackend().createSession(failing);
    QVERIFY(f->setInputs(inputsOf(fixturePath("half_before_linear", ".inputs.safetensors"))).ok());
    const NodeId last = [&] {
      NodeId n = kNone;
      for (const Node& node : failing.nodes)
        if (isOpNode(node)) n = node.id;
      return n;
    }();
    try {
      extractRepro(*f, {ReproPart::Node, failing.node(last).name});
      QFAIL("a part the run never reached was cut out");
    } catch (const std::runtime_error& e) {
      QVERIFY2(std::string(e.what()).find("stopped before") != std::string::npos, e.what());
    }
  }

  void partsAreTheNodeOrTheModule() {
    const Program p = loadProgram(fixturePath("residual", ".pt2"));
    const auto block = partNodes(p, {ReproPart::Module, "block1"});
    for (NodeId n : block) {
      bool inside = false;
      for (const ModuleFrame& f : p.node(n).moduleFrames()) inside = inside || f.path == "block1";
      QVERIFY2(inside, p.node(n).name.c_str());
    }
    QVERIFY(block.size() > 3);
    QCOMPARE(partNodes(p, {ReproPart::Node, "conv2d"}), std::vector<NodeId>{*p.findNode("conv2d")});
    QVERIFY_THROWS_EXCEPTION(std::invalid_argument, partNodes(p, {ReproPart::Module, "block"}));  // not a prefix match
    QVERIFY_THROWS_EXCEPTION(std::invalid_argument, partNodes(p, {ReproPart::Node, "x"}));
  }
};

QTEST_GUILESS_MAIN(ReproTest)
#include "ReproTest.moc"
