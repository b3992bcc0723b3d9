// Session::stepBack on every fixture: after each step, one step back and one step forward again;
// each node's output then, and the outputs at the end, equal a straight run's bit for bit. And the
// run made again from one node (WhatIfRun), which must read what the run read.
#include <QtTest>

#include "../program/FixtureZoo.h"
#include "RunComparison.h"
#include "compare/OutputSqnr.h"
#include "exec/WhatIfRun.h"
#include "formats/ProgramLoader.h"

using namespace torchir;
using namespace torchir::test;

namespace {

/// The fixture's program with the data it needs to run: a meta export takes the weights its IR
/// JSON keeps next to it, or the same model's (mlp's for meta_mlp).
std::optional<Program> runnableProgram(const std::string& name, bool meta) {
  if (!meta) return loadProgram(fixturePath(name, ".pt2"));
  LoadOptions options;
  const std::string own = fixturePath(name, ".weights.safetensors");
  options.weightsPath = fixtureHas(name, ".weights.safetensors") ? own : fixturePath("mlp", ".weights.safetensors");
  if (fixtureHas(name, ".constants.safetensors")) options.constantsPath = fixturePath(name, ".constants.safetensors");
  Program p = loadProgram(fixturePath(name, ".pt2"), options);
  if (!p.missingData().empty()) return std::nullopt;
  return p;
}

/// The fixture's inputs, else the archive's samples, else (a meta export's samples are empty)
/// random ones of seed 0.
Diagnosis giveInputs(Session& s, const std::string& name, const Program& p) {
  if (fixtureHas(name, ".inputs.safetensors")) return s.setInputs(inputsOf(fixturePath(name, ".inputs.safetensors")));
  for (const TensorData& t : p.sampleInputs)
    if (!t.hasData()) return s.setRandomInputs(0);
  return s.setInputs(p.sampleInputs);
}

}  // namespace

class StepBackTest : public QObject {
  Q_OBJECT
 private Q_SLOTS:
  void initTestCase() { atenBackend().setThreads(1); }

  void backThenForwardEqualsAStraightRun_data() { addFixtureRows(); }
  void backThenForwardEqualsAStraightRun() {
    QFETCH(QString, name);
    QFETCH(bool, meta);
    const std::string n = name.toStdString();
    const auto program = runnableProgram(n, meta);
    if (!program) QSKIP("no weights to run it with");

    auto straight = atenBackend().createSession(*program);
    QVERIFY(giveInputs(*straight, n, *program).ok());
    const StepOutcome end = straight->run();  // Finished, or Failed where eager fails too

    auto s = atenBackend().createSession(*program);
    QVERIFY(giveInputs(*s, n, *program).ok());
    int steps = 0;
    while (!s->finished()) {
      const NodeId node = s->position();
      const StepOutcome forward = s->step();
      if (forward.reason == StopReason::Failed) {
        QCOMPARE(end.reason, StopReason::Failed);
        QCOMPARE(forward.diagnosis.node, end.diagnosis.node);
        break;
      }
      QVERIFY(forward.reason == StopReason::Stepped || forward.reason == StopReason::Finished);
      const NodeId next = s->position();
      // what the forward run had (copies: an in-place op later in the run may change them)
      std::vector<std::optional<TensorData>> had;
      for (const ValueId v : program->node(node).outputs) had.push_back(s->tensor(v));

      const StepOutcome back = s->stepBack();
      QCOMPARE(back.reason, StopReason::Stepped);
      QCOMPARE(s->position(), node);  // the node runs next again
      QVERIFY(!s->record(node));
      QCOMPARE(s->step().reason, forward.reason);
      QCOMPARE(s->position(), next);
      for (std::size_t i = 0; i < had.size(); ++i) {
        const ValueId v = program->node(node).outputs[i];
        const auto again = s->tensor(v);
        QCOMPARE(again.has_value(), had[i].has_value());
        if (again) QVERIFY2(sameTensor(*again, *had[i]), (program->value(v).name + " differs after a step back").c_str());
      }
      ++steps;
    }
    if (end.reason == StopReason::Finished) {
      QVERIFY(s->finished());
      const auto ours = s->outputs(), theirs = straight->outputs();
      QCOMPARE(ours.size(), theirs.size());
      for (std::size_t i = 0; i < ours.size(); ++i) QVERIFY(sameTensor(ours[i], theirs[i]));
    }
    QVERIFY(steps > 0 || end.reason == StopReason::Failed);
  }

  // At the start there is nothing to go back to; from the end, back lands before the last op.
  void backAtTheStartDoesNothingAndFromTheEndRunsTheLastOpAgain() {
    const Program p = loadProgram(fixturePath("mlp", ".pt2"));
    auto s = atenBackend().createSession(p);
    QVERIFY(s->setInputs(inputsOf(fixturePath("mlp", ".inputs.safetensors"))).ok());
    const NodeId first = s->position();
    QCOMPARE(s->stepBack().reason, StopReason::Stepped);
    QCOMPARE(s->position(), first);
    QCOMPARE(s->run().reason, StopReason::Finished);
    QCOMPARE(s->stepBack().reason, StopReason::Stepped);
    QCOMPARE(s->position(), *p.findNode("linear_1"));
    QVERIFY(!s->finished());
    QCOMPARE(s->run().reason, StopReason::Finished);
  }

