// Quantized programs made by real torchao and torch.export (tests/fixtures/make_quant_fixtures.py):
// the FX table is torch's, and every node's output is what torch.fx.Interpreter computed in Python,
// bit for bit, with the quantized ops run by our native kernels and subclass weights read as data.
#include <QtTest>
#include <algorithm>
#include <cmath>
#include <fstream>
#include <map>
#include <set>

#include "../program/FixtureZoo.h"
#include "RunComparison.h"
#include "exec/AtenBackend.h"
#include "exec/Session.h"
#include "formats/IrWriter.h"
#include "program/LoadError.h"
#include "formats/ProgramLoader.h"
#include "program/ProgramSummary.h"
#include "program/QuantOps.h"
#include "formats/Safetensors.h"
#include "program/TensorValues.h"

using namespace torchir;
using namespace torchir::test;

namespace {

std::string quantDir() { return fixturesDir() + "/quant"; }
std::string quantPath(const std::string& name, const std::string& suffix) {
  return quantDir() + "/" + name + "/" + name + suffix;
}
std::string crafted(const std::string& file) { return std::string(TORCHIR_CRAFTED) + "/" + file; }

void addQuantRows() {
  QTest::addColumn<QString>("name");
  QTest::addColumn<bool>("ir");
  const auto manifest = readJson(quantDir() + "/manifest.json");
  for (const auto& f : manifest.at("fixtures"))
    QTest::newRow(f.at("name").get<std::string>().c_str())
        << QString::fromStdString(f.at("name").get<std::string>()) << f.at("ir").get<bool>();
}

/// After each node, its outputs against the Interpreter's tensors of the same node.
class InterpreterCheck : public RunObserver {
 public:
  InterpreterCheck(const Session& s, const TensorMap& expected) : m_session(s), m_expected(expected) {
    const Program& p = s.program();
    // the Interpreter names a node's one tensor by the node, a tuple's by node.i; a .pt2's getitem
    // nodes name the same values again
    for (const Node& n : p.nodes) {
      if (n.opcode != Opcode::CallFunction) continue;
      if (n.outputs.size() == 1 && m_expected.count(n.name)) m_keys.emplace(n.outputs[0], n.name);
      for (std::size_t i = 0; i < n.outputs.size(); ++i)
        if (m_expected.count(n.name + "." + std::to_string(i))) m_keys.emplace(n.outputs[i], n.name + "." + std::to_string(i));
    }
  }
  bool afterNode(NodeId id, Diagnosis&) override {
    for (ValueId v : m_session.program().node(id).outputs) {
      auto [from, to] = m_keys.equal_range(v);
      for (auto it = from; it != to; ++it) {
        const auto ours = m_session.tensor(v);
        if (!ours) m_mismatches.push_back(it->second + ": no value");
        else if (const double err = relativeError(*ours, m_expected.at(it->second)); err != 0)
          m_mismatches.push_back(it->second + " differs by " + std::to_string(err) + " (" +
                                 std::string(dtypeName(ours->dtype)) + sizesText(ours->sizes) + " vs " +
                                 std::string(dtypeName(m_expected.at(it->second).dtype)) +
                                 sizesText(m_expected.at(it->second).sizes) + ")");
        m_compared.insert(it->second);
      }
    }
    return false;
  }
  const Session& m_session;
  const TensorMap& m_expected;
  std::multimap<ValueId, std::string> m_keys;
  std::set<std::string> m_compared;
  std::vector<std::string> m_mismatches;
};

}  // namespace

class QuantizedTest : public QObject {
  Q_OBJECT
 private Q_SLOTS:
  void initTestCase() { atenBackend().setThreads(1); }

  void tableIsTorchs_data() { addQuantRows(); }
  void tableIsTorchs() {
    QFETCH(QString, name);
    const std::string n = name.toStdString();
    const Program p = loadProgram(quantPath(n, ".pt2"));
    const std::string mismatch = fxTableMismatchWith(p, quantPath(n, ".table.json"));
    QVERIFY2(mismatch.empty(), mismatch.c_str());
    QVERIFY2(p.missingData().empty(), "a weight reads as having no data");
  }

