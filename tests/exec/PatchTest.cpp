// Edit and continue in the engine: a node's call with arguments changed (Session::setPatches),
// tried on the values it gets (tryPatches), and the fix a dtype mismatch suggests (suggestedCasts).
#include <QtTest>

#include "../program/FixtureZoo.h"
#include "RunComparison.h"
#include "exec/Patch.h"
#include "formats/ProgramLoader.h"

using namespace torchir;
using namespace torchir::test;

namespace {

const ArgumentRecord& argumentNamed(const NodeRecord& r, const std::string& name) {
  for (const auto& a : r.arguments)
    if (a.name == name) return a;
  throw std::runtime_error("no argument " + name);
}

}  // namespace

class PatchTest : public QObject {
  Q_OBJECT
 private Q_SLOTS:
  void initTestCase() { atenBackend().setThreads(1); }

  // float16 inputs for a float32 program: linear fails; the suggested cast, applied, runs the
  // program to eager's float32 bits on the same (rounded) inputs.
  void suggestedCastFixesTheMixedPrecisionFailure() {
    const Program p = loadProgram(fixturePath("mixed_precision", ".pt2"));
    const auto half = inputsOf(fixturePath("mixed_precision", ".inputs_fp16.safetensors"));
    auto s = atenBackend().createSession(p);
    QVERIFY(s->setInputs(half).ok());
    const StepOutcome failed = s->run();
    QCOMPARE(failed.reason, StopReason::Failed);
    QCOMPARE(failed.diagnosis.kind, DiagnosisClass::DtypeMismatch);
    const NodeId linear = *p.findNode("linear");
    QCOMPARE(failed.diagnosis.node, linear);

    const auto casts = suggestedCasts(p, failed.diagnosis);
    QCOMPARE(casts.size(), std::size_t{1});
    QCOMPARE(casts[0].argument, std::string("input"));
    QCOMPARE(casts[0].kind, ArgumentPatch::Kind::Cast);
    QCOMPARE(casts[0].dtype, DType::Float32);
    QCOMPARE(describePatch(casts[0]), std::string("cast to float32"));

    // tried first: the call as it is fails, the patched one gives linear's float32 output
    const PatchTrial trial = s->tryPatches(linear, casts);
    QVERIFY2(trial.beforeProblem.find("dtype") != std::string::npos, trial.beforeProblem.c_str());
    QVERIFY2(trial.afterProblem.empty(), trial.afterProblem.c_str());
    QCOMPARE(trial.after.size(), std::size_t{1});
    QCOMPARE(trial.after[0]->dtype, DType::Float32);
    QCOMPARE(s->position(), linear);  // a trial leaves the run where it was

    s->setPatches(linear, casts);
    QCOMPARE(s->run().reason, StopReason::Finished);
    const auto& input = argumentNamed(*s->record(linear), "input");
    QCOMPARE(input.source, ArgSource::Patched);
    QCOMPARE(input.value.dtype, DType::Float32);
    QVERIFY2(input.sourceDetail.find("cast to float32 (was x)") == 0, input.sourceDetail.c_str());

    // eager PyTorch's float32 run of the same inputs cast back to float32
    const TensorData reference = readSafetensors(fixturePath("mixed_precision", ".outputs_fp16_cast.safetensors")).at("output_0");
    QVERIFY(sameTensor(s->outputs().at(0), reference));

    // the patch stays for a step back's replay and a reset; an empty list takes it back
    QCOMPARE(s->stepBack().reason, StopReason::Stepped);
    QCOMPARE(s->run().reason, StopReason::Finished);
    QVERIFY(sameTensor(s->outputs().at(0), reference));
    s->setPatches(linear, {});
    QVERIFY(s->patches().empty());
    s->reset();
    QCOMPARE(s->run().reason, StopReason::Failed);
  }

  void suggestedCastOfXHalfBeforeAFloat32Layer() {
    const Program p = loadProgram(fixturePath("half_before_linear", ".pt2"));
    auto s = atenBackend().createSession(p);
    QVERIFY(s->setInputs(inputsOf(fixturePath("half_before_linear", ".inputs.safetensors"))).ok());
    const StepOutcome failed = s->run();
    QCOMPARE(failed.reason, StopReason::Failed);
    const auto casts = suggestedCasts(p, failed.diagnosis);
    QCOMPARE(casts.size(), std::size_t{1});
    QCOMPARE(casts[0].dtype, DType::Float32);  // the layer's weights' dtype
    s->setPatches(failed.diagnosis.node, casts);
    QCOMPARE(s->run().reason, StopReason::Finished);
  }

  // A number export put in a Tensor slot (x * 1e-3) takes another number; a tensor filled with a
  // value or replaced by one from a file; errors for what cannot be.
  void numbersAndFilledTensors() {
    const Program p = loadProgram(fixturePath("cancellation", ".pt2"));
    auto s = atenBackend().createSession(p);
    const auto inputs = inputsOf(fixturePath("cancellation", ".inputs.safetensors"));
    QVERIFY(s->setInputs(inputs).ok());
    const NodeId mul = *p.findNode("mul");
    QCOMPARE(s->position(), mul);
    ArgumentPatch one;
    one.argument = "other";
    one.kind = ArgumentPatch::Kind::Scalar;
    one.value = 1.0;
    const PatchTrial trial = s->tryPatches(mul, {one});
    QVERIFY2(trial.afterProblem.empty(), trial.afterProblem.c_str());
    QVERIFY(sameTensor(*trial.after[0], inputs[0]));  // x * 1 is x
    QVERIFY(!sameTensor(*trial.before[0], inputs[0]));

    ArgumentPatch fill;
    fill.argument = "self";
    fill.kind = ArgumentPatch::Kind::Fill;
    fill.value = 2.0;
    const PatchTrial filled = s->tryPatches(mul, {fill, one});
    QCOMPARE(filled.after[0]->sizes, inputs[0].sizes);
    QCOMPARE(elementAsDouble(*filled.after[0], 0), 2.0);
    QCOMPARE(elementAsDouble(*filled.after[0], filled.after[0]->numel() - 1), 2.0);

    // replaced: the tensor a .safetensors file holds, here the run's own input (x * 1 again)
    ArgumentPatch replace;
    replace.argument = "self";
    replace.kind = ArgumentPatch::Kind::Replace;
    replace.tensor = readSafetensors(fixturePath("cancellation", ".inputs.safetensors")).at("input_0");
    replace.origin = "cancellation.inputs.safetensors:input_0";
    QCOMPARE(describePatch(replace), std::string("from cancellation.inputs.safetensors:input_0"));
    const PatchTrial replaced = s->tryPatches(mul, {replace, one});
    QVERIFY2(replaced.afterProblem.empty(), replaced.afterProblem.c_str());
    QVERIFY(sameTensor(*replaced.after[0], inputs[0]));
    QCOMPARE(replaced.arguments.front().source, ArgSource::Patched);

    ArgumentPatch wrong = one;
    wrong.argument = "self";  // a tensor from the frame is no number
    QVERIFY_THROWS_EXCEPTION(std::invalid_argument, s->setPatches(mul, {wrong}));
    wrong.argument = "nonesuch";
    QVERIFY_THROWS_EXCEPTION(std::invalid_argument, s->setPatches(mul, {wrong}));
    QVERIFY(s->patches().empty());
    QCOMPARE(s->step().reason, StopReason::Stepped);
    QVERIFY_THROWS_EXCEPTION(std::runtime_error, s->tryPatches(mul, {one}));  // no longer the next node
  }
};

QTEST_GUILESS_MAIN(PatchTest)
#include "PatchTest.moc"
