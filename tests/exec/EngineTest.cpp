// The ATen fallback engine on the fixture zoo: outputs against eager PyTorch, the failures the
// seed documents, and stepping.
#include <QtTest>
#include <cmath>

#include "../program/FixtureZoo.h"
#include "RunComparison.h"
#include "exec/AtenBackend.h"
#include "exec/Session.h"
#include "formats/ProgramLoader.h"
#include "formats/Safetensors.h"
#include "program/TensorValues.h"

using namespace torchir;
using namespace torchir::test;

namespace {

std::unique_ptr<Session> sessionFor(const Program& p) { return atenBackend().createSession(p); }

const Node& nodeNamed(const Program& p, const std::string& name) { return p.node(*p.findNode(name)); }

}  // namespace

class EngineTest : public QObject {
  Q_OBJECT
 private Q_SLOTS:
  void runsLikeEagerPyTorch_data() { addFixtureRows(); }
  void runsLikeEagerPyTorch() {
    QFETCH(QString, name);
    QFETCH(bool, eagerFails);
    if (eagerFails) QSKIP("eager PyTorch fails on this program: halfBeforeLinear covers it");
    QFETCH(bool, customOp);
    if (customOp) QSKIP("a Python custom op: HigherOrderTest checks its OpNotFound diagnosis");
    QFETCH(bool, meta);
    if (meta) QSKIP("no weights: metaExportRunsOnceGivenWeights covers it");
    const std::string n = name.toStdString();
    runAndCompare(loadProgram(fixturePath(n, ".pt2")), n);
  }

  void mixedPrecisionStopsWithDtypeMismatch() {
    const Program p = loadProgram(fixturePath("mixed_precision", ".pt2"));
    auto s = sessionFor(p);
    QVERIFY(s->setInputs(inputsOf(fixturePath("mixed_precision", ".inputs_fp16.safetensors"))).ok());
    const StepOutcome o = s->run();
    QCOMPARE(o.reason, StopReason::Failed);
    QCOMPARE(o.diagnosis.kind, DiagnosisClass::DtypeMismatch);
    QCOMPARE(QString::fromStdString(o.diagnosis.nodeName), QString("linear"));
    QCOMPARE(s->position(), o.diagnosis.node);  // the failed node is where the run stands
    const QString why = QString::fromStdString(o.diagnosis.explanation);
    QVERIFY2(why.contains("'input' (float16)") && why.contains("'weight' (float32)"), qPrintable(why));
    QCOMPARE(o.diagnosis.arguments.at(0).value.dtype, DType::Float16);
    QCOMPARE(o.diagnosis.arguments.at(1).value.dtype, DType::Float32);
  }

  void halfBeforeLinearFailsWhereEagerDoes() {
    const Program p = loadProgram(fixturePath("half_before_linear", ".pt2"));
    auto s = sessionFor(p);
    QVERIFY(s->setInputs(p.sampleInputs).ok());
    const StepOutcome o = s->run();
    QCOMPARE(o.reason, StopReason::Failed);
    QCOMPARE(o.diagnosis.kind, DiagnosisClass::DtypeMismatch);
    QCOMPARE(QString::fromStdString(o.diagnosis.nodeName), QString("linear"));
    const QString why = QString::fromStdString(o.diagnosis.explanation);
    QVERIFY2(why.contains("'input' (float16)") && why.contains("'weight' (float32)"), qPrintable(why));
    // The float16 input was made by the cast node, which ran before the failure.
    const Value& half = p.value(*p.findValue(o.diagnosis.arguments.at(0).sourceDetail));
    QVERIFY(p.node(half.producer).opcode == Opcode::CallFunction);
    QVERIFY(s->record(half.producer));
  }

  void missingLiftedConstantIsNamedAndCanBeSupplied() {
    const std::string n = "meta_lifted_constant";
    const auto inputs = inputsOf(fixturePath(n, ".inputs.safetensors"));
    {
      const Program p = loadProgram(fixturePath(n, ".pt2"), LoadOptions{fixturePath(n, ".weights.safetensors"), ""});
      QCOMPARE(p.missingData(), std::vector<std::string>{"mask"});
      auto s = sessionFor(p);
      QVERIFY(s->setInputs(inputs).ok());
      const StepOutcome o = s->run();
      QCOMPARE(o.diagnosis.kind, DiagnosisClass::MissingData);
      QCOMPARE(QString::fromStdString(o.diagnosis.nodeName), QString("mul"));
      QVERIFY2(QString::fromStdString(o.diagnosis.message).contains("'c_mask'"), o.diagnosis.message.c_str());
    }
    const Program p = loadProgram(fixturePath(n, ".pt2"), LoadOptions{fixturePath(n, ".weights.safetensors"),
                                                                      fixturePath(n, ".constants.safetensors")});
    QVERIFY(p.missingData().empty());
    auto s = sessionFor(p);
    QVERIFY(s->setInputs(inputs).ok());
    QCOMPARE(s->run().reason, StopReason::Finished);
    const TensorMap expected = readSafetensors(fixturePath(n, ".outputs.safetensors"));
    QVERIFY(relativeError(s->outputs().at(0), expected.at("output_0")) <= 1e-6);
  }