  // Every node's output, compared when the node has run (a later in-place op changes it).
  void everyNodeIsTheInterpreters_data() { addQuantRows(); }
  void everyNodeIsTheInterpreters() {
    QFETCH(QString, name);
    const std::string n = name.toStdString();
    const Program p = loadProgram(quantPath(n, ".pt2"));
    auto s = atenBackend().createSession(p);
    QVERIFY(s->setInputs(inputsOf(quantPath(n, ".inputs.safetensors"))).ok());
    const TensorMap expected = readSafetensors(quantPath(n, ".nodes.safetensors"));
    InterpreterCheck check(*s, expected);
    const StepOutcome o = s->run(&check);
    QVERIFY2(o.reason == StopReason::Finished, (o.diagnosis.nodeName + ": " + o.diagnosis.message).c_str());
    QVERIFY2(check.m_mismatches.empty(), check.m_mismatches.empty() ? "" : check.m_mismatches.front().c_str());
    QCOMPARE(check.m_compared.size(), expected.size());  // every tensor the Interpreter made
    runAndCompare(*s, quantPath(n, ".inputs.safetensors"), quantPath(n, ".outputs.safetensors"));
  }

  // pytorch-ir's IR JSON of the same program runs to the same bits, its weights from safetensors,
  // or, for torchao's tensor-subclass weights, from a torch.save'd state dict read as data.
  void irRunsToTheSameBits_data() { addQuantRows(); }
  void irRunsToTheSameBits() {
    QFETCH(QString, name);
    QFETCH(bool, ir);
    const std::string n = name.toStdString();
    if (!ir) QSKIP("pytorch-ir refused the program");
    const bool safetensors = std::ifstream(quantPath(n, ".weights.safetensors")).good();
    const Program p = loadProgram(quantPath(n, ".ir.json"),
                                  {quantPath(n, safetensors ? ".weights.safetensors" : ".state_dict.pt"), {}});
    if (!safetensors)
      QVERIFY(std::any_of(p.weights.begin(), p.weights.end(), [](const auto& w) { return w.second.subclass != nullptr; }));
    auto s = atenBackend().createSession(p);
    runAndCompare(*s, quantPath(n, ".inputs.safetensors"), quantPath(n, ".outputs.safetensors"));
  }

  // `torchir convert` writes what pytorch-ir wrote: the quantized ops' schemas are ours now, and
  // place their arguments as pytorch-ir's analyzer does. The model's name is the caller's choice
  // in pytorch-ir's API, so it is not compared.
  void convertIsPytorchIrs_data() { addQuantRows(); }
  void convertIsPytorchIrs() {
    QFETCH(QString, name);
    QFETCH(bool, ir);
    const std::string n = name.toStdString();
    if (!ir) QSKIP("pytorch-ir refused the program");
    const Program p = loadProgram(quantPath(n, ".pt2"));
    const SchemaLookup schemas = [](const std::string& op) { return atenBackend().schemaSpecs(op); };
    auto ours = parseLenientJson(dumpPythonJson(toIrJson(p, "", schemas)));
    std::ifstream f(quantPath(n, ".ir.json"));
    auto theirs = parseLenientJson(std::string(std::istreambuf_iterator<char>(f), {}));
    for (const char* key : {"pytorch_version", "model_name"}) ours.erase(key), theirs.erase(key);
    for (const auto& [key, value] : theirs.items()) QVERIFY2(ours[key] == value, (n + ": " + key + " differs").c_str());
    QCOMPARE(ours.size(), theirs.size());
  }

  // Edit and continue and step back work on quantization as on any op: a quantize node's scale
  // doubled halves its codes' distance from the zero point; a step back makes the same bits again.
  void editAndStepBackOnAQuantizeNode() {
    const Program p = loadProgram(quantPath("q_pt2e_cnn", ".pt2"));
    auto s = atenBackend().createSession(p);
    QVERIFY(s->setInputs(inputsOf(quantPath("q_pt2e_cnn", ".inputs.safetensors"))).ok());
    const NodeId q = *p.findNode("quantize_per_tensor");
    const ValueId codes = p.node(q).outputs.at(0);
    QCOMPARE(s->runTo(q).reason, StopReason::Stepped);
    const TensorData asExported = *s->tensor(codes);
    QCOMPARE(s->stepBack().reason, StopReason::Stepped);
    QCOMPARE(s->position(), q);
    QCOMPARE(s->step().reason, StopReason::Stepped);
    QVERIFY(sameTensor(*s->tensor(codes), asExported));
    double scale = 0;
    for (const auto& a : p.node(q).inputs)
      if (const auto* f = a.arg.as<arg::Float>(); f && a.name == "scale") scale = f->value;
    QVERIFY(scale > 0);
    s->setPatches(q, {ArgumentPatch{"scale", ArgumentPatch::Kind::Scalar, 2 * scale, DType::Unknown, {}, {}, kNone}});
    s->reset();
    QVERIFY(s->setInputs(inputsOf(quantPath("q_pt2e_cnn", ".inputs.safetensors"))).ok());
    QCOMPARE(s->runTo(q).reason, StopReason::Stepped);
    const TensorData edited = *s->tensor(codes);
    int64_t closer = 0;
    for (int64_t i = 0; i < edited.numel(); ++i)
      closer += std::abs(elementAsDouble(edited, i) - 132) <= std::abs(elementAsDouble(asExported, i) - 132);
    QCOMPARE(closer, edited.numel());
    QVERIFY(!sameTensor(edited, asExported));
  }

