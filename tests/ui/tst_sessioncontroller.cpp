// SessionController over the real engine (libtorchir_aten) on real fixtures: the state machine,
// what it copies to the GUI side, and that the GUI thread keeps control while the engine runs.
#include <QSemaphore>
#include <QSignalSpy>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QtTest>
#include <atomic>
#include <cmath>

#include "Fixtures.h"
#include "capture/CaptureFile.h"
#include "program/FxTable.h"
#include "formats/ProgramLoader.h"
#include "session/AsyncProgramLoader.h"
#include "session/RunFiles.h"
#include "session/SessionController.h"

using torchir::StopReason;
using torchir::ui::LoadedProgram;
using torchir::ui::LoadedProgramPtr;
using torchir::ui::RunState;
using torchir::ui::SessionController;

namespace {

constexpr int kTimeoutMs = 60000;

LoadedProgramPtr loadFile(const QString& path, const QString& inputsPath = {}) {
  return torchir::test::loadedProgram(path, inputsPath);
}

LoadedProgramPtr loadFixture(const char* name, const QString& inputsPath = {}) {
  return torchir::test::loadedFixture(QLatin1String(name), inputsPath);
}

torchir::NodeId nodeId(const SessionController& c, const char* name) {
  const auto id = c.program()->program.findNode(name);
  return id ? *id : torchir::kNone;
}

torchir::ValueId outputOf(const SessionController& c, const char* node) {
  return c.program()->program.node(nodeId(c, node)).outputs.at(0);
}

bool anyCallExecuted(const SessionController& c) {
  for (const auto& n : c.program()->program.nodes)
    if (n.opcode == torchir::Opcode::CallFunction && c.marks().executed[static_cast<std::size_t>(n.id)]) return true;
  return false;
}

/// A run as long as its inputs say: an op, a while_loop of n iterations, an op, another loop, an
/// op (tests/fixtures/make_studio_fixtures.py). "long": 200000 iterations a loop, many progress
/// reports on any machine; "endless": 2**62, past the engine's cap of a million iterations, so a
/// run that seconds of looping later fails, and that the tests stop long before.
LoadedProgramPtr longLoop(const char* inputs) {
  const QString folder = torchir::test::fixturesDir() + QStringLiteral("/studio/long_loop/");
  return loadFile(folder + QStringLiteral("long_loop.pt2"),
                  folder + QStringLiteral("long_loop.%1.inputs.safetensors").arg(QLatin1String(inputs)));
}

/// Sets the program and waits until the engine session exists.
bool startOn(SessionController& c, LoadedProgramPtr program) {
  c.setProgram(std::move(program));
  return QTest::qWaitFor([&] { return c.state() != RunState::Starting; }, kTimeoutMs) && c.state() == RunState::Ready;
}

/// Runs one command and returns the reason it stopped.
template <class Command>
StopReason runCommand(SessionController& c, Command command) {
  QSignalSpy stopped(&c, &SessionController::stopped);
  command();
  if (!stopped.wait(kTimeoutMs)) return StopReason::Cancelled;
  return stopped.first().first().value<StopReason>();
}

/// What the studio's loader makes of a file (a capture: its program found and checked), or null
/// with the one-line problem.
LoadedProgramPtr openThroughLoader(const QString& path, QString* problem = nullptr) {
  torchir::ui::AsyncProgramLoader loader;
  QSignalSpy loaded(&loader, &torchir::ui::AsyncProgramLoader::loaded);
  QSignalSpy failed(&loader, &torchir::ui::AsyncProgramLoader::failed);
  torchir::ui::OpenRequest request;
  request.capturePath = path;
  loader.load(request);
  if (!QTest::qWaitFor([&] { return !loaded.isEmpty() || !failed.isEmpty(); }, kTimeoutMs)) return nullptr;
  if (!failed.isEmpty()) {
    if (problem) *problem = failed.first().at(1).toString();
    return nullptr;
  }
  return loaded.first().first().value<LoadedProgramPtr>();
}

/// The value's tensor as the controller's engine answers, or nullopt with why not.
// File › Save Capture as the studio makes it: the problem it ended with (empty: written), or
// "never ended".
QString saveCaptureOf(SessionController& c, const QString& path, bool embedProgram = false) {
  std::optional<QString> problem;
  torchir::ui::saveCapture(c, path, embedProgram, &c, [&](const QString& said) { problem = said; });
  if (!QTest::qWaitFor([&] { return problem.has_value(); }, kTimeoutMs)) return QStringLiteral("never ended");
  return *problem;
}

std::optional<torchir::TensorData> tensorOf(SessionController& c, torchir::ValueId v, QString* why = nullptr) {
  QSignalSpy ready(&c, &SessionController::tensorReady);
  QSignalSpy unavailable(&c, &SessionController::tensorUnavailable);
  c.requestTensor(v);
  if (!QTest::qWaitFor([&] { return !ready.isEmpty() || !unavailable.isEmpty(); }, kTimeoutMs)) return std::nullopt;
  if (!ready.isEmpty()) return ready.first().at(1).value<torchir::TensorData>();
  if (why) *why = unavailable.first().at(1).toString();
  return std::nullopt;
}

}  // namespace

