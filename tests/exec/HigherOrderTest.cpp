// Higher-order ops (cond, while_loop, wrap_with_set_grad_enabled, auto_functionalized_v2) on the
// fixtures that torch.export makes of them: subgraphs run like eager PyTorch, and what cannot run
// stops with a diagnosis that names the op.
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

/// "graph: name op output" for each node a higher-order node ran inside.
QStringList innerOps(const NodeRecord& r) {
  QStringList out;
  for (const InnerRecord& i : r.inner)
    out << QString::fromStdString(i.graph + ": " + i.name + " " + i.target + " " + (i.record.outputs.empty() ? "" : i.record.outputs[0].text));
  return out;
}

const ArgumentRecord& argumentNamed(const NodeRecord& r, const std::string& name) {
  for (const auto& a : r.arguments)
    if (a.name == name) return a;
  qFatal("no argument %s", name.c_str());
}

Node& nodeNamed(Program& p, const std::string& name) { return p.nodes.at(static_cast<std::size_t>(*p.findNode(name))); }

}  // namespace

class HigherOrderTest : public QObject {
  Q_OBJECT
 private Q_SLOTS:
  void subgraphsAreReadButNotListed() {
    const Program p = loadProgram(fixturePath("cond_branch", ".pt2"));
    QCOMPARE(p.subgraphs.size(), std::size_t(2));
    const Node& t = p.node(*p.findNode("true_graph_0"));
    QCOMPARE(t.opcode, Opcode::GetAttr);
    QCOMPARE(p.subgraphs.at(static_cast<std::size_t>(t.subgraph)).name, std::string("true_graph_0"));
    const Program& g = *p.subgraphs.at(static_cast<std::size_t>(t.subgraph)).graph;
    QCOMPARE(g.inputs.size(), std::size_t(2));  // the parameter and x, passed as operands
    QCOMPARE(g.outputs.size(), std::size_t(1));
  }

  void condTakesEachBranch() {
    const Program p = loadProgram(fixturePath("cond_branch", ".pt2"));
    auto s = atenBackend().createSession(p);
    const NodeId cond = *p.findNode("cond");
    // The sample sums below zero: the false branch; its negation takes the true branch.
    runAndCompare(*s, fixturePath("cond_branch", ".inputs.safetensors"), fixturePath("cond_branch", ".outputs.safetensors"));
    QVERIFY(s->record(cond));
    QCOMPARE(QString::fromStdString(argumentNamed(*s->record(cond), "false_fn").value.text), QString("taken"));
    QCOMPARE(QString::fromStdString(argumentNamed(*s->record(cond), "true_fn").sourceDetail), QString("true_graph_0"));
    // What ran inside: the taken branch's ops, x - w, with their arguments and outputs.
    QCOMPARE(innerOps(*s->record(cond)), QStringList{"false_graph_0: sub aten.sub.Tensor float32[2, 4]"});
    runAndCompare(*s, fixturePath("cond_branch", ".alt_inputs.safetensors"),
                  fixturePath("cond_branch", ".alt_outputs.safetensors"));
    QCOMPARE(QString::fromStdString(argumentNamed(*s->record(cond), "true_fn").value.text), QString("taken"));
    QCOMPARE(innerOps(*s->record(cond)), (QStringList{"true_graph_0: mul aten.mul.Tensor float32[2, 4]",
                                                     "true_graph_0: add aten.add.Tensor float32[2, 4]"}));
    const InnerRecord& mul = s->record(cond)->inner.at(0);
    QCOMPARE(QString::fromStdString(mul.record.arguments.at(1).name), QString("other"));
    QVERIFY(mul.record.microseconds > 0);
  }

  void whileLoopRunsUntilItsConditionFails() {
    const Program p = loadProgram(fixturePath("while_loop", ".pt2"));
    auto s = atenBackend().createSession(p);
    runAndCompare(*s, fixturePath("while_loop", ".inputs.safetensors"), fixturePath("while_loop", ".outputs.safetensors"));
    const NodeRecord* r = s->record(*p.findNode("while_loop"));
    QVERIFY(r);
    QCOMPARE(QString::fromStdString(argumentNamed(*r, "iterations").value.text), QString("3"));
    // The last iteration's body (i + 1, x * 2 + 1), then the test that ended the loop (i < 3).
    const QStringList inner = innerOps(*r);
    QCOMPARE(inner.size(), 4);
    QVERIFY2(inner[0].startsWith("while_loop_body_graph_0: add ") && inner[1].contains(": mul ") &&
                 inner[2].contains(": add_1 ") && inner[3].startsWith("while_loop_cond_graph_0: lt aten.lt.Scalar bool[]"),
             qPrintable(inner.join(" | ")));
  }