  // A node made of the program's constants alone (a weight's dequantize) is computed at a
  // session's first run and reused at the next: the Interpreter's bits both times, marked cached.
  void constantNodesAreComputedOnce_data() { addQuantRows(); }
  void constantNodesAreComputedOnce() {
    QFETCH(QString, name);
    const std::string n = name.toStdString();
    const Program p = loadProgram(quantPath(n, ".pt2"));
    auto s = atenBackend().createSession(p);
    const auto inputs = inputsOf(quantPath(n, ".inputs.safetensors"));
    const TensorMap expected = readSafetensors(quantPath(n, ".nodes.safetensors"));
    std::vector<NodeId> weightDequantizes;  // a dequantize whose codes are a weight
    for (const Node& node : p.nodes)
      if (quantRole(node.target) == QuantRole::Dequantize && !node.inputs.empty() && !node.inputs[0].values.empty())
        if (const InputSpec* spec = p.inputSpecFor(node.inputs[0].values[0]); spec && spec->kind != InputKind::UserInput)
          weightDequantizes.push_back(node.id);
    if (n.rfind("q_pt2e", 0) == 0) QVERIFY(!weightDequantizes.empty());
    for (int run = 0; run < 2; ++run) {
      QVERIFY(s->setInputs(inputs).ok());
      InterpreterCheck check(*s, expected);
      const StepOutcome o = s->run(&check);
      QVERIFY2(o.reason == StopReason::Finished, (o.diagnosis.nodeName + ": " + o.diagnosis.message).c_str());
      QVERIFY2(check.m_mismatches.empty(), check.m_mismatches.empty() ? "" : check.m_mismatches.front().c_str());
      for (const Node& node : p.nodes) {
        const NodeRecord* r = s->record(node.id);
        if (run == 0) QVERIFY2(!r || !r->cached, node.name.c_str());
        if (r && r->cached) QVERIFY2(!r->arguments.empty(), node.name.c_str());  // shown as called
      }
      for (NodeId d : weightDequantizes) QCOMPARE(s->record(d)->cached, run == 1);
    }
  }

  // A change to a reused node's call (edit and continue) is made at the next run, and so is
  // taking it back: nothing stale is reused.
  void editingAConstantNodeComputesItAgain() {
    const Program p = loadProgram(quantPath("q_pt2e_cnn", ".pt2"));
    auto s = atenBackend().createSession(p);
    const auto inputs = inputsOf(quantPath("q_pt2e_cnn", ".inputs.safetensors"));
    const NodeId d = *p.findNode("dequantize_per_channel");
    const ValueId weight = p.node(d).outputs.at(0);
    struct Run {
      TensorData weight;
      bool cached;
    };
    auto runOnce = [&] {
      s->reset();
      if (s->run().reason != StopReason::Finished) throw std::runtime_error("the run did not finish");
      return Run{*s->tensor(weight), s->record(d)->cached};
    };
    QVERIFY(s->setInputs(inputs).ok());
    const Run computed = runOnce();
    QVERIFY(!computed.cached);
    QVERIFY(runOnce().cached);
    s->setPatches(d, {ArgumentPatch{"scales", ArgumentPatch::Kind::Fill, 0, DType::Unknown, {}, {}, kNone}});
    for (int run = 0; run < 2; ++run) {
      const Run edited = runOnce();
      QVERIFY(!edited.cached);
      QCOMPARE(elementAsDouble(edited.weight, 0), 0.0);
      QVERIFY(!sameTensor(edited.weight, computed.weight));
    }
    s->setPatches(d, {});
    const Run back = runOnce();
    QVERIFY(!back.cached);
    QVERIFY(sameTensor(back.weight, computed.weight));
    const Run again = runOnce();
    QVERIFY(again.cached);
    QVERIFY(sameTensor(again.weight, computed.weight));
    // a step back replays the run: the reused node, then the op after it, to the same bits
    QCOMPARE(s->stepBack().reason, StopReason::Stepped);
    QCOMPARE(s->step().reason, StopReason::Finished);
    QVERIFY(sameTensor(*s->tensor(weight), computed.weight));
  }