class TestSessionController : public QObject {
  Q_OBJECT

 private Q_SLOTS:
  void initTestCase() {
    TORCHIR_REQUIRE_FIXTURES();
    torchir::test::isolateSettings();
  }

  void startsReadyWithSampleInputs() {
    SessionController c;
    QCOMPARE(c.state(), RunState::Empty);
    QSignalSpy states(&c, &SessionController::stateChanged);
    c.setProgram(loadFixture("mlp"));
    QCOMPARE(c.state(), RunState::Starting);  // at once: the engine starts on its own thread
    QTRY_COMPARE_WITH_TIMEOUT(c.state(), RunState::Ready, kTimeoutMs);
    QCOMPARE(states.size(), 2);
    QCOMPARE(states.at(0).at(0).value<RunState>(), RunState::Starting);
    QCOMPARE(states.at(1).at(0).value<RunState>(), RunState::Ready);
    QCOMPARE(c.inputsDescription(), QStringLiteral("sample inputs from the archive"));
    QCOMPARE(c.marks().current, nodeId(c, "linear"));  // the first node that does work
    QVERIFY(c.marks().executed[static_cast<std::size_t>(nodeId(c, "x"))]);
    QVERIFY(!anyCallExecuted(c));
    QVERIFY(c.canStep() && c.canContinue() && !c.canReset() && !c.canStop());
  }

  // File › Save Capture: the run as it stands, read back by the capture reader as a stranger's
  // file would be: the next node, breakpoints, each record, the inputs and the program's identity.
  void captureKeepsTheRunAsItStands() {
    SessionController c;
    QVERIFY(startOn(c, loadFixture("mlp")));
    QCOMPARE(runCommand(c, [&] { c.step(); }), StopReason::Stepped);
    QCOMPARE(runCommand(c, [&] { c.step(); }), StopReason::Stepped);  // linear, relu
    c.toggleBreakpoint(nodeId(c, "linear_1"));
    QTemporaryDir dir;
    const QString path = dir.filePath(QStringLiteral("mlp.capture"));
    QCOMPARE(saveCaptureOf(c, path), QString());

    const torchir::Capture capture = torchir::readCapture(path.toStdString());
    QCOMPARE(capture.next, std::string("linear_1"));
    QCOMPARE(capture.breakpoints, std::vector<std::string>{"linear_1"});
    QVERIFY(capture.program ==
            torchir::programReference(torchir::test::fixturePath("mlp", ".pt2").toStdString()));
    QCOMPARE(capture.inputs.size(), std::size_t{1});
    QVERIFY(capture.inputs[0].contiguousBytes() == c.program()->program.sampleInputs.at(0).contiguousBytes());
    std::vector<std::string> recorded;
    for (const auto& [node, record] : capture.records)
      if (!record.schema.empty()) recorded.push_back(node);
    QCOMPARE(recorded, (std::vector<std::string>{"linear", "relu"}));
    for (const auto& [node, record] : capture.records) {
      const torchir::NodeRecord* live = c.record(nodeId(c, node.c_str()));
      QVERIFY(live);
      QCOMPARE(record.outputs.size(), live->outputs.size());
      for (std::size_t i = 0; i < record.outputs.size(); ++i) QCOMPARE(record.outputs[i].text, live->outputs[i].text);
      QCOMPARE(record.microseconds, live->microseconds);
    }
  }