  // A Stop while a loop runs its body stops the body, not after the loop: through the run's
  // observer (the studio) and through requestCancel (another thread). The loop's node did not
  // finish; the run goes on from it to eager's outputs.
  void cancelReachesTheLoopsBody_data() {
    QTest::addColumn<bool>("throughRequest");
    QTest::newRow("observer") << false;
    QTest::newRow("requestCancel") << true;
  }
  void cancelReachesTheLoopsBody() {
    QFETCH(bool, throughRequest);
    const Program p = loadProgram(fixturePath("while_loop", ".pt2"));
    const NodeId loop = *p.findNode("while_loop");
    auto s = atenBackend().createSession(p);
    QVERIFY(s->setInputs(inputsOf(fixturePath("while_loop", ".inputs.safetensors"))).ok());
    struct StopInside : RunObserver {
      Session& session;
      NodeId loop;
      bool throughRequest;
      NodeId current = kNone;
      int asksInside = 0;
      StopInside(Session& s, NodeId l, bool r) : session(s), loop(l), throughRequest(r) {}
      void beforeNode(NodeId next) override { current = next; }
      bool cancelled() override {
        // the run asks before each node; once the loop's node has begun, the asking is the body's
        if (current != loop || ++asksInside != 3) return false;
        if (throughRequest) session.requestCancel();
        return !throughRequest;
      }
    } stop(*s, loop, throughRequest);
    QCOMPARE(s->run(&stop).reason, StopReason::Cancelled);
    QVERIFY(stop.asksInside >= 3);
    QCOMPARE(s->position(), loop);
    QVERIFY(!s->record(loop));
    QCOMPARE(s->run().reason, StopReason::Finished);
    const TensorMap expected = readSafetensors(fixturePath("while_loop", ".outputs.safetensors"));
    const auto outputs = s->outputs();
    QCOMPARE(outputs.size(), expected.size());
    for (std::size_t i = 0; i < outputs.size(); ++i)
      QCOMPARE(relativeError(outputs[i], expected.at("output_" + std::to_string(i))), 0.0);
  }

  void noGradRegionRunsItsBody() {
    const Program p = loadProgram(fixturePath("no_grad_region", ".pt2"));
    QCOMPARE(QString::fromStdString(p.node(*p.findNode("mul")).target), QString("wrap_with_set_grad_enabled"));
    auto s = atenBackend().createSession(p);
    runAndCompare(*s, fixturePath("no_grad_region", ".inputs.safetensors"),
                  fixturePath("no_grad_region", ".outputs.safetensors"));
  }

  void pythonCustomOpIsOpNotFound() {
    const Program p = loadProgram(fixturePath("custom_inplace", ".pt2"));
    auto s = atenBackend().createSession(p);
    QVERIFY(s->setInputs(p.sampleInputs).ok());
    const StepOutcome o = s->run();
    QCOMPARE(o.reason, StopReason::Failed);
    QCOMPARE(o.diagnosis.kind, DiagnosisClass::OpNotFound);
    QCOMPARE(QString::fromStdString(o.diagnosis.nodeName), QString("auto_functionalized_v2"));
    QVERIFY2(QString::fromStdString(o.diagnosis.message).contains("torchir_test::add_one_"), o.diagnosis.message.c_str());
    QCOMPARE(s->position(), o.diagnosis.node);
    QVERIFY(s->record(*p.findNode("clone")));  // the nodes before it ran
  }

  void autoFunctionalizedRunsAnOpTheDispatcherHolds() {
    // The fixture's node with aten.relu_ in place of the Python op: same v2 form (one base,
    // `_self_base_index`), and relu_ mutates its clone, not the program's value.
    Program p = loadProgram(fixturePath("custom_inplace", ".pt2"));
    for (auto& a : nodeNamed(p, "auto_functionalized_v2").inputs) {
      if (a.arg.is<arg::Operator>()) a.arg = arg::Operator{"torch.ops.aten.relu_.default"};
      if (a.name == "_x_base_index") a.name = "_self_base_index";
    }
    auto s = atenBackend().createSession(p);
    QVERIFY(s->setInputs(p.sampleInputs).ok());
    const StepOutcome o = s->run();
    QVERIFY2(o.reason == StopReason::Finished, o.diagnosis.message.c_str());
    const TensorData x = p.sampleInputs.at(0), y = s->outputs().at(0);
    QCOMPARE(y.sizes, x.sizes);
    bool sawNegative = false;
    for (int64_t i = 0; i < x.numel(); ++i) {
      sawNegative |= elementAsDouble(x, i) < 0;
      QCOMPARE(elementAsDouble(y, i), std::max(0.0, elementAsDouble(x, i)) * 2);
    }
    QVERIFY(sawNegative);
    // The clone the op mutated is not the input: x keeps its negative entries.
    const auto clone = s->tensor(*p.findValue("clone"));
    QVERIFY(clone);
    QCOMPARE(relativeError(*clone, x), 0.0);
  }