  void metaExportRunsOnceGivenWeights() {
    const auto path = fixturePath("meta_mlp", ".pt2");
    const auto inputs = inputsOf(fixturePath("mlp", ".inputs.safetensors"));
    {
      const Program p = loadProgram(path);
      auto s = sessionFor(p);
      QVERIFY(s->setInputs(inputs).ok());
      const StepOutcome o = s->run();
      QCOMPARE(o.diagnosis.kind, DiagnosisClass::MissingData);
      QVERIFY(QString::fromStdString(o.diagnosis.message).contains("fc1.weight"));
    }
    const Program p = loadProgram(path, LoadOptions{fixturePath("mlp", ".weights.safetensors"), ""});
    auto s = sessionFor(p);
    QVERIFY(s->setInputs(inputs).ok());
    QCOMPARE(s->run().reason, StopReason::Finished);
    const TensorMap expected = readSafetensors(fixturePath("mlp", ".outputs.safetensors"));
    QCOMPARE(relativeError(s->outputs().at(0), expected.at("output_0")), 0.0);
  }

  void dynamicBatchRunsAtTwoSizesAndRefusesOutOfRange() {
    const Program p = loadProgram(fixturePath("dynamic_batch", ".pt2"));
    auto s = sessionFor(p);
    QVERIFY(s->setInputs(p.sampleInputs).ok());  // batch 4, as exported
    QCOMPARE(s->run().reason, StopReason::Finished);
    QCOMPARE(s->outputs().at(0).sizes, (std::vector<int64_t>{4, 8}));
    TensorData seven = p.sampleInputs.at(0);  // batch 7: a view over 7 rows of a bigger buffer
    auto bytes = std::make_shared<std::vector<std::byte>>(100 * 16 * 4, std::byte{0});
    seven.sizes = {7, 16};
    seven.strides = {16, 1};
    seven.storageOffset = 0;
    seven.storage = std::make_shared<Storage>(Storage{bytes->data(), bytes->size(), bytes, "test"});
    QVERIFY(s->setInputs({seven}).ok());
    QCOMPARE(s->run().reason, StopReason::Finished);
    QCOMPARE(s->outputs().at(0).sizes, (std::vector<int64_t>{7, 8}));
    seven.sizes = {100, 16};
    const Diagnosis d = s->setInputs({seven});
    QCOMPARE(d.kind, DiagnosisClass::SymbolOutOfRange);
    QVERIFY2(QString::fromStdString(d.message).contains("[1, 64]"), d.message.c_str());
  }

  void symbolicShapeArithmeticFollowsTheInputs() {
    const Program p = loadProgram(fixturePath("dynamic_reshape", ".pt2"));
    auto s = sessionFor(p);
    TensorData six = p.sampleInputs.at(0);
    auto bytes = std::make_shared<std::vector<std::byte>>(6 * 8 * 4, std::byte{0});
    six.sizes = {6, 8};
    six.strides = {8, 1};
    six.storage = std::make_shared<Storage>(Storage{bytes->data(), bytes->size(), bytes, "test"});
    QVERIFY(s->setInputs({six}).ok());
    const StepOutcome o = s->run();
    QVERIFY2(o.reason == StopReason::Finished, o.diagnosis.message.c_str());
    QCOMPARE(s->outputs().at(0).sizes, (std::vector<int64_t>{12, 2}));  // reshape(b * 2, -1) with b = 6
    const NodeRecord* add = s->record(*p.findNode("add"));  // b // 2 + 1
    QVERIFY(add);
    QCOMPARE(QString::fromStdString(add->outputs.at(0).text), QString("4"));
  }