  // A capture opened as a user opens one: the run as it was (records, marks, notes, bookmarks,
  // the pinned tensor) without running; Continue makes the run again from there, to a straight
  // run's bits. A damaged capture is one line; a capture with its program embedded opens without
  // the program file.
  void captureReopensAsItWasThenContinues() {
    QTemporaryDir dir;
    const QString program = dir.filePath(QStringLiteral("mlp.pt2"));
    QVERIFY(QFile::copy(torchir::test::fixturePath("mlp", ".pt2"), program));
    SessionController c;
    QVERIFY(startOn(c, loadFile(program)));
    QCOMPARE(runCommand(c, [&] { c.step(); }), StopReason::Stepped);
    QCOMPARE(runCommand(c, [&] { c.step(); }), StopReason::Stepped);  // linear, relu
    const torchir::NodeId linear = nodeId(c, "linear"), relu = nodeId(c, "relu"), linear1 = nodeId(c, "linear_1");
    c.toggleBreakpoint(linear1);
    QVERIFY(c.annotations().toggleBookmark(relu));
    c.annotations().setNote(linear, QStringLiteral("look here"));
    c.annotations().togglePin(outputOf(c, "relu"));
    const auto reluValue = tensorOf(c, outputOf(c, "relu"));
    QVERIFY(reluValue);
    const QString path = dir.filePath(QStringLiteral("mlp.capture"));
    const QString embedded = dir.filePath(QStringLiteral("mlp-embedded.capture"));
    std::optional<QString> saved;
    torchir::ui::saveCapture(c, path, false, &c, [&](const QString& problem) {
      QCOMPARE(c.state(), RunState::Paused);  // the run is its own again when the feature hears
      saved = problem;
    });
    QCOMPARE(c.state(), RunState::Saving);  // a job of the engine thread, in the state machine
    QVERIFY(!c.canStep() && !c.canStop());  // and one that Stop cannot cut short
    QTRY_VERIFY_WITH_TIMEOUT(saved.has_value(), kTimeoutMs);
    QCOMPARE(*saved, QString());
    QCOMPARE(c.state(), RunState::Paused);
    QCOMPARE(saveCaptureOf(c, embedded, /*embedProgram=*/true), QString());
    QCOMPARE(runCommand(c, [&] { c.continueRun(); }), StopReason::Finished);  // past the breakpoint: it starts there

    // reopened: as it was, nothing run
    SessionController r;
    const LoadedProgramPtr opened = openThroughLoader(path);
    QVERIFY(opened && opened->capture);
    QCOMPARE(QFileInfo(opened->request.path), QFileInfo(program));
    r.setProgram(opened);
    QTRY_VERIFY_WITH_TIMEOUT(r.state() != RunState::Starting, kTimeoutMs);
    QCOMPARE(r.state(), RunState::Paused);
    QVERIFY(r.inputsDescription().contains(QStringLiteral("capture")));
    QCOMPARE(r.marks().current, linear1);
    QCOMPARE(r.marks().breakpoints, std::set<torchir::NodeId>{linear1});
    QCOMPARE(r.marks().bookmark(relu), 1);
    QCOMPARE(r.annotations().bookmarkedNode(1), relu);
    QCOMPARE(r.annotations().note(linear), QStringLiteral("look here"));
    QVERIFY(r.marks().hasNote(linear));
    for (torchir::NodeId n : {linear, relu}) {
      QVERIFY(r.marks().status(n) == torchir::ui::NodeStatus::Executed);
      QVERIFY(r.record(n) && c.record(n));
      QCOMPARE(r.record(n)->schema, c.record(n)->schema);
      QCOMPARE(r.record(n)->outputs.at(0).text, c.record(n)->outputs.at(0).text);
      QCOMPARE(r.record(n)->microseconds, c.record(n)->microseconds);
    }
    QVERIFY(!r.record(linear1));
    const auto pinned = tensorOf(r, outputOf(r, "relu"));  // kept by the capture
    QVERIFY(pinned && pinned->contiguousBytes() == reluValue->contiguousBytes());
    QString why;
    QVERIFY(!tensorOf(r, outputOf(r, "linear"), &why));  // not pinned, and the run is not made
    QVERIFY2(why.contains(QStringLiteral("capture keeps no tensor")), qPrintable(why));

    // continued: made again up to linear_1, then run on
    QCOMPARE(runCommand(r, [&] { r.continueRun(); }), StopReason::Finished);
    const auto straight = tensorOf(c, outputOf(c, "linear_1"));
    const auto continued = tensorOf(r, outputOf(r, "linear_1"));
    QVERIFY(straight && continued && straight->contiguousBytes() == continued->contiguousBytes());
    QVERIFY(tensorOf(r, outputOf(r, "linear")));  // the run's own values now

    // the embedded program opens without the file
    QVERIFY(QFile::remove(program));
    const LoadedProgramPtr sent = openThroughLoader(embedded);
    QVERIFY(sent && sent->capture);
    QVERIFY(QFileInfo::exists(sent->request.path));
    QCOMPARE(sent->program.nodes.size(), opened->program.nodes.size());
    QString problem;
    QVERIFY(!openThroughLoader(path, &problem));  // the plain one names what is missing
    QVERIFY2(problem.contains(QStringLiteral("not there")), qPrintable(problem));

    // damaged: one line naming the problem
    QFile whole(embedded);
    QVERIFY(whole.open(QIODevice::ReadOnly));
    const QByteArray bytes = whole.readAll();
    const QString damaged = dir.filePath(QStringLiteral("damaged.capture"));
    QFile cut(damaged);
    QVERIFY(cut.open(QIODevice::WriteOnly));
    cut.write(bytes.left(bytes.size() / 2));
    cut.close();
    problem.clear();
    QVERIFY(!openThroughLoader(damaged, &problem));
    QVERIFY2(!problem.isEmpty() && !problem.contains(QLatin1Char('\n')), qPrintable(problem));
  }

