#include "session/SessionController.h"

#include <algorithm>
#include <limits>
#include <utility>

#include <QFile>
#include <exception>

#include "exec/AtenBackend.h"
#include "program/OneLine.h"
#include "session/BackgroundRelease.h"
#include "session/OneLine.h"
#include "session/PythonSettings.h"

namespace torchir::ui {

QString runStateName(RunState state) {
  switch (state) {
    case RunState::Empty: return QStringLiteral("Empty");
    case RunState::Starting: return QStringLiteral("Starting");
    case RunState::StartFailed: return QStringLiteral("Cannot start");
    case RunState::Exporting: return QStringLiteral("Exporting");
    case RunState::Saving: return QStringLiteral("Saving");
    case RunState::Ready: return QStringLiteral("Ready");
    case RunState::Running: return QStringLiteral("Running");
    case RunState::Paused: return QStringLiteral("Paused");
    case RunState::Finished: return QStringLiteral("Finished");
    case RunState::Failed: return QStringLiteral("Failed");
  }
  return {};
}

SessionController::SessionController(QObject* parent)
    : QObject(parent), m_controls(std::make_shared<EngineControls>()) {
  // Engine results cross threads through queued connections, which copy arguments by metatype.
  qRegisterMetaType<torchir::ui::EngineReportPtr>();
  qRegisterMetaType<torchir::ui::RunState>();
  qRegisterMetaType<torchir::Diagnosis>();
  qRegisterMetaType<torchir::TensorData>();
  qRegisterMetaType<torchir::StopReason>();
  qRegisterMetaType<std::vector<torchir::Problem>>();
  qRegisterMetaType<torchir::PatchTrial>();
  qRegisterMetaType<std::vector<torchir::ArgumentPatch>>();

  m_worker = new EngineWorker(m_controls, this);
  m_worker->moveToThread(&m_thread);
  connect(&m_thread, &QThread::finished, m_worker, &QObject::deleteLater);
  // the run and its reference (and the threads they start) give way to the window
  connect(&m_thread, &QThread::started, m_worker, [] { torchir::lowerThisThreadPriority(); });
  m_thread.setObjectName(QStringLiteral("torchir-engine"));
  m_thread.start();
}

SessionController::~SessionController() {
  // A new generation stops a run between two nodes; queued work not yet started is skipped. A
  // node already running is allowed to finish: libtorch cannot be interrupted inside an op.
  m_controls->generation = std::numeric_limits<quint64>::max();
  m_controls->cancelUpTo = std::numeric_limits<quint64>::max();
  m_thread.quit();
  m_thread.wait();
}

void SessionController::forgetRun() {
  m_controls->cancelUpTo = m_commandId;
  m_controls->generation = ++m_generation;
  m_controls->setBreakpoints({});
  m_marks = ExecutionMarks{};
  // A 100k-node run's records and comparison are a tenth of a second of frees: on a pool thread.
  destroyInBackground(std::exchange(m_records, {}));
  m_diagnosis = {};
  m_inputsDescription.clear();
  releaseInBackground(std::exchange(m_comparison, nullptr));
}

void SessionController::setProgram(torchir::ui::LoadedProgramPtr program, const std::set<torchir::NodeId>& breakpoints) {
  if (!program) {
    clear();
    return;
  }
  forgetRun();
  m_program = std::move(program);
  forgetAnnotations();
  setProblems({});
  m_marks.executed.assign(m_program->program.nodes.size(), false);
  m_records.assign(m_program->program.nodes.size(), nullptr);
  for (torchir::NodeId n : breakpoints)
    if (validNode(n)) m_marks.breakpoints.insert(n);
  m_controls->setBreakpoints(m_marks.breakpoints);
  post(0, [this, loaded = m_program](EngineJob& job) { startDebugger(job, loaded); }, /*needsDebugger=*/false);
  setState(RunState::Starting);
  Q_EMIT marksChanged();
}

void SessionController::clear() {
  const bool hadProgram = m_program != nullptr;
  forgetRun();
  m_program.reset();
  forgetAnnotations();
  setProblems({});
  post(0, [](EngineJob& job) { job.setDebugger(nullptr); }, /*needsDebugger=*/false);
  setState(RunState::Empty);
  if (hadProgram) Q_EMIT marksChanged();
}

const torchir::NodeRecord* SessionController::record(torchir::NodeId node) const {
  if (node < 0 || static_cast<std::size_t>(node) >= m_records.size()) return nullptr;
  return m_records[static_cast<std::size_t>(node)].get();
}

std::shared_ptr<const torchir::NodeRecord> SessionController::sharedRecord(torchir::NodeId node) const {
  if (node < 0 || static_cast<std::size_t>(node) >= m_records.size()) return nullptr;
  return m_records[static_cast<std::size_t>(node)];
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

bool SessionController::hasSession() const {
  return m_state != RunState::Empty && m_state != RunState::Starting && m_state != RunState::StartFailed;
}

bool SessionController::resting() const {
  return m_state == RunState::Ready || m_state == RunState::Paused || m_state == RunState::Finished ||
         m_state == RunState::Failed;
}

RunState SessionController::restingState() const {
  if (m_marks.current == torchir::kNone) return RunState::Finished;
  if (!m_diagnosis.ok() && m_marks.failed != torchir::kNone && m_marks.failed == m_marks.current) return RunState::Failed;
  for (const auto& r : m_records)
    if (r && r->doesWork) return RunState::Paused;
  return RunState::Ready;
}

bool SessionController::canReset() const {
  return m_state == RunState::Paused || m_state == RunState::Finished || m_state == RunState::Failed;
}

bool SessionController::canStepBack() const {
  const bool stopped = m_state == RunState::Paused || m_state == RunState::Finished || m_state == RunState::Failed;
  return stopped && lastWorkBefore(m_marks.current) != torchir::kNone;  // an op ran
}

torchir::NodeId SessionController::lastWorkBefore(torchir::NodeId position) const {
  // nodes run in order, so the first one found going back from the position is the last
  auto n = std::min(position == torchir::kNone ? nodeCount() : position, static_cast<int>(m_records.size()));
  for (--n; n >= 0; --n)
    if (const auto& r = m_records[static_cast<std::size_t>(n)]; m_marks.executed[static_cast<std::size_t>(n)] && r && r->doesWork)
      return n;
  return torchir::kNone;
}

bool SessionController::canStop() const { return m_state == RunState::Running || m_state == RunState::Exporting; }

bool SessionController::canCompare() const {
  return resting();
}

void SessionController::compareWith(const CompareRequest& request) {
  if (canCompare()) send(EngineCommand::Compare, torchir::kNone, request);
}

bool SessionController::canContinueComparison() const { return m_comparison && m_state == RunState::Paused; }

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

void SessionController::tryPatches(torchir::NodeId node, const std::vector<torchir::ArgumentPatch>& patches) {
  if (!canEditCall()) return;
  post(0, [this, node, patches](EngineJob& job) {  // not a command: Stop does not cancel it
    const bool replays = job.debugger().replayPending();
    const torchir::PatchTrial trial = job.debugger().tryPatches(node, patches, job.observer(progressToGui()));
    if (replays) job.reply([this, report = job.report()] { onReported(report); });
    job.reply([this, node, trial] { Q_EMIT patchTried(node, trial); });
  });
}

void SessionController::applyPatches(torchir::NodeId node, const std::vector<torchir::ArgumentPatch>& patches,
                                     bool andContinue) {
  if (!resting() || !validNode(node)) return;
  // one job: the change, and the run on from it when asked (a failed node runs again, changed)
  runCommand(
      [this, node, patches, andContinue, stops = m_stopConditions](EngineJob& job, torchir::RunObserver* observer) {
        const torchir::CallChange c = job.debugger().changeCall(node, patches);
        const bool goesOn = andContinue && c.problem.empty();
        job.reply([this, c, goesOn] { takeCallChange(c, goesOn); });
        if (!goesOn) return std::optional<torchir::DebugOutcome>();  // takeCallChange ends the job
        return std::optional(job.debugger().execute(EngineCommand::Continue, torchir::kNone, stops, observer));
      },
      true, /*clearsStop=*/false);
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
  m_marks.bookmarks.clear();
  m_marks.noted.clear();
  m_notes.clear();
  m_pinned.clear();
}

bool SessionController::toggleBookmark(torchir::NodeId node) {
  if (!validNode(node)) return false;
  if (!m_marks.bookmarks.erase(node)) {
    int slot = 1;
    while (slot <= 9 && bookmarkedNode(slot) != torchir::kNone) ++slot;
    if (slot > 9) return false;
    m_marks.bookmarks[node] = slot;
  }
  Q_EMIT marksChanged();
  return true;
}

torchir::NodeId SessionController::bookmarkedNode(int slot) const {
  for (const auto& [node, s] : m_marks.bookmarks)
    if (s == slot) return node;
  return torchir::kNone;
}

void SessionController::setNote(torchir::NodeId node, const QString& text) {
  if (!validNode(node)) return;
  if (text.trimmed().isEmpty()) {
    m_notes.erase(node);
    m_marks.noted.erase(node);
  } else {
    m_notes[node] = text;
    m_marks.noted.insert(node);
  }
  Q_EMIT marksChanged();
}

QString SessionController::note(torchir::NodeId node) const {
  const auto it = m_notes.find(node);
  return it == m_notes.end() ? QString() : it->second;
}

void SessionController::togglePin(torchir::ValueId value) {
  if (!m_program || value < 0 || value >= static_cast<torchir::ValueId>(m_program->program.values.size())) return;
  if (!m_pinned.erase(value)) m_pinned.insert(value);
}

CapturedRun SessionController::capturedRun() {
  return {m_marks, m_records, m_notes, m_pinned, m_patches, m_diagnosis, m_comparison};
}

void SessionController::saveCapture(const QString& path, bool embedProgram) {
  if (!resting()) {
    Q_EMIT captureSaved(path, tr("nothing to capture while the program is not ready or is running"));
    return;
  }
  const auto capture = captureOf(capturedRun(), m_program->program);
  const std::vector<torchir::ValueId> pinned(m_pinned.begin(), m_pinned.end());
  post(0, [this, path, capture, pinned, embedProgram](EngineJob& job) {
    QString problem;
    try {
      job.debugger().saveCapture(QFile::encodeName(path).toStdString(), *capture, pinned, embedProgram);
    } catch (const std::exception& e) {
      problem = oneLine(QString::fromUtf8(e.what()));
    }
    job.reply([this, path, problem] {
      setState(restingState());
      Q_EMIT captureSaved(path, problem);
    });
  });
  setState(RunState::Saving);
}

bool SessionController::canExportRepro() const {
  return resting();
}

void SessionController::exportRepro(const torchir::ReproPart& part, const QString& path) {
  if (!canExportRepro()) {
    Q_EMIT reproExported(QString::fromStdString(part.describe()), {}, tr("nothing to cut out while the program is not ready or is running"));
    return;
  }
  post(++m_commandId, [this, part, path](EngineJob& job) {
    QString description = QString::fromStdString(part.describe()), problem;
    QStringList files;
    try {
      const auto repro = job.debugger().exportRepro(part, QFile::encodeName(path).toStdString(), job.observer());
      description = QString::fromStdString(repro.repro.description);
      for (const auto& f : repro.files) files << QFile::decodeName(f.c_str());
    } catch (const std::exception& e) {
      problem = oneLine(QString::fromUtf8(e.what()));
    }
    job.reply([=, this] {
      setState(restingState());
      Q_EMIT reproExported(description, files, problem);
    });
  });
  setState(RunState::Exporting);
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
  if (canStop()) m_controls->cancelUpTo = m_commandId;
}

void SessionController::send(EngineCommand command, torchir::NodeId target, const CompareRequest& compare) {
  runCommand([=, stops = m_stopConditions](EngineJob& job, torchir::RunObserver* observer) -> std::optional<torchir::DebugOutcome> {
    torchir::Debugger& debugger = job.debugger();
    if (command == EngineCommand::CompareOn) return debugger.continueComparison(compare.stop, observer);
    if (command != EngineCommand::Compare) return debugger.execute(command, target, stops, observer);
    try {
      return debugger.compare(referenceSpec(compare), compare.stop, observer);
    } catch (const std::exception& e) {  // a LoadError of the other file too
      return torchir::failedOutcome(command, "cannot compare: " + oneLine(QString::fromUtf8(e.what())).toStdString());
    }
  });
}

void SessionController::runCommand(Command command, bool progress, bool clearsStop) {
  const bool marksChange = clearsStop && clearStop();
  post(++m_commandId, [this, command, progress](EngineJob& job) {
    if (auto outcome = command(job, job.observer(progress ? progressToGui() : nullptr)))
      replyReport(job, std::move(*outcome));
  });
  setState(RunState::Running);
  if (marksChange) Q_EMIT marksChanged();
}

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
  m_controls->setBreakpoints(m_marks.breakpoints);
  Q_EMIT marksChanged();
}

void SessionController::setStopConditions(const torchir::StopConditions& conditions) {
  m_stopConditions = conditions;
}

void SessionController::requestTensor(torchir::ValueId value) {
  if (!m_program || (!hasSession() && m_state != RunState::Starting)) {
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
  m_worker->post(m_generation, commandId, std::move(job), needsDebugger);
}

std::function<void(EngineReportPtr)> SessionController::progressToGui() {
  return [this](EngineReportPtr report) { onReported(report); };
}

void SessionController::replyReport(EngineJob& job, torchir::DebugOutcome outcome) {
  job.reply([this, report = job.report(std::move(outcome))] { onReported(report); });
}

void SessionController::startDebugger(EngineJob& job, const LoadedProgramPtr& loaded) {
  job.setDebugger(nullptr);
  try {
    const torchir::AtenBackend& backend = torchir::atenBackend();  // dlopen, ~0.3-1 s the first time
    backend.setPythonHost(effectivePythonHost());  // Preferences › Python, as they are now
    auto debugger = std::make_unique<torchir::Debugger>(debugTarget(loaded));
    // a Python worker's start (importing torch and the user's modules) ends when another program is opened
    const QString description = QString::fromStdString(debugger->start(job.abandoned()));
    job.setDebugger(std::move(debugger));
    torchir::DebugOutcome reset;
    reset.command = EngineCommand::Reset;
    EngineReportPtr report = job.report(std::move(reset));
    report->progress.restart = true;
    job.reply([this, report, description] { onStarted(report, description); });
    auto problems = job.debugger().check();
    for (const std::string& warning : backend.preparePythonHost().warnings)  // started already: no wait
      problems.push_back({torchir::Severity::Warning, "python", torchir::kNone, {}, warning});
    job.reply([this, problems] {
      m_problems = problems;
      Q_EMIT problemsChanged();
    });
  } catch (const std::exception& e) {  // a LoadError of the inputs file too
    job.setDebugger(nullptr);
    job.reply([this, problem = oneLine(QString::fromUtf8(e.what()))] { onStartFailed(problem); });
  }
}

namespace {

/// Ends the narrowing of changedRecords() to a report's rows when the report has been told.
struct ReportTold {
  std::optional<std::pair<int, int>>& range;
  ~ReportTold() { range.reset(); }
};

}  // namespace

void SessionController::applyRecords(torchir::DebugProgress& report) {
  if (report.restart) {
    // A restart of a 100k-node run drops 100k records: freed on a pool thread.
    destroyInBackground(std::exchange(m_records, std::vector<std::shared_ptr<const torchir::NodeRecord>>(m_records.size())));
    m_marks.executed.assign(m_marks.executed.size(), false);
  }
  for (std::size_t i = 0; i < report.records.size(); ++i) {
    const auto n = static_cast<std::size_t>(report.firstRecord) + i;
    if (n >= m_records.size()) break;
    auto& r = report.records[i];
    m_marks.executed[n] = r != nullptr;
    if (r) m_records[n] = std::move(r);
  }
  m_marks.current = report.finished ? torchir::kNone : report.position;
  m_changedRecords = std::pair{static_cast<int>(report.firstRecord),
                               static_cast<int>(report.firstRecord + report.records.size())};
}

void SessionController::onStarted(const EngineReportPtr& report, const QString& description) {
  m_inputsDescription = description;
  ReportTold told{m_changedRecords};
  applyRecords(report->progress);
  if (m_program->capture) {
    CapturedRun run = capturedRun();
    showCaptured(*m_program->capture, std::shared_ptr<const torchir::Program>(m_program, &m_program->program), run);
    m_controls->setBreakpoints(m_marks.breakpoints);  // the capture's, not the file's stored ones
  }
  const RunState state = restingState();  // a capture's run stands where it stood
  setState(state);
  Q_EMIT marksChanged();
  if (m_comparison) Q_EMIT comparisonChanged();
  // the views hear of the capture's stop as of a run's
  if (m_program->capture && !m_diagnosis.ok())
    Q_EMIT stopped(state == RunState::Failed ? torchir::StopReason::Failed : torchir::StopReason::StopCondition);
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