  // `x * 0.7` passes the number in a Tensor slot. ATen casts it to the other operand's dtype;
  // for float32 the engine makes that cast once per node instead of once per call. Every float
  // dtype must still give eager's bits: half and bfloat16 kernels read the number uncast, so a
  // cast made there would change the results. The argument view shows the number as written.
  void numbersInTensorSlotsGiveEagersBits_data() {
    QTest::addColumn<QString>("file");
    QTest::addColumn<QString>("tag");
    for (const char* file : {".pt2", ".ir.json"})
      for (const char* tag : {"", "_f64", "_f16", "_bf16"}) QTest::newRow((std::string(file) + tag).c_str()) << file << tag;
  }
  void numbersInTensorSlotsGiveEagersBits() {
    QFETCH(QString, file);
    QFETCH(QString, tag);
    const std::string suffix = tag.toStdString() + ".safetensors";
    const Program p = file == ".pt2" ? loadProgram(fixturePath("scalar_ops", ".pt2"))
                                     : loadProgram(fixturePath("scalar_ops", ".ir.json"), LoadOptions{});
    auto s = sessionFor(p);
    QVERIFY(s->setInputs(inputsOf(fixturePath("scalar_ops", ".inputs" + suffix))).ok());
    const StepOutcome o = s->run();
    QVERIFY2(o.reason == StopReason::Finished, o.diagnosis.message.c_str());
    const TensorMap expected = readSafetensors(fixturePath("scalar_ops", ".outputs" + suffix));
    QCOMPARE(s->outputs().size(), std::size_t(1));
    QCOMPARE(s->outputs().at(0).dtype, expected.at("output_0").dtype);
    QCOMPARE(relativeError(s->outputs().at(0), expected.at("output_0")), 0.0);
    bool sawNumber = false;
    for (const auto& n : p.nodes) {
      if (n.target != "aten.mul.Tensor") continue;
      const NodeRecord* r = s->record(n.id);
      QVERIFY(r);
      const auto& other = r->arguments.at(1);
      QCOMPARE(other.source, ArgSource::Attribute);
      sawNumber |= other.value.text == "0.7";
    }
    QVERIFY(sawNumber);
  }

  void stepRecordsArguments() {
    const Program p = loadProgram(fixturePath("mlp", ".pt2"));
    auto s = sessionFor(p);
    QVERIFY(s->setInputs(p.sampleInputs).ok());
    const NodeId linear = nodeNamed(p, "linear").id;
    QCOMPARE(s->position(), linear);  // placeholders are passed on the way
    QCOMPARE(s->step().reason, StopReason::Stepped);
    QCOMPARE(s->position(), nodeNamed(p, "relu").id);
    const NodeRecord* r = s->record(linear);
    QVERIFY(r);
    QCOMPARE(r->arguments.size(), std::size_t(3));
    QCOMPARE(QString::fromStdString(r->arguments[1].name), QString("weight"));
    QCOMPARE(r->arguments[1].value.sizes, (std::vector<int64_t>{32, 16}));
    QCOMPARE(r->arguments[1].source, ArgSource::Input);
    QCOMPARE(QString::fromStdString(r->arguments[1].sourceDetail), QString("p_fc1_weight"));
    QCOMPARE(r->outputs.at(0).sizes, (std::vector<int64_t>{2, 32}));
    QVERIFY(!s->record(nodeNamed(p, "relu").id));
  }

  void defaultsAreFilledAndMarked() {
    const Program p = loadProgram(fixturePath("cnn_bn", ".pt2"));
    auto s = sessionFor(p);
    QVERIFY(s->setInputs(p.sampleInputs).ok());
    const NodeId pool = nodeNamed(p, "max_pool2d").id;
    QCOMPARE(s->runTo(pool).reason, StopReason::Stepped);
    const NodeRecord* r = s->record(pool);
    QVERIFY(r);
    bool sawDefault = false;
    for (const auto& a : r->arguments) sawDefault |= a.source == ArgSource::Default && a.name == "ceil_mode";
    QVERIFY(sawDefault);
  }

  void runToStopsAfterTheNode() {
    const Program p = loadProgram(fixturePath("resnet18", ".pt2"));
    auto s = sessionFor(p);
    QVERIFY(s->setInputs(p.sampleInputs).ok());
    const NodeId target = nodeNamed(p, "relu__3").id;
    QCOMPARE(s->runTo(target).reason, StopReason::Stepped);
    QVERIFY(s->record(target));
    QVERIFY(s->position() > target);
    QVERIFY(!s->record(s->position()));
  }