  void autoFunctionalizedMutatesAListOfBases() {
    // The fixture's custom op scales a Tensor[] in place: element 0 is base 0, element 1 a slice
    // of base 1 (`_xs_1_slice_dim`, ...). aten._foreach_mul_.Scalar does the same, so with it in
    // place of the Python op the program must give the eager model's outputs.
    Program p = loadProgram(fixturePath("custom_inplace_list", ".pt2"));
    for (auto& a : nodeNamed(p, "auto_functionalized_v2").inputs) {
      if (a.arg.is<arg::Operator>()) a.arg = arg::Operator{"torch.ops.aten._foreach_mul_.Scalar"};
      if (a.name == "factor") a.name = "scalar";
      if (a.name.rfind("_xs_", 0) == 0) a.name = "_self_" + a.name.substr(4);
    }
    auto s = atenBackend().createSession(p);
    runAndCompare(*s, fixturePath("custom_inplace_list", ".inputs.safetensors"),
                  fixturePath("custom_inplace_list", ".outputs.safetensors"));
    // The op mutated clones: the program's own `add` (base 1) keeps its values.
    const TensorData x = p.sampleInputs.at(0);
    const auto add = s->tensor(*p.findValue("add"));
    QVERIFY(add);
    for (int64_t i = 0; i < x.numel(); ++i) QCOMPARE(elementAsDouble(*add, i), static_cast<double>(static_cast<float>(elementAsDouble(x, i) + 1)));
    const NodeRecord* r = s->record(*p.findNode("auto_functionalized_v2"));
    QVERIFY(r);
    QCOMPARE(QString::fromStdString(r->arguments.at(0).declaredType), QString("Tensor(a!)[]"));
  }

  void unknownHigherOrderOpIsDiagnosed() {
    Program p = loadProgram(fixturePath("cond_branch", ".pt2"));
    nodeNamed(p, "cond").target = "no_such_higher_order_op";  // a name no torch gives one
    auto s = atenBackend().createSession(p);
    QVERIFY(s->setInputs(p.sampleInputs).ok());
    const StepOutcome o = s->run();
    QCOMPARE(o.reason, StopReason::Failed);
    QCOMPARE(o.diagnosis.kind, DiagnosisClass::UnsupportedHigherOrderOp);
    QVERIFY2(QString::fromStdString(o.diagnosis.message).contains("no_such_higher_order_op"), o.diagnosis.message.c_str());
    QVERIFY(s->record(*p.findNode("gt")));
  }

  // A user's Triton kernel is a diagnosis that says what it needs, found before the run.
  void tritonKernelSaysWhatItNeeds() {
    Program p = loadProgram(fixturePath("cond_branch", ".pt2"));
    nodeNamed(p, "cond").target = "triton_kernel_wrapper_functional";
    auto s = atenBackend().createSession(p);
    QVERIFY(s->setInputs(p.sampleInputs).ok());
    const StepOutcome o = s->run();
    QCOMPARE(o.reason, StopReason::Failed);
    QCOMPARE(o.diagnosis.kind, DiagnosisClass::UnsupportedHigherOrderOp);
    const QString why = QString::fromStdString(o.diagnosis.message);
    QVERIFY2(why.contains("Triton") && why.contains("GPU"), qPrintable(why));
  }

  void failureInsideABranchNamesTheInnerNode() {
    Program p = loadProgram(fixturePath("cond_branch", ".pt2"));
    for (auto& g : p.subgraphs) {  // an op this torch does not have, in both branches
      auto broken = std::make_shared<Program>(*g.graph);
      for (auto& n : broken->nodes)
        if (n.opcode == Opcode::CallFunction) n.target = "aten.no_such_op.default";
      g.graph = broken;
    }
    auto s = atenBackend().createSession(p);
    QVERIFY(s->setInputs(p.sampleInputs).ok());
    const StepOutcome o = s->run();
    QCOMPARE(o.reason, StopReason::Failed);
    QCOMPARE(o.diagnosis.kind, DiagnosisClass::OpNotFound);
    QCOMPARE(QString::fromStdString(o.diagnosis.nodeName), QString("cond"));
    const QString msg = QString::fromStdString(o.diagnosis.message);
    QVERIFY2(msg.contains("false_graph_0") && msg.contains("aten::no_such_op"), qPrintable(msg));
  }

  void irJsonHigherOrderOpIsDiagnosed() {
    // pytorch-ir's IR keeps no subgraphs: the node cannot run, and says which op it is.
    if (!fixtureHas("cond_branch", ".ir.json")) QSKIP("pytorch-ir refused the program");
    const Program p = loadProgram(fixturePath("cond_branch", ".ir.json"),
                                  LoadOptions{fixturePath("cond_branch", ".weights.safetensors"), ""});
    auto s = atenBackend().createSession(p);
    QVERIFY(s->setInputs(inputsOf(fixturePath("cond_branch", ".inputs.safetensors"))).ok());
    const StepOutcome o = s->run();
    QCOMPARE(o.reason, StopReason::Failed);
    QCOMPARE(o.diagnosis.kind, DiagnosisClass::UnsupportedHigherOrderOp);
    QVERIFY2(QString::fromStdString(o.diagnosis.message).contains("cond"), o.diagnosis.message.c_str());
  }
};

QTEST_APPLESS_MAIN(HigherOrderTest)
#include "HigherOrderTest.moc"
