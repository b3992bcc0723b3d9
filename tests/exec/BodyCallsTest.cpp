// Stepping into bodies: every call of a higher-order node's bodies, kept by running the node once
// more, runs again as a program of its own (the subgraph on the call's operands, under its
// autocast region) to the call's own results, bit for bit. What the studio's body windows rest on.
#include <QTemporaryDir>
#include <QtTest>

#include "../program/FixtureZoo.h"
#include "RunComparison.h"
#include "debug/Debugger.h"
#include "formats/ProgramLoader.h"

using namespace torchir;
using namespace torchir::test;

namespace {

std::string reachFile(const std::string& name, const std::string& suffix) {
  return fixturesDir() + "/reach/" + name + "/" + name + suffix;
}

/// A debugger on `path` with `inputs`, run to its end.
std::unique_ptr<Debugger> finishedRun(const std::string& path, const std::string& inputs) {
  DebugTarget t;
  t.program = std::make_shared<const Program>(loadProgram(path));
  t.path = path;
  t.inputs.file = inputs;
  auto d = std::make_unique<Debugger>(t);
  d->start();
  const DebugOutcome o = d->execute(DebugCommand::Continue, kNone, {}, nullptr);
  if (o.reason != StopReason::Finished) qFatal("%s did not finish: %s", path.c_str(), o.diagnosis.message.c_str());
  return d;
}

NodeId firstNodeWithBody(const Program& p) {
  for (const Node& n : p.nodes)
    if (!subgraphsOf(p, n).empty()) return n.id;
  qFatal("no higher-order node");
}

/// Each kept call run again on its own gives its results bit for bit: empty, else what differs.
std::string callsRunAgainAsThemselves(const Debugger& parent, const BodyCalls& calls) {
  for (const BodyCall& call : calls.calls) {
    Debugger body(bodyTarget(parent.target(), call, "iteration " + std::to_string(call.iteration)));
    body.start();
    const DebugOutcome o = body.execute(DebugCommand::Continue, kNone, {}, nullptr);
    const std::string which = parent.program().subgraphs.at(call.subgraph).name + " call " + std::to_string(call.iteration);
    if (o.reason != StopReason::Finished) return which + " failed: " + o.diagnosis.message;
    const std::vector<TensorData> out = body.session().outputs();
    if (out.size() != call.results.size()) return which + ": " + std::to_string(out.size()) + " results";
    for (std::size_t i = 0; i < out.size(); ++i)
      if (!sameTensor(out[i], call.results[i])) return which + ": result " + std::to_string(i) + " differs";
  }
  return {};
}

}  // namespace

class BodyCallsTest : public QObject {
  Q_OBJECT
 private Q_SLOTS:
  void eachRowOfAMapIsACall() {
    auto d = finishedRun(reachFile("map_rows", ".pt2"), reachFile("map_rows", ".inputs.safetensors"));
    const NodeId map = firstNodeWithBody(d->program());
    const BodyCalls calls = d->bodyCalls(map, nullptr);
    QVERIFY(calls.failure.empty());
    QCOMPARE(calls.calls.size(), std::size_t(4));  // the example's four rows
    for (std::size_t i = 0; i < 4; ++i) {
      QCOMPARE(calls.calls[i].iteration, i);
      QCOMPARE(calls.calls[i].carriedFrom, (std::vector<int>{-1, -1}));  // a row and w: nothing carried
      QVERIFY(!calls.calls[i].autocast);
    }
    QVERIFY(!sameTensor(calls.calls[0].operands[0], calls.calls[1].operands[0]));  // other rows
    QCOMPARE(QString::fromStdString(callsRunAgainAsThemselves(*d, calls)), QString());
    // the run is as it was: its outputs are still eager's
    QCOMPARE(QString::fromStdString(outputsMismatch(d->session(), reachFile("map_rows", ".outputs.safetensors"))), QString());
  }

  void pastTheMemoryAllowedTheFirstCallsAreKept() {
    auto d = finishedRun(reachFile("map_rows", ".pt2"), reachFile("map_rows", ".inputs.safetensors"));
    const NodeId map = firstNodeWithBody(d->program());
    // a row (12 bytes) and w (24, copied once: every row gets it unchanged), a result of 8 each
    const BodyCalls calls = d->session().traceBodyCalls(map, 60);
    QCOMPARE(calls.calls.size(), std::size_t(2));
    QCOMPARE(calls.notKept.at(calls.calls[0].subgraph), std::size_t(2));
    QCOMPARE(calls.calls[1].iteration, std::size_t(1));
    QCOMPARE(calls.calls[1].operands[1].storage, calls.calls[0].operands[1].storage);
    QVERIFY(calls.failure.empty());
    QCOMPARE(d->session().traceBodyCalls(map, 0).calls.size(), std::size_t(0));
  }

  void aScanCarriesItsStateFromStepToStep() {
    auto d = finishedRun(reachFile("scan", ".pt2"), reachFile("scan", ".inputs.safetensors"));
    const BodyCalls calls = d->bodyCalls(firstNodeWithBody(d->program()), nullptr);
    QVERIFY(calls.calls.size() > 2);
    QCOMPARE(calls.calls[0].carriedFrom.front(), -1);  // init
    for (std::size_t i = 1; i < calls.calls.size(); ++i) {
      QCOMPARE(calls.calls[i].carriedFrom.front(), 0);  // the carry: the previous step's first result
      QVERIFY(sameTensor(calls.calls[i].operands.front(), calls.calls[i - 1].results.front()));
    }
    QCOMPARE(QString::fromStdString(callsRunAgainAsThemselves(*d, calls)), QString());
  }