  // A capture made past a NaN with Stop on NaN/Inf on is made again to where it stood, not to the
  // NaN: the replay is the forward run as it went, its stop conditions aside.
  void captureOfANanRunReopensWhereItStood() {
    QTemporaryDir dir;
    torchir::StopConditions stops;
    stops.nanOrInf = true;
    SessionController c;
    QVERIFY(startOn(c, loadFixture("nan_from_sqrt")));
    c.setStopConditions(stops);
    QCOMPARE(runCommand(c, [&] { c.continueRun(); }), StopReason::StopCondition);
    QCOMPARE(c.marks().failed, nodeId(c, "sqrt"));
    // `add` makes NaN of NaN: a stop there too, at the end of the run
    QCOMPARE(runCommand(c, [&] { c.continueRun(); }), StopReason::StopCondition);
    QCOMPARE(c.state(), RunState::Finished);
    const QString path = dir.filePath(QStringLiteral("nan.capture"));
    QCOMPARE(saveCaptureOf(c, path), QString());

    SessionController r;
    r.setStopConditions(stops);
    r.setProgram(openThroughLoader(path));
    QTRY_VERIFY_WITH_TIMEOUT(r.state() != RunState::Starting, kTimeoutMs);
    QCOMPARE(r.state(), RunState::Finished);
    QVERIFY(r.canStepBack());
    // made again to the end, then one op back: `add` runs next (a replay stopped at the NaN would
    // step back from `add` to `sqrt`)
    QCOMPARE(runCommand(r, [&] { r.stepBack(); }), StopReason::Stepped);
    QCOMPARE(r.marks().current, nodeId(r, "add"));
    QVERIFY(r.record(nodeId(r, "sqrt")) && !r.record(nodeId(r, "add")));
  }

  // Compare › With Another File: an IR JSON brings the weights file beside it, as File › Open and
  // the command line find it, so its run pairs with ours to the end.
  void comparisonWithAnIrJsonFindsItsWeights() {
    SessionController c;
    QVERIFY(startOn(c, loadFixture("mlp")));
    c.compareWith({torchir::ui::CompareRequest::File, torchir::DType::Float64,
                   torchir::test::fixturePath(QStringLiteral("mlp"), QStringLiteral(".ir.json"))});
    QTRY_VERIFY_WITH_TIMEOUT(c.comparison() && c.state() != RunState::Running, kTimeoutMs);
    QCOMPARE(c.comparison()->reference, std::string("mlp.ir.json"));
    QVERIFY2(c.comparison()->referenceFailure.empty(), c.comparison()->referenceFailure.c_str());
    QCOMPARE(c.state(), RunState::Finished);
  }

  // A comparison the run was part of comes back with the capture: each node's metrics, the
  // reference's name, the first NaN/Inf's slice, as the table and the graph showed them.
  void captureKeepsTheComparison() {
    QTemporaryDir dir;
    SessionController c;
    QVERIFY(startOn(c, loadFixture("nan_from_sqrt")));
    QSignalSpy compared(&c, &SessionController::comparisonChanged);
    c.compareWith({torchir::ui::CompareRequest::Dtype, torchir::DType::Float64, {}});
    QTRY_VERIFY_WITH_TIMEOUT(c.comparison() && c.state() != RunState::Running, kTimeoutMs);
    const auto live = c.comparison();
    QVERIFY(!live->nodes.empty());
    const QString path = dir.filePath(QStringLiteral("compared.capture"));
    QCOMPARE(saveCaptureOf(c, path), QString());

    SessionController r;
    QSignalSpy restored(&r, &SessionController::comparisonChanged);
    r.setProgram(openThroughLoader(path));
    QTRY_VERIFY_WITH_TIMEOUT(r.state() != RunState::Starting && r.comparison(), kTimeoutMs);
    const auto back = r.comparison();
    QCOMPARE(back->reference, live->reference);
    QCOMPARE(back->nodes.size(), live->nodes.size());
    for (const auto& n : live->nodes) {
      const torchir::NodeComparison* b = back->of(n.a);
      QVERIFY(b);
      QCOMPARE(b->output, n.output);
      QCOMPARE(b->diverges, n.diverges);
      QCOMPARE(b->makesNonfinite, n.makesNonfinite);
      QVERIFY((std::isnan(b->metrics.maxRel) && std::isnan(n.metrics.maxRel)) || b->metrics.maxRel == n.metrics.maxRel);
      QVERIFY((std::isnan(b->metrics.cosine) && std::isnan(n.metrics.cosine)) || b->metrics.cosine == n.metrics.cosine);
    }
    QCOMPARE(back->firstNonfinite, live->firstNonfinite);
    QCOMPARE(back->nonfiniteSlice, live->nonfiniteSlice);
    QVERIFY(live->firstNonfinite != torchir::kNone);  // the fixture makes one: the slice was compared
  }