  void breakpointStopsBeforeTheNode() {
    const Program p = loadProgram(fixturePath("resnet18", ".pt2"));
    auto s = sessionFor(p);
    QVERIFY(s->setInputs(p.sampleInputs).ok());
    const NodeId bp = nodeNamed(p, "add_").id;
    s->setBreakpoints({bp});
    QCOMPARE(s->run().reason, StopReason::Breakpoint);
    QCOMPARE(s->position(), bp);
    QVERIFY(!s->record(bp));
    QCOMPARE(s->run().reason, StopReason::Finished);  // continuing leaves the breakpoint behind
  }

  void stopConditionNanOrInf() {
    const Program p = loadProgram(fixturePath("masked_softmax", ".pt2"));
    auto s = sessionFor(p);
    QVERIFY(s->setInputs(p.sampleInputs).ok());
    s->setStopConditions(StopConditions{true, false, false});
    const StepOutcome o = s->run();
    QCOMPARE(o.reason, StopReason::StopCondition);
    QCOMPARE(o.diagnosis.kind, DiagnosisClass::NanOrInf);
    QCOMPARE(QString::fromStdString(o.diagnosis.nodeName), QString("masked_fill"));
    QVERIFY(s->record(o.diagnosis.node));
  }

  // scalar_ops was exported for float32; on float64 inputs every op runs (nothing fails) and
  // makes float64: the condition, not a failure, stops the run at the first op.
  void stopConditionDtypeDiffers() {
    const Program p = loadProgram(fixturePath("scalar_ops", ".pt2"));
    auto s = sessionFor(p);
    QVERIFY(s->setInputs(inputsOf(fixturePath("scalar_ops", ".inputs_f64.safetensors"))).ok());
    QCOMPARE(s->run().reason, StopReason::Finished);  // without the condition, the run goes through
    s->reset();
    s->setStopConditions(StopConditions{false, true, false});
    const StepOutcome o = s->run();
    QCOMPARE(o.reason, StopReason::StopCondition);
    QCOMPARE(o.diagnosis.kind, DiagnosisClass::DtypeDiffersFromExport);
    QCOMPARE(QString::fromStdString(o.diagnosis.nodeName), QString("mul"));
    QCOMPARE(QString::fromStdString(o.diagnosis.message), QString("output 'mul' is float64, export recorded float32"));
    QVERIFY(s->record(o.diagnosis.node));
    QCOMPARE(s->run().reason, StopReason::StopCondition);  // Continue stops at the next such op
  }

  void resetStartsOver() {
    const Program p = loadProgram(fixturePath("mutated_buffer", ".pt2"));
    auto s = sessionFor(p);
    QVERIFY(s->setInputs(p.sampleInputs).ok());
    QCOMPARE(s->run().reason, StopReason::Finished);
    const TensorData first = s->outputs().at(0);
    s->reset();
    QVERIFY(!s->finished());
    QVERIFY(!s->record(nodeNamed(p, "add").id));
    QCOMPARE(s->run().reason, StopReason::Finished);
    QCOMPARE(relativeError(s->outputs().at(0), first), 0.0);  // reset restores buffers as loaded
  }

  void memoryBudgetReleasesValuesNoLaterNodeNeeds() {
    const Program p = loadProgram(fixturePath("resnet18", ".pt2"));
    const ValueId firstConv = p.node(*p.findNode("conv2d")).outputs.at(0);
    auto s = sessionFor(p);
    QVERIFY(s->setInputs(p.sampleInputs).ok());
    QCOMPARE(s->run().reason, StopReason::Finished);
    QVERIFY(!s->released(firstConv));  // the default budget keeps everything of this run
    QVERIFY(s->tensor(firstConv));
    const TensorData unlimited = s->outputs().at(0);

    s->setMemoryBudget(1 << 20);  // 1 MiB: far less than resnet18's activations
    s->reset();
    QCOMPARE(s->run().reason, StopReason::Finished);
    QVERIFY(s->released(firstConv));
    QVERIFY(!s->tensor(firstConv));
    const NodeRecord* r = s->record(p.node(*p.findNode("conv2d")).id);
    QVERIFY(r);  // its argument view survives the release
    QCOMPARE(r->outputs.at(0).sizes, (std::vector<int64_t>{1, 64, 32, 32}));
    QCOMPARE(relativeError(s->outputs().at(0), unlimited), 0.0);
  }

  void cancelStopsBetweenNodes() {
    const Program p = loadProgram(fixturePath("gpt2", ".pt2"));
    auto s = sessionFor(p);
    QVERIFY(s->setInputs(p.sampleInputs).ok());
    s->requestCancel();
    QCOMPARE(s->run().reason, StopReason::Cancelled);
    QVERIFY(!s->finished());
  }
};

QTEST_APPLESS_MAIN(EngineTest)
#include "EngineTest.moc"