  void aWhileLoopsBodyAndItsTestAreCalls() {
    auto d = finishedRun(fixturePath("while_loop", ".pt2"), fixturePath("while_loop", ".inputs.safetensors"));
    const Program& p = d->program();
    const NodeId loop = *p.findNode("while_loop");
    const auto graphs = subgraphsOf(p, p.node(loop));
    QCOMPARE(graphs.size(), std::size_t(2));  // cond_fn, body_fn
    const BodyCalls calls = d->bodyCalls(loop, nullptr);
    std::size_t tests = 0, bodies = 0;
    for (const BodyCall& c : calls.calls) (c.subgraph == graphs[0] ? tests : bodies)++;
    QCOMPARE(bodies, std::size_t(3));  // three iterations, then the test that ended the loop
    QCOMPARE(tests, std::size_t(4));
    const BodyCall* second = nullptr;
    for (const BodyCall& c : calls.calls)
      if (c.subgraph == graphs[1] && c.iteration == 1) second = &c;
    QVERIFY(second);
    QCOMPARE(second->carriedFrom.front(), 0);  // i, from the first iteration's i + 1
    QCOMPARE(QString::fromStdString(callsRunAgainAsThemselves(*d, calls)), QString());
  }

  void theBranchACondTookIsItsOneCall() {
    auto d = finishedRun(fixturePath("cond_branch", ".pt2"), fixturePath("cond_branch", ".inputs.safetensors"));
    const Program& p = d->program();
    const BodyCalls calls = d->bodyCalls(*p.findNode("cond"), nullptr);
    QCOMPARE(calls.calls.size(), std::size_t(1));
    QCOMPARE(p.subgraphs.at(calls.calls[0].subgraph).name, std::string("false_graph_0"));
    QCOMPARE(QString::fromStdString(callsRunAgainAsThemselves(*d, calls)), QString());
  }

  void anAutocastBodyRunsAgainUnderItsRegion() {
    auto d = finishedRun(reachFile("autocast_linear", ".pt2"), reachFile("autocast_linear", ".inputs.safetensors"));
    const BodyCalls calls = d->bodyCalls(firstNodeWithBody(d->program()), nullptr);
    QCOMPARE(calls.calls.size(), std::size_t(1));
    const BodyCall& call = calls.calls[0];
    QVERIFY(call.autocast);
    QCOMPARE(call.autocast->dtype, DType::BFloat16);
    QCOMPARE(call.results.at(0).dtype, DType::BFloat16);
    QCOMPARE(QString::fromStdString(callsRunAgainAsThemselves(*d, calls)), QString());
    // without the region the same body gives float32: the region is what makes the bits
    BodyCall plain = call;
    plain.autocast.reset();
    Debugger body(bodyTarget(d->target(), plain, "without autocast"));
    body.start();
    QCOMPARE(body.execute(DebugCommand::Continue, kNone, {}, nullptr).reason, StopReason::Finished);
    QCOMPARE(body.session().outputs().at(0).dtype, DType::Float32);
  }

  void aBodysCaptureCarriesTheBodyAsAProgramOfItsOwn() {
    auto d = finishedRun(reachFile("map_rows", ".pt2"), reachFile("map_rows", ".inputs.safetensors"));
    const BodyCalls calls = d->bodyCalls(firstNodeWithBody(d->program()), nullptr);
    const BodyCall& call = calls.calls.at(2);
    Debugger body(bodyTarget(d->target(), call, "iteration 2"));
    body.start();
    QCOMPARE(body.execute(DebugCommand::Continue, kNone, {}, nullptr).reason, StopReason::Finished);
    QTemporaryDir dir;
    const std::string path = dir.filePath("row2.tircap").toStdString();
    body.saveCapture(path, {}, {}, /*embedProgram=*/false);
    QVERIFY(QFileInfo::exists(dir.filePath("row2.body.pt2")));

    // reopened, the capture runs the body on row 2 again, and nothing of the map around it
    const Capture capture = readCapture(path);
    DebugTarget t;
    t.path = capturedProgramPath(capture, path, dir.filePath("extracted").toStdString());
    t.program = std::make_shared<const Program>(loadProgram(t.path));
    t.capture = std::make_shared<const Capture>(capture);
    t.capturePath = path;
    QCOMPARE(t.program->nodes.size(), d->program().subgraphs.at(call.subgraph).graph->nodes.size());
    Debugger again(t);
    again.start();
    QCOMPARE(again.execute(DebugCommand::Continue, kNone, {}, nullptr).reason, StopReason::Finished);
    QVERIFY(sameTensor(again.session().outputs().at(0), call.results.at(0)));
  }

  void aNodeNotReachedOrWithoutBodyIsRefused() {
    DebugTarget t;
    t.program = std::make_shared<const Program>(loadProgram(fixturePath("cond_branch", ".pt2")));
    t.inputs.file = fixturePath("cond_branch", ".inputs.safetensors");
    Debugger d(t);
    d.start();
    const NodeId cond = *d.program().findNode("cond");
    QVERIFY(d.session().position() < cond);  // the test on the sum runs first
    QVERIFY_THROWS_EXCEPTION(std::runtime_error, d.bodyCalls(cond, nullptr));  // not run yet, not next
    QVERIFY_THROWS_EXCEPTION(std::runtime_error, d.bodyCalls(0, nullptr));     // a placeholder: no body
    // next: its calls are made where the run stands, which does not move
    QCOMPARE(d.execute(DebugCommand::RunUpTo, cond, {}, nullptr).reason, StopReason::Stepped);
    QCOMPARE(d.bodyCalls(cond, nullptr).calls.size(), std::size_t(1));
    QCOMPARE(d.session().position(), cond);
    QVERIFY(!d.session().record(cond));
  }
};

QTEST_GUILESS_MAIN(BodyCallsTest)
#include "BodyCallsTest.moc"