  void stepsRecordAndMark() {
    SessionController c;
    QVERIFY(startOn(c, loadFixture("mlp")));
    const torchir::NodeId linear = nodeId(c, "linear"), relu = nodeId(c, "relu"), linear1 = nodeId(c, "linear_1");

    QCOMPARE(runCommand(c, [&] { c.step(); }), StopReason::Stepped);
    QCOMPARE(c.state(), RunState::Paused);
    QCOMPARE(c.marks().current, relu);
    QCOMPARE(c.marks().status(linear), torchir::ui::NodeStatus::Executed);
    QVERIFY(c.record(linear) != nullptr);
    QVERIFY(c.record(relu) == nullptr);

    QCOMPARE(runCommand(c, [&] { c.step(); }), StopReason::Stepped);
    QCOMPARE(c.marks().current, linear1);

    QCOMPARE(runCommand(c, [&] { c.step(); }), StopReason::Finished);
    QCOMPARE(c.state(), RunState::Finished);
    QCOMPARE(c.marks().current, torchir::kNone);
    // The third executed node's arguments as the schema saw them, each with where it came from.
    const torchir::NodeRecord* r = c.record(linear1);
    QVERIFY(r != nullptr);
    QVERIFY(r->executed);
    QVERIFY(QString::fromStdString(r->schema).startsWith(QStringLiteral("aten::linear(")));
    QCOMPARE(r->arguments.size(), std::size_t{3});
    QCOMPARE(r->arguments[0].name, std::string("input"));
    QCOMPARE(r->arguments[1].name, std::string("weight"));
    QCOMPARE(r->arguments[2].name, std::string("bias"));
    for (const auto& a : r->arguments) {
      QCOMPARE(a.source, torchir::ArgSource::Input);
      QVERIFY(!a.sourceDetail.empty());
    }
    QCOMPARE(r->arguments[0].value.kind, std::string("Tensor"));
    QCOMPARE(r->outputs.size(), std::size_t{1});
    QCOMPARE(r->outputs[0].sizes, (std::vector<int64_t>{2, 8}));
    QVERIFY(!c.canStep() && !c.canContinue() && c.canReset());
  }

  void runToStopsAfterTheNode() {
    SessionController c;
    QVERIFY(startOn(c, loadFixture("mlp")));
    const torchir::NodeId relu = nodeId(c, "relu");
    QVERIFY(c.canRunTo(relu));
    QCOMPARE(runCommand(c, [&] { c.runTo(relu); }), StopReason::Stepped);
    QCOMPARE(c.state(), RunState::Paused);
    QCOMPARE(c.marks().current, nodeId(c, "linear_1"));
    QVERIFY(c.record(relu) != nullptr && c.record(nodeId(c, "linear")) != nullptr);
    QVERIFY(!c.canRunTo(relu));  // it has run
  }

  void breakpointStopsBeforeItsNodeAndContinuePassesIt() {
    SessionController c;
    QVERIFY(startOn(c, loadFixture("mlp")));
    const torchir::NodeId relu = nodeId(c, "relu");
    QSignalSpy marks(&c, &SessionController::marksChanged);
    c.toggleBreakpoint(relu);
    QCOMPARE(marks.size(), 1);
    QVERIFY(c.marks().hasBreakpoint(relu));

    QCOMPARE(runCommand(c, [&] { c.continueRun(); }), StopReason::Breakpoint);
    QCOMPARE(c.state(), RunState::Paused);
    QCOMPARE(c.marks().current, relu);
    QVERIFY(c.record(relu) == nullptr);

    // Continue from the breakpoint's node runs it first, as debuggers do.
    QCOMPARE(runCommand(c, [&] { c.continueRun(); }), StopReason::Finished);
    QCOMPARE(c.state(), RunState::Finished);
    QVERIFY(c.record(relu) != nullptr);
    QVERIFY(c.marks().hasBreakpoint(relu));  // kept across the run

    c.toggleBreakpoint(relu);
    QVERIFY(!c.marks().hasBreakpoint(relu));
  }