  // A breakpoint or stop condition between the start and the node does not stop the replay.
  void backReplaysPastBreakpointsAndStopConditions() {
    const Program p = loadProgram(fixturePath("nan_from_sqrt", ".pt2"));
    auto s = atenBackend().createSession(p);
    QVERIFY(s->setInputs(inputsOf(fixturePath("nan_from_sqrt", ".inputs.safetensors"))).ok());
    StopConditions stops;
    stops.nanOrInf = true;
    s->setStopConditions(stops);
    QCOMPARE(s->run().reason, StopReason::StopCondition);  // after sqrt
    const NodeId afterSqrt = s->position();
    s->setBreakpoints({*p.findNode("sub")});
    QVERIFY(s->step().reason != StopReason::Failed);  // add: NaN in, NaN out
    QCOMPARE(s->stepBack().reason, StopReason::Stepped);
    QCOMPARE(s->position(), afterSqrt);
  }

  // A breakpoint set while a replay runs (the studio syncs them before every node) does not stop
  // the replay, and is the session's once it ends: the set-aside ones do not come back over it.
  void breakpointsSetDuringAReplayHoldAfterIt() {
    const Program p = loadProgram(fixturePath("mlp", ".pt2"));
    auto s = atenBackend().createSession(p);
    QVERIFY(s->setInputs(inputsOf(fixturePath("mlp", ".inputs.safetensors"))).ok());
    const NodeId relu = *p.findNode("relu"), linear1 = *p.findNode("linear_1");
    s->setBreakpoints({relu});
    QCOMPARE(s->run().reason, StopReason::Breakpoint);
    QCOMPARE(s->run().reason, StopReason::Finished);
    struct SetsBreakpoint : RunObserver {
      Session& s;
      NodeId at;
      explicit SetsBreakpoint(Session& session, NodeId node) : s(session), at(node) {}
      void beforeNode(NodeId) override { s.setBreakpoints({at}); }
    } observer(*s, linear1);
    QCOMPARE(s->stepBack(&observer).reason, StopReason::Stepped);  // replays past linear and relu
    QCOMPARE(s->position(), linear1);
    s->reset();
    QCOMPARE(s->run().reason, StopReason::Breakpoint);  // at linear_1, set during the replay; relu's is gone
    QCOMPARE(s->position(), linear1);
    QCOMPARE(s->run().reason, StopReason::Finished);
  }

  // A what-if given the run's own values (its first op made again, and everything that depends on
  // it) ends with the run's outputs bit for bit on every fixture: higher-order ops, several outputs,
  // dynamic shapes, subgraphs. (Values an in-place op writes later are read as the run read them:
  // QuantCompareTest's qp_resnet18, whose relu_ and add_ a what-if must see before they wrote.)
  void aWhatIfOfTheRunsOwnValuesEndsAsTheRun_data() { addFixtureRows(); }
  void aWhatIfOfTheRunsOwnValuesEndsAsTheRun() {
    QFETCH(QString, name);
    QFETCH(bool, meta);
    const std::string n = name.toStdString();
    const auto program = runnableProgram(n, meta);
    if (!program) QSKIP("no weights to run it with");
    auto s = atenBackend().createSession(*program);
    QVERIFY(giveInputs(*s, n, *program).ok());
    if (s->run().reason != StopReason::Finished) QSKIP("fails where eager fails: no end to compare");
    // the first op making a tensor that an output depends on (a what-if carries tensors: a size
    // made again is the run's, since its tensors keep their shapes)
    const std::vector<ValueId> outputs = userOutputs(*program);
    std::vector<bool> feedsAnOutput(program->nodes.size(), false);
    std::vector<ValueId> pending(outputs.begin(), outputs.end());
    while (!pending.empty()) {
      const NodeId producer = program->value(pending.back()).producer;
      pending.pop_back();
      if (producer == kNone || feedsAnOutput[static_cast<std::size_t>(producer)]) continue;
      feedsAnOutput[static_cast<std::size_t>(producer)] = true;
      for (ValueId v : valuesNamedBy(program->node(producer))) pending.push_back(v);
    }
    NodeId first = kNone;
    for (const Node& node : program->nodes)
      if (const NodeRecord* r = s->record(node.id); first == kNone && feedsAnOutput[static_cast<std::size_t>(node.id)] &&
                                                    node.opcode == Opcode::CallFunction && r && r->doesWork &&
                                                    !node.outputs.empty() &&
                                                    program->value(node.outputs.front()).kind == ValueKind::Tensor)
        first = node.id;
    if (first == kNone) QSKIP("no output depends on an op");
    WhatIfRun whatIf(*s, outputs);
    QVERIFY(whatIf.prepare());
    std::unordered_map<ValueId, TensorData> changed;
    try {
      changed = whatIf.from(first, {});
    } catch (const std::runtime_error& e) {
      QSKIP(qPrintable(QStringLiteral("a node of it cannot run again: %1").arg(e.what())));
    }
    int made = 0;
    for (ValueId v : outputs) {
      const auto it = changed.find(v);
      if (it == changed.end()) continue;
      const auto run = s->tensorView(v);
      QVERIFY(run);
      QVERIFY2(it->second.contiguousBytes() == run->contiguousBytes(), program->value(v).name.c_str());
      ++made;
    }
    QVERIFY2(made > 0, "an output depends on the op, and none was made again");
    for (const auto& [v, t] : changed)
      QVERIFY2(std::find(outputs.begin(), outputs.end(), v) != outputs.end(), "only the kept values come back");
    qInfo("%s: %d of %zu outputs made again from %s", n.c_str(), made, outputs.size(), program->node(first).name.c_str());
  }
};

QTEST_GUILESS_MAIN(StepBackTest)
#include "StepBackTest.moc"
