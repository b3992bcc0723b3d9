#include "session/SessionController.h"

#include <utility>

#include "session/BackgroundRelease.h"
#include "session/OneLine.h"
#include "session/RunJobs.h"

namespace torchir::ui {

SessionController::SessionController(QObject* parent) : QObject(parent), m_engine(this) {
  connect(&m_annotations, &Annotations::marksChanged, this, &SessionController::marksChanged);
}

SessionController::~SessionController() = default;

void SessionController::forgetRun() {
  m_engine.controls().cancelUpTo = m_commandId;
  m_engine.controls().generation = ++m_generation;
  m_engine.controls().setBreakpoints({});
  m_marks = ExecutionMarks{};
  // A 100k-node run's records and comparison are a tenth of a second of frees: on a pool thread.
  m_records.reset(0);
  m_shownNode = torchir::kNone;
  m_shownTensor.reset();
  m_diagnosis = {};
  m_inputsDescription.clear();
  releaseInBackground(std::exchange(m_comparison, nullptr));
}

void SessionController::setProgram(torchir::ui::LoadedProgramPtr program, const std::set<torchir::NodeId>& breakpoints,
                                   std::size_t call) {
  if (!program) {
    clear();
    return;
  }
  const bool hadComparison = m_comparison != nullptr;
  forgetRun();
  m_program = std::move(program);
  m_call = call;
  forgetAnnotations();
  setProblems({});
  m_marks.executed.assign(m_program->program.nodes.size(), false);
  m_records.reset(m_program->program.nodes.size());
  for (torchir::NodeId n : breakpoints)
    if (validNode(n)) m_marks.breakpoints.insert(n);
  m_engine.controls().setBreakpoints(m_marks.breakpoints);
  StartReplies replies{[this](EngineReportPtr report, QString inputs) { onStarted(report, inputs); },
                       [this](std::vector<torchir::Problem> problems) { setProblems(std::move(problems)); },
                       [this](QString problem) { onStartFailed(problem); }};
  post(0, [replies, loaded = m_program, call](EngineJob& job) { startDebugger(job, loaded, call, replies); },
       /*needsDebugger=*/false);
  setState(RunState::Starting);
  Q_EMIT marksChanged();
  if (hadComparison) Q_EMIT comparisonChanged();  // the views let go of it, and of the program it holds
}

void SessionController::clear() {
  const bool hadProgram = m_program != nullptr;
  const bool hadComparison = m_comparison != nullptr;
  forgetRun();
  m_program.reset();
  forgetAnnotations();
  setProblems({});
  post(0, [](EngineJob& job) { job.setDebugger(nullptr); }, /*needsDebugger=*/false);
  setState(RunState::Empty);
  if (hadProgram) Q_EMIT marksChanged();
  if (hadComparison) Q_EMIT comparisonChanged();  // the views let go of it, and of the program it holds
}

int SessionController::nodeCount() const {
  return m_program ? static_cast<int>(m_program->program.nodes.size()) : 0;
}

bool SessionController::validNode(torchir::NodeId node) const { return node >= 0 && node < nodeCount(); }

bool SessionController::canStep() const { return m_state == RunState::Ready || m_state == RunState::Paused; }
bool SessionController::canContinue() const { return canStep(); }

bool SessionController::canRunTo(torchir::NodeId node) const {
  return canStep() && validNode(node) && !m_marks.executed[static_cast<std::size_t>(node)];
}

RunState SessionController::restingState() const {
  if (m_marks.current == torchir::kNone) return RunState::Finished;
  if (!m_diagnosis.ok() && m_marks.failed != torchir::kNone && m_marks.failed == m_marks.current) return RunState::Failed;
  return m_records.anyWork() ? RunState::Paused : RunState::Ready;
}

bool SessionController::canStepBack() const {
  return isStopped(m_state) && lastWorkBefore(m_marks.current) != torchir::kNone;  // an op ran
}

bool SessionController::canStop() const { return m_state == RunState::Running || m_state == RunState::Exporting; }

void SessionController::compareWith(const CompareRequest& request) {
  if (canCompare()) send(EngineCommand::Compare, torchir::kNone, request);
}

bool SessionController::canContinueComparison() const {
  // a device's run (an ETDump) is compared whole: there is nothing to run on
  return m_comparison && !m_comparison->device && m_state == RunState::Paused;
}

void SessionController::continueComparison(torchir::CompareStop stop) {
  CompareRequest request;
  request.stop = stop;
  if (canContinueComparison()) send(EngineCommand::CompareOn, torchir::kNone, request);
}

void SessionController::step() {
  if (canStep()) send(EngineCommand::Step, torchir::kNone);
}

bool SessionController::canEditCall() const {
  return m_marks.current != torchir::kNone &&
         (m_state == RunState::Ready || m_state == RunState::Paused || m_state == RunState::Failed);
}

void SessionController::takeCallChange(const torchir::CallChange& change, bool andContinue) {
  const torchir::NodeId node = change.node;
  const auto& patches = change.patches;
  const QString problem = oneLine(QString::fromStdString(change.problem));
  if (!problem.isEmpty()) {
    setState(restingState());
    Q_EMIT patchRefused(node, problem);
    return;
  }
  if (patches.empty()) {
    m_patches.erase(node);
    m_marks.patched.erase(node);
  } else {
    m_patches[node] = patches;
    m_marks.patched.insert(node);
  }
  // taken: with andContinue the failure it answers is the past, and the run's report ends the job
  if (andContinue) clearStop();
  else setState(restingState());
  Q_EMIT marksChanged();
}

void SessionController::forgetAnnotations() {
  m_patches.clear();
  m_marks.patched.clear();
  m_annotations.reset(m_program ? m_program->program.nodes.size() : 0, m_program ? m_program->program.values.size() : 0);
}

CapturedRun SessionController::capturedRun() {
  return {m_marks, m_records.all(), m_annotations.notes(), m_annotations.pins(), m_patches, m_diagnosis, m_comparison};
}

std::shared_ptr<torchir::Capture> SessionController::capture() {
  return m_program ? captureOf(capturedRun(), m_program->program) : nullptr;
}

void SessionController::hold(RunState busy, QObject* context, HeldJob job) {
  if (!resting()) return;
  const quint64 id = busy == RunState::Exporting ? ++m_commandId : 0;  // 0: Stop does not reach it
  m_shownTensor.reset();  // a repro's own run may remake the run's values
  post(id, [this, context, job = std::move(job)](EngineJob& engine) {
    std::function<void()> done = job(engine);
    engine.reply([this] { setState(restingState()); });
    if (done) engine.reply(context, std::move(done));
  });
  setState(busy);
}

void SessionController::stepBack() {
  if (canStepBack()) send(EngineCommand::StepBack, torchir::kNone);
}

void SessionController::continueRun() {
  if (canContinue()) send(EngineCommand::Continue, torchir::kNone);
}

void SessionController::runTo(torchir::NodeId node) {
  if (canRunTo(node)) send(EngineCommand::RunTo, node);
}

void SessionController::reset() {
  if (canReset()) send(EngineCommand::Reset, torchir::kNone);
}

void SessionController::stop() {
  if (canStop()) m_engine.controls().cancelUpTo = m_commandId;
}

void SessionController::send(EngineCommand command, torchir::NodeId target, const CompareRequest& compare) {
  runCommand([=, stops = m_stopConditions](EngineJob& job, torchir::RunObserver* observer) {
    return std::optional(runCommandOn(job.debugger(), command, target, compare, stops, observer));
  });
}

void SessionController::runCommand(Command command, bool progress, bool clearsStop) {
  const bool marksChange = clearsStop && clearStop();
  m_shownTensor.reset();  // the run moves: an ask now waits for the command, as before it
  post(++m_commandId, [this, command, progress](EngineJob& job) {
    if (auto outcome = command(job, job.observer(progress ? progressToGui() : nullptr)))
      replyReport(job, std::move(*outcome));
  });
  setState(RunState::Running);
  if (marksChange) Q_EMIT marksChanged();
}

void SessionController::commandRanNothing() { setState(restingState()); }

void SessionController::ask(EngineJobFn job, bool needsDebugger) { post(0, std::move(job), needsDebugger); }

bool SessionController::clearStop() {
  // A stop condition that fired, or the diagnosis of it, belongs to the stop it explained.
  const bool marksChange = m_marks.failed != torchir::kNone;
  m_marks.failed = torchir::kNone;
  m_diagnosis = {};
  return marksChange;
}

void SessionController::toggleBreakpoint(torchir::NodeId node) {
  if (!validNode(node)) return;
  if (!m_marks.breakpoints.erase(node)) m_marks.breakpoints.insert(node);
  m_engine.controls().setBreakpoints(m_marks.breakpoints);
  Q_EMIT marksChanged();
}

void SessionController::requestTensor(torchir::ValueId value) {
  if (m_shownTensor && m_shownTensor->first == value) {  // the stop's report brought it
    QMetaObject::invokeMethod(this, [this, shown = *m_shownTensor] { Q_EMIT tensorReady(shown.first, shown.second); },
                              Qt::QueuedConnection);
    return;
  }
  if (!m_program || (!hasSession(m_state) && m_state != RunState::Starting)) {
    // Queued like an engine answer, so callers see the same order either way.
    QMetaObject::invokeMethod(
        this, [this, value] { Q_EMIT tensorUnavailable(value, QStringLiteral("no program is running")); },
        Qt::QueuedConnection);
    return;
  }
  post(0, [this, value](EngineJob& job) {
    const torchir::ValueAnswer a = job.hasDebugger() ? job.debugger().tensor(value) : torchir::ValueAnswer{{}, "the engine has not started"};
    job.reply([this, value, a] {
      if (a.tensor) Q_EMIT tensorReady(value, *a.tensor);
      else Q_EMIT tensorUnavailable(value, oneLine(QString::fromUtf8(a.why.c_str())));
    });
  }, /*needsDebugger=*/false);
}

void SessionController::post(quint64 commandId, EngineJobFn job, bool needsDebugger) {
  m_engine.post(m_generation, commandId, std::move(job), needsDebugger);
}

std::function<void(EngineReportPtr)> SessionController::progressToGui() {
  return [this](EngineReportPtr report) { onReported(report); };
}

void SessionController::replyReport(EngineJob& job, torchir::DebugOutcome outcome) {
  job.reply([this, report = endReport(job, std::move(outcome), m_engine.controls().carryShownTensor)] { onReported(report); });
}

namespace {

/// Ends the narrowing of changedRecords() to a report's rows when the report has been told.
struct ReportTold {
  std::optional<std::pair<int, int>>& range;
  ~ReportTold() { range.reset(); }
};

}  // namespace

void SessionController::applyRecords(torchir::DebugProgress& report) {
  m_shownTensor.reset();  // the run moved: what a report brought may be made anew
  m_changedRecords = m_records.take(report, m_marks);
}

void SessionController::takeStop(const torchir::DebugOutcome& outcome, const EngineReport* report) {
  m_shownNode = nodeAStopShows(outcome, m_marks.current, m_records.size(),
                               [this](torchir::NodeId n) { return m_marks.executed[static_cast<std::size_t>(n)] ? record(n) : nullptr; });
  if (report && report->shownTensor) m_shownTensor.emplace(report->shownValue, *report->shownTensor);
}

void SessionController::onStarted(const EngineReportPtr& report, const QString& description) {
  m_inputsDescription = description;
  ReportTold told{m_changedRecords};
  applyRecords(report->progress);
  if (m_program->capture) {
    CapturedRun run = capturedRun();
    showCaptured(*m_program->capture, std::shared_ptr<const torchir::Program>(m_program, &m_program->program), run);
    m_engine.controls().setBreakpoints(m_marks.breakpoints);  // the capture's, not the file's stored ones
  }
  const RunState state = restingState();  // a capture's run stands where it stood
  setState(state);
  Q_EMIT marksChanged();
  if (m_comparison) Q_EMIT comparisonChanged();
  // the views hear of the capture's stop as of a run's
  if (m_program->capture && !m_diagnosis.ok()) {
    torchir::DebugOutcome stop;
    stop.reason = state == RunState::Failed ? torchir::StopReason::Failed : torchir::StopReason::StopCondition;
    stop.diagnosis = m_diagnosis;
    takeStop(stop, nullptr);
    Q_EMIT stopped(stop.reason);
  }
}

void SessionController::onStartFailed(const QString& problem) {
  m_diagnosis = {};
  setState(RunState::StartFailed);
  Q_EMIT sessionFailed(problem);
}

void SessionController::onReported(const EngineReportPtr& report) {
  ReportTold told{m_changedRecords};
  applyRecords(report->progress);
  if (!report->ended) {
    Q_EMIT marksChanged();
    Q_EMIT progress(static_cast<int>(report->progress.position), nodeCount());
    return;
  }
  const torchir::DebugOutcome& outcome = report->outcome;
  const torchir::StopReason reason = outcome.reason;
  if (reason == torchir::StopReason::Failed || reason == torchir::StopReason::StopCondition) {
    m_diagnosis = outcome.diagnosis;
    m_marks.failed = m_diagnosis.node != torchir::kNone ? m_diagnosis.node : m_marks.current;
  }
  // a failure the engine had around a node (no node's own) still fails the run where it stands
  RunState next = outcome.command == EngineCommand::Reset ? RunState::Ready
                  : reason == torchir::StopReason::Failed && !report->progress.finished ? RunState::Failed
                                                                                         : restingState();
  const bool compared = outcome.command == EngineCommand::Compare;
  const bool restart = report->progress.restart;
  if (compared || restart) {
    // A comparison describes the run it made; a run started anew no longer matches it.
    releaseInBackground(std::exchange(m_comparison, compared ? outcome.comparison : nullptr));
  }
  takeStop(outcome, report.get());
  setState(next);
  Q_EMIT marksChanged();
  if (outcome.command != EngineCommand::Reset) Q_EMIT stopped(reason);
  if (compared || restart) Q_EMIT comparisonChanged();
}

void SessionController::setState(RunState state) {
  if (state == m_state) return;
  m_state = state;
  Q_EMIT stateChanged(state);
}

void SessionController::setProblems(std::vector<torchir::Problem> problems) {
  if (problems.empty() && m_problems.empty()) return;
  m_problems = std::move(problems);
  Q_EMIT problemsChanged();
}

}  // namespace torchir::ui