  // The node a stop shows comes with the stop: a step's own node, with its output's tensor in the
  // report, so the tensor dock's ask for it is answered while the engine thread is busy with
  // something else; a failure shows its node, a breakpoint the node it stopped before.
  void aStopBringsWhatItShows() {
    SessionController c;
    QVERIFY(startOn(c, loadFixture("mlp")));
    const torchir::NodeId linear = nodeId(c, "linear"), relu = nodeId(c, "relu");
    QCOMPARE(runCommand(c, [&] { c.step(); }), StopReason::Stepped);
    QCOMPARE(c.shownNode(), linear);
    QCOMPARE(runCommand(c, [&] { c.step(); }), StopReason::Stepped);
    QCOMPARE(c.shownNode(), relu);

    QSemaphore gate;
    std::atomic<bool> busy{true};
    c.ask([&](torchir::ui::EngineJob&) {  // holds the engine thread until the answer came
      gate.acquire();
      busy = false;
    });
    const auto shown = tensorOf(c, outputOf(c, "relu"));
    const bool answeredWhileBusy = busy;
    gate.release();
    QTRY_VERIFY_WITH_TIMEOUT(!busy, kTimeoutMs);
    QVERIFY(answeredWhileBusy);
    QVERIFY(shown);
    const auto asked = tensorOf(c, outputOf(c, "linear"));  // not what the stop showed: asked of the engine
    QVERIFY(asked && asked->contiguousBytes() != shown->contiguousBytes());
    QCOMPARE(runCommand(c, [&] { c.stepBack(); }), StopReason::Stepped);
    QString why;
    QVERIFY(!tensorOf(c, outputOf(c, "relu"), &why));  // the report's tensor went with the step it showed
    QVERIFY2(why.contains(QStringLiteral("not been computed")), qPrintable(why));

    c.toggleBreakpoint(nodeId(c, "linear_1"));
    QCOMPARE(runCommand(c, [&] { c.continueRun(); }), StopReason::Breakpoint);
    QCOMPARE(c.shownNode(), nodeId(c, "linear_1"));
    SessionController f;
    QVERIFY(startOn(f, loadFixture("half_before_linear")));
    QCOMPARE(runCommand(f, [&] { f.continueRun(); }), StopReason::Failed);
    QCOMPARE(f.shownNode(), nodeId(f, "linear"));
  }

  void failureKeepsDiagnosisUntilReset() {
    SessionController c;
    // Fails with its own sample inputs: a float16 input meets float32 weights at `linear`.
    QVERIFY(startOn(c, loadFixture("half_before_linear")));
    const torchir::NodeId linear = nodeId(c, "linear");
    QCOMPARE(runCommand(c, [&] { c.continueRun(); }), StopReason::Failed);
    QCOMPARE(c.state(), RunState::Failed);
    QCOMPARE(c.diagnosis().kind, torchir::DiagnosisClass::DtypeMismatch);
    QCOMPARE(c.diagnosis().nodeName, std::string("linear"));
    QCOMPARE(c.diagnosis().node, linear);
    QCOMPARE(c.marks().failed, linear);
    QCOMPARE(c.marks().status(linear), torchir::ui::NodeStatus::Failed);
    QVERIFY(c.record(nodeId(c, "to")) != nullptr);
    QVERIFY(!c.canStep() && !c.canContinue() && c.canReset());

    QSignalSpy states(&c, &SessionController::stateChanged);
    c.step();  // not allowed after a failure
    QCOMPARE(states.size(), 0);

    c.reset();
    QTRY_COMPARE_WITH_TIMEOUT(c.state(), RunState::Ready, kTimeoutMs);
    QVERIFY(c.diagnosis().ok());
    QCOMPARE(c.marks().failed, torchir::kNone);
    QVERIFY(!anyCallExecuted(c));
    QVERIFY(c.record(nodeId(c, "to")) == nullptr);
    QCOMPARE(c.marks().current, nodeId(c, "_assert_tensor_metadata_default"));
  }

  void stopConditionPausesWithDiagnosis() {
    SessionController c;
    QVERIFY(startOn(c, loadFixture("masked_softmax")));
    torchir::StopConditions stops;
    stops.nanOrInf = true;
    c.setStopConditions(stops);
    QCOMPARE(c.stopConditions().nanOrInf, true);
    QCOMPARE(runCommand(c, [&] { c.continueRun(); }), StopReason::StopCondition);
    QCOMPARE(c.state(), RunState::Paused);
    QCOMPARE(c.diagnosis().kind, torchir::DiagnosisClass::NanOrInf);
    const torchir::NodeId where = c.diagnosis().node;
    QCOMPARE(c.program()->program.node(where).name, std::string("masked_fill"));
    QCOMPARE(c.marks().failed, where);
    QVERIFY(c.record(where) != nullptr);  // the node ran; its output is what stopped the run

    c.setStopConditions({});
    QCOMPARE(runCommand(c, [&] { c.continueRun(); }), StopReason::Finished);
    QCOMPARE(c.marks().failed, torchir::kNone);
    QVERIFY(c.diagnosis().ok());
  }