  void infoCountsQuantization() {
    const ProgramSummary s = summarize(loadProgram(quantPath("q_pt2e_cnn", ".pt2")));
    const std::vector<std::pair<std::string, int>> nodes{{"dequantize", 7}, {"quantize", 3}};
    QCOMPARE(s.quantNodes, nodes);
    QVERIFY(!s.quantDtypes.empty());
    const ProgramSummary ao = summarize(loadProgram(quantPath("q_ao_int8_weight_only", ".pt2")));
    const std::vector<std::pair<std::string, int>> subclasses{{"torchao.quantization.Int8Tensor", 2}};
    QCOMPARE(ao.subclassWeights, subclasses);
  }

  // A subclass's weight is data: its inner tensors and fields, never an object built.
  void subclassWeightsAreData() {
    const Program p = loadProgram(quantPath("q_ao_int8_weight_only", ".pt2"));
    const TensorData& w = p.weights.at("fc1.weight");
    QVERIFY(w.subclass);
    QCOMPARE(w.dtype, DType::Float32);  // the outer tensor, as the model sees it
    QCOMPARE(w.sizes, (std::vector<int64_t>{64, 32}));
    const TensorData* qdata = w.subclass->innerTensor("qdata");
    QVERIFY(qdata && qdata->dtype == DType::Int8 && qdata->sizes == w.sizes && qdata->hasData());
    QVERIFY(w.subclass->innerTensor("scale"));
    bool blockSize = false;
    for (const auto& [field, text] : w.subclass->fields) blockSize |= field == "block_size" && text == "[1, 32]";
    QVERIFY(blockSize);
  }

  // An unknown class is shown by name and runs as the class it stands for; a call inside its
  // state is kept as words.
  void unknownSubclassIsShownByName() {
    for (const char* file : {"subclass_unknown_class.pt2", "subclass_calls_system.pt2"}) {
      const Program p = loadProgram(crafted(file));
      const TensorData& w = p.weights.at("fc1.weight");
      QVERIFY(w.subclass);
      QCOMPARE(QString::fromStdString(w.subclass->className), QString("mylib.secret.NotOurs"));
    }
    const Program p = loadProgram(crafted("subclass_unknown_class.pt2"));
    runAndCompare(*atenBackend().createSession(p), quantPath("q_ao_int8_weight_only", ".inputs.safetensors"),
                  quantPath("q_ao_int8_weight_only", ".outputs.safetensors"));
    const Program called = loadProgram(crafted("subclass_calls_system.pt2"));
    QCOMPARE(QString::fromStdString(called.weights.at("fc1.weight").subclass->fields.at(0).second),
             QString("system('echo pwned')"));
  }

  void craftedSubclassesGetOneLine_data() {
    QTest::addColumn<QString>("file");
    QTest::addColumn<QString>("says");
    QTest::newRow("inner tensor past its storage") << "subclass_inner_past_storage.pt2" << "is shorter than its";
    QTest::newRow("state not a dict") << "subclass_state_not_dict.pt2" << "NotOurs's state is a int, not a dict";
    QTest::newRow("10^6-deep state") << "subclass_deep_state.pt2" << "nested deeper than 64";
  }
  void craftedSubclassesGetOneLine() {
    QFETCH(QString, file);
    QFETCH(QString, says);
    QString message;
    try {
      loadProgram(crafted(file.toStdString()));
    } catch (const LoadError& e) {
      message = QString::fromStdString(e.what());
    }
    QVERIFY2(message.startsWith(QString::fromStdString(crafted(file.toStdString())) + ": weight 'fc1.weight'"),
             qPrintable(message));
    QVERIFY2(message.contains(says), qPrintable(message));
    QVERIFY(!message.contains('\n'));
  }
};

QTEST_GUILESS_MAIN(QuantizedTest)
#include "QuantizedTest.moc"