  void stopRightAfterContinuePauses() {
    SessionController c;
    QVERIFY(startOn(c, longLoop("endless")));
    QSignalSpy stopped(&c, &SessionController::stopped);
    c.continueRun();
    c.stop();  // the engine thread sees it within a node or two of starting
    QVERIFY(stopped.wait(kTimeoutMs));
    QCOMPARE(stopped.first().first().value<StopReason>(), StopReason::Cancelled);
    // where the run stood: Ready when the stop came before the first op ran, else Paused
    QCOMPARE(c.state(), c.record(nodeId(c, "add")) ? RunState::Paused : RunState::Ready);
    QVERIFY(c.marks().current != torchir::kNone);
    QVERIFY(c.canContinue());
  }

  void stopEndsALongContinuePaused() {
    SessionController c;
    QVERIFY(startOn(c, longLoop("endless")));
    const int total = static_cast<int>(c.program()->program.nodes.size());
    QSignalSpy progress(&c, &SessionController::progress);
    QSignalSpy stopped(&c, &SessionController::stopped);
    c.continueRun();
    QCOMPARE(c.state(), RunState::Running);
    QVERIFY(c.canStop());
    // Only stop() and breakpoints are taken while running.
    QSignalSpy states(&c, &SessionController::stateChanged);
    c.step();
    c.continueRun();
    c.reset();
    QCOMPARE(states.size(), 0);

    // The GUI thread hears from the run while it goes on, records included.
    QVERIFY2(QTest::qWaitFor([&] { return !progress.isEmpty() || !stopped.isEmpty(); }, kTimeoutMs),
             "neither progress nor an end");
    QVERIFY2(stopped.isEmpty(), "an endless run ended");
    const int reported = progress.last().at(0).toInt();
    QCOMPARE(progress.last().at(1).toInt(), total);
    QVERIFY(reported > 0 && reported < total);
    QCOMPARE(c.state(), RunState::Running);
    QVERIFY(c.record(nodeId(c, "add")) != nullptr);  // the op before the loop, in the report
    c.stop();
    QVERIFY(stopped.wait(kTimeoutMs));
    QCOMPARE(stopped.first().first().value<StopReason>(), StopReason::Cancelled);
    QCOMPARE(c.state(), RunState::Paused);
    QVERIFY(c.marks().current >= reported && c.marks().current < total);
    QVERIFY(!c.canStop());

    // A stop after its command ended must not cancel the next command.
    c.stop();
    QCOMPARE(runCommand(c, [&] { c.stepBack(); }), StopReason::Stepped);  // a run from the inputs
    QCOMPARE(c.marks().current, nodeId(c, "zeros"));  // the last op before the loop runs next
  }

  void breakpointSetWhileRunningIsHonoured() {
    SessionController c;
    QVERIFY(startOn(c, longLoop("long")));
    const auto& nodes = c.program()->program.nodes;
    torchir::NodeId target = nodes.back().id;  // the last node that does work
    while (target > 0 && nodes[static_cast<std::size_t>(target)].opcode != torchir::Opcode::CallFunction) --target;
    QSignalSpy progress(&c, &SessionController::progress);
    QSignalSpy stopped(&c, &SessionController::stopped);
    c.continueRun();
    QVERIFY2(QTest::qWaitFor([&] { return !progress.isEmpty() || !stopped.isEmpty(); }, kTimeoutMs),
             "neither progress nor an end");
    // the first report comes within the first loop (50 ms into it): the second loop alone
    // outlasts the breakpoint's way to the engine many times over
    QVERIFY2(stopped.isEmpty(), "the run ended before its first progress report");
    c.toggleBreakpoint(target);
    QVERIFY(stopped.wait(kTimeoutMs));
    QCOMPARE(stopped.first().first().value<StopReason>(), StopReason::Breakpoint);
    QCOMPARE(c.marks().current, target);
  }

  void commandsInTheWrongStateAreIgnored() {
    SessionController c;
    QSignalSpy states(&c, &SessionController::stateChanged);
    QSignalSpy marks(&c, &SessionController::marksChanged);
    c.step();
    c.continueRun();
    c.runTo(0);
    c.reset();
    c.stop();
    c.toggleBreakpoint(0);
    QCOMPARE(states.size(), 0);
    QCOMPARE(marks.size(), 0);
    QCOMPARE(c.state(), RunState::Empty);

    c.setProgram(loadFixture("mlp"));
    c.step();  // still Starting
    c.runTo(-5);
    QTRY_COMPARE_WITH_TIMEOUT(c.state(), RunState::Ready, kTimeoutMs);
    QVERIFY(!anyCallExecuted(c));
    c.reset();  // nothing to reset
    c.runTo(static_cast<torchir::NodeId>(c.program()->program.nodes.size()));
    QCOMPARE(c.state(), RunState::Ready);

    c.clear();
    QCOMPARE(c.state(), RunState::Empty);
    QVERIFY(c.program() == nullptr);
  }

  void tensorsOfExecutedAndUnrunValues() {
    SessionController c;
    QVERIFY(startOn(c, loadFixture("mlp")));
    QCOMPARE(runCommand(c, [&] { c.step(); }), StopReason::Stepped);
    QSignalSpy ready(&c, &SessionController::tensorReady);
    QSignalSpy unavailable(&c, &SessionController::tensorUnavailable);

    const torchir::ValueId linear = outputOf(c, "linear");
    c.requestTensor(linear);
    QVERIFY(ready.wait(kTimeoutMs));
    QCOMPARE(ready.first().at(0).toInt(), linear);
    const auto tensor = ready.first().at(1).value<torchir::TensorData>();
    std::vector<int64_t> exported;
    for (const auto& d : c.program()->program.value(linear).shape) exported.push_back(d.hint);
    QCOMPARE(tensor.sizes, exported);
    QCOMPARE(tensor.dtype, torchir::DType::Float32);
    QCOMPARE(tensor.numel(), int64_t{2 * 32});
    QVERIFY(tensor.hasData());
    QCOMPARE(tensor.sizes, c.record(nodeId(c, "linear"))->outputs[0].sizes);

    const torchir::ValueId later = outputOf(c, "linear_1");
    c.requestTensor(later);
    QVERIFY(unavailable.wait(kTimeoutMs));
    QCOMPARE(unavailable.first().at(0).toInt(), later);
    QVERIFY(unavailable.first().at(1).toString().contains(QStringLiteral("not been computed")));

    // Queued behind a run: the answer reflects the run's end.
    ready.clear();
    c.continueRun();
    c.requestTensor(later);
    QVERIFY(ready.wait(kTimeoutMs));
    QCOMPARE(ready.first().at(1).value<torchir::TensorData>().sizes, (std::vector<int64_t>{2, 8}));
  }

  void inputsFromAFile() {
    SessionController c;
    const QString inputs = torchir::test::fixturePath(QStringLiteral("mlp"), QStringLiteral(".inputs.safetensors"));
    QVERIFY(startOn(c, loadFixture("mlp", inputs)));
    QCOMPARE(c.inputsDescription(), QStringLiteral("inputs from mlp.inputs.safetensors"));
    QCOMPARE(runCommand(c, [&] { c.continueRun(); }), StopReason::Finished);
  }

  void randomInputsWhenTheArchiveHasNone() {
    SessionController c;
    // A meta-device export stores input shapes without data.
    QVERIFY(startOn(c, loadFixture("meta_mlp")));
    QCOMPARE(c.inputsDescription(), QStringLiteral("random inputs (seed 0)"));
  }

  void badInputsFileFailsTheSession() {
    SessionController c;
    QSignalSpy failed(&c, &SessionController::sessionFailed);
    // A real safetensors file without the program's input in it.
    const QString wrong = torchir::test::fixturePath(QStringLiteral("mlp"), QStringLiteral(".outputs.safetensors"));
    c.setProgram(loadFixture("mlp", wrong));
    QVERIFY(failed.wait(kTimeoutMs));
    QCOMPARE(c.state(), RunState::StartFailed);
    QVERIFY2(failed.first().first().toString().contains(QStringLiteral("mlp.outputs.safetensors")),
             qPrintable(failed.first().first().toString()));
    QVERIFY(!c.canStep() && !c.canReset());

    failed.clear();
    QTemporaryDir dir;
    const QString missing = dir.filePath(QStringLiteral("missing.safetensors"));
    c.setProgram(loadFixture("mlp", missing));
    QVERIFY(failed.wait(kTimeoutMs));
    QVERIFY(failed.first().first().toString().contains(QStringLiteral("missing.safetensors")));
  }

  void newProgramSupersedesTheOld() {
    SessionController c;
    QSignalSpy failed(&c, &SessionController::sessionFailed);
    const QString wrong = torchir::test::fixturePath(QStringLiteral("mlp"), QStringLiteral(".outputs.safetensors"));
    c.setProgram(loadFixture("mlp", wrong));  // would fail, but is replaced before it starts
    QVERIFY(startOn(c, loadFixture("cnn_bn")));
    QCOMPARE(failed.size(), 0);
    QCOMPARE(runCommand(c, [&] { c.continueRun(); }), StopReason::Finished);
    QCOMPARE(c.state(), RunState::Finished);
    for (const auto& n : c.program()->program.nodes)
      if (n.opcode == torchir::Opcode::CallFunction) QVERIFY(c.record(n.id) != nullptr);
  }
};

QTEST_MAIN(TestSessionController)
#include "tst_sessioncontroller.moc"
