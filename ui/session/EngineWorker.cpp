#include "session/EngineWorker.h"

#include <QFile>
#include <QFileInfo>
#include <chrono>
#include <exception>
#include <limits>
#include <utility>

#include "aten/AtenBackend.h"
#include "compare/KeepInFloat.h"
#include "compare/Sensitivity.h"
#include "check/ProgramCheck.h"
#include "program/CompanionFiles.h"
#include "program/InputsFile.h"
#include "program/LoadError.h"
#include "program/MappedFile.h"
#include "program/ProgramLoader.h"
#include "session/OneLine.h"
#include "session/PythonSettings.h"

namespace torchir::ui {

namespace {

// Progress reports copy records to the GUI thread; more often than this buys nothing visible.
constexpr std::chrono::milliseconds kReportInterval{50};

bool samplesUsable(const torchir::Program& p) {
  if (p.sampleInputs.empty()) return false;
  for (const auto& t : p.sampleInputs)
    if (!t.hasData()) return false;  // a meta-device export stores shapes only
  return true;
}

std::size_t userInputCount(const torchir::Program& p) {
  std::size_t n = 0;
  for (const auto& s : p.inputs) n += s.kind == torchir::InputKind::UserInput;
  return n;
}

}  // namespace

void EngineControls::setBreakpoints(std::set<torchir::NodeId> nodes) {
  {
    std::lock_guard<std::mutex> lock(m_mutex);
    m_breakpoints = std::move(nodes);
  }
  ++m_breakpointsVersion;
}

bool EngineControls::breakpointsSince(quint64& version, std::set<torchir::NodeId>& out) {
  const quint64 now = m_breakpointsVersion.load();
  if (now == version) return false;
  std::lock_guard<std::mutex> lock(m_mutex);
  out = m_breakpoints;
  version = now;
  return true;
}

EngineWorker::EngineWorker(std::shared_ptr<EngineControls> controls, QObject* parent)
    : QObject(parent), m_controls(std::move(controls)) {}

EngineWorker::~EngineWorker() {
  // The session refers to the program: it goes first.
  m_session.reset();
  m_program.reset();
}

void EngineWorker::start(quint64 generation, torchir::ui::LoadedProgramPtr program) {
  clear();
  // Opening A then B quickly should not make B wait for A's session.
  if (generation != m_controls->generation.load()) return;
  try {
    const torchir::AtenBackend& backend = torchir::atenBackend();  // dlopen, ~0.3-1 s the first time
    m_program = std::move(program);
    torchir::SessionOptions options;
    options.castWeightsToExport = m_program->request.castWeights;
    // a Python worker's start (importing torch and the user's modules) ends when another program is opened
    options.abandoned = [this, generation] { return generation != m_controls->generation.load(); };
    backend.setPythonHost(effectivePythonHost());  // Preferences › Python, as they are now
    m_session = backend.createSession(m_program->program, options);
    m_replayTo.reset();
    m_pinned.clear();
    QString description;
    if (m_program->capture) {
      startFromCapture(*m_program->capture);
      description = QStringLiteral("inputs from the capture %1").arg(QFileInfo(m_program->request.capturePath).fileName());
    } else {
      description = chooseInputs();
    }
    m_reportedUpTo = 0;
    m_restartPending = false;
    m_breakpointsVersion = 0;
    m_breakpoints.clear();
    auto report = makeReport(generation);
    report->restart = true;
    report->ended = true;
    report->command = EngineCommand::Reset;
    Q_EMIT started(generation, std::move(report), description);
    auto problems = torchir::checkProgram(m_program->program, *m_session, m_inputs ? &*m_inputs : nullptr);
    for (const std::string& warning : backend.preparePythonHost().warnings)  // started already: no wait
      problems.push_back({torchir::Severity::Warning, "python", torchir::kNone, {}, warning});
    Q_EMIT problemsFound(generation, std::move(problems));
  } catch (const std::exception& e) {  // a LoadError of the inputs file too
    clear();
    Q_EMIT startFailed(generation, oneLine(QString::fromUtf8(e.what())), {});
  }
}

/// Sets the session's inputs: the request's file, else the archive's samples, else random ones.
/// Throws LoadError naming the inputs file (or the program) when they cannot be used.
QString EngineWorker::chooseInputs() {
  const torchir::Program& p = m_program->program;
  const QString file = m_program->request.inputsPath;
  QString description;
  torchir::Diagnosis problem;
  if (!file.isEmpty()) {
    const std::string path = QFile::encodeName(file).toStdString();
    description = QStringLiteral("inputs from %1").arg(QFileInfo(file).fileName());
    m_inputs = torchir::readInputsFile(p, path);
    problem = m_session->setInputs(*m_inputs);
    if (!problem.ok()) throw torchir::LoadError(path, problem.message);
    return description;
  }
  if (samplesUsable(p)) {
    description = QStringLiteral("sample inputs from the archive");
    m_inputs = p.sampleInputs;
    problem = m_session->setInputs(p.sampleInputs);
  } else {
    m_inputs.reset();
    description = userInputCount(p) == 0 ? QStringLiteral("no inputs") : QStringLiteral("random inputs (seed 0)");
    problem = m_session->setRandomInputs(0);
  }
  if (!problem.ok())
    throw torchir::LoadError(QFile::encodeName(m_program->request.path).toStdString(),
                             description.toStdString() + ": " + problem.message);
  return description;
}

void EngineWorker::startFromCapture(const torchir::Capture& capture) {
  const torchir::Program& p = m_program->program;
  const std::string file = QFile::encodeName(m_program->request.capturePath).toStdString();
  m_inputs = capture.inputs;
  if (const torchir::Diagnosis in = m_session->setInputs(capture.inputs); !in.ok())
    throw torchir::LoadError(file, "capture: its inputs: " + in.message);
  for (const auto& [name, patches] : capture.patches) {
    const auto node = p.findNode(name);
    if (!node) throw torchir::LoadError(file, "capture: it changes the call of node '" + name + "', which the program has not");
    m_session->setPatches(*node, patches);
  }
  const auto next = capture.next.empty() ? std::optional<torchir::NodeId>(static_cast<torchir::NodeId>(p.nodes.size()))
                                         : p.findNode(capture.next);
  if (!next) throw torchir::LoadError(file, "capture: it stands at node '" + capture.next + "', which the program has not");
  m_replayTo = *next;
  for (const auto& [name, tensor] : capture.pinned)
    if (const auto v = p.findValue(name)) m_pinned[*v] = tensor;
}

torchir::StepOutcome EngineWorker::replayCapture(torchir::RunObserver& observer) {
  const torchir::NodeId to = *std::exchange(m_replayTo, std::nullopt);
  m_pinned.clear();
  m_reportedUpTo = 0;  // the GUI's records are the capture's: send the run's
  m_restartPending = true;
  return m_session->replayTo(to, &observer);
}

void EngineWorker::clear() {
  m_reference.reset();  // refers to the program
  m_session.reset();
  m_program.reset();
  m_reportedUpTo = 0;
}

bool EngineWorker::shouldStop(quint64 generation, quint64 commandId) const {
  return m_controls->cancelUpTo.load() >= commandId || m_controls->generation.load() != generation;
}

void EngineWorker::syncBreakpoints() {
  if (m_controls->breakpointsSince(m_breakpointsVersion, m_breakpoints)) m_session->setBreakpoints(m_breakpoints);
}

/// The studio's side of the session's run loop: a Stop or a newer program cancels it (inside
/// subgraphs too), breakpoints set while it runs take effect at the next node, and the GUI hears
/// of progress now and then.
class EngineWorker::CommandObserver final : public torchir::RunObserver {
 public:
  /// `reports`: a run of the studio's session, whose progress the GUI shows (not a repro's own).
  CommandObserver(EngineWorker& worker, quint64 generation, quint64 commandId, bool reports = true)
      : m_worker(worker), m_generation(generation), m_commandId(commandId), m_reports(reports), m_lastReport(Clock::now()) {}

  // Asked before every node, a subgraph's too: a while_loop of a million iterations still reports
  // that it is alive, and where it stands.
  bool cancelled() override {
    reportNowAndThen();
    return m_worker.shouldStop(m_generation, m_commandId);
  }
  void beforeNode(torchir::NodeId) override {
    if (m_reports) m_worker.syncBreakpoints();
  }
  bool afterNode(torchir::NodeId, torchir::Diagnosis&) override {
    reportNowAndThen();
    return false;
  }

 private:
  void reportNowAndThen() {
    if (m_reports && Clock::now() - m_lastReport >= kReportInterval) {
      Q_EMIT m_worker.reported(m_worker.makeReport(m_generation));
      m_lastReport = Clock::now();
    }
  }

  using Clock = std::chrono::steady_clock;
  EngineWorker& m_worker;
  quint64 m_generation, m_commandId;
  bool m_reports;
  Clock::time_point m_lastReport;
};

void EngineWorker::run(quint64 generation, quint64 commandId, EngineCommand command, torchir::NodeId target,
                       const torchir::StopConditions& stops) {
  if (!m_session || generation != m_controls->generation.load()) return;
  m_session->setStopConditions(stops);
  syncBreakpoints();
  CommandObserver observer(*this, generation, commandId);
  torchir::StepOutcome outcome;
  try {
    if (m_replayTo && command != EngineCommand::Reset) {
      // the capture's run made again first; a command goes on only from where the capture stood
      outcome = replayCapture(observer);
      if (outcome.reason != torchir::StopReason::Stepped && outcome.reason != torchir::StopReason::Finished)
        command = EngineCommand::Replay;
    }
    m_replayTo.reset();  // a reset starts from the inputs as well
    m_pinned.clear();
    switch (command) {
      case EngineCommand::Replay:
        break;
      case EngineCommand::Step:
        outcome = m_session->step(&observer);
        break;
      case EngineCommand::StepBack:
        // made again from the inputs: every record is sent anew, and a comparison no longer
        // describes the run
        m_reference.reset();
        m_reportedUpTo = 0;
        m_restartPending = true;
        outcome = m_session->stepBack(&observer);
        break;
      case EngineCommand::Continue:
        outcome = m_session->run(&observer);
        break;
      case EngineCommand::RunTo:
        outcome = m_session->runTo(target, &observer);
        break;
      case EngineCommand::Reset:
        m_reference.reset();  // the comparison described the run that goes
        m_session->reset();
        m_reportedUpTo = 0;
        m_restartPending = true;
        break;
      case EngineCommand::Compare:
      case EngineCommand::CompareOn:
      case EngineCommand::Sensitivity:
        break;  // compare(), continueComparison() and layerSensitivity() run them
    }
  } catch (const std::exception& e) {
    // The session diagnoses a node's own failures; this is the engine failing around one, which
    // must not take the thread (and the window) down with it.
    outcome.reason = torchir::StopReason::Failed;
    outcome.diagnosis.kind = torchir::DiagnosisClass::RuntimeError;
    outcome.diagnosis.node = m_session->finished() ? torchir::kNone : m_session->position();
    outcome.diagnosis.message = e.what();
  }
  auto report = makeReport(generation);
  report->ended = true;
  report->command = command;
  report->reason = outcome.reason;
  report->diagnosis = std::move(outcome.diagnosis);
  Q_EMIT reported(std::move(report));
}

std::shared_ptr<EngineReport> EngineWorker::makeReport(quint64 generation) {
  auto report = std::make_shared<EngineReport>();
  report->generation = generation;
  report->restart = std::exchange(m_restartPending, false);
  report->finished = m_session->finished();
  report->position = m_session->position();
  report->firstRecord = m_reportedUpTo;
  for (torchir::NodeId n = m_reportedUpTo; n < report->position; ++n) {
    // Copies: the engine's own records change with the next run of the node.
    const torchir::NodeRecord* record = m_session->record(n);
    report->records.push_back(record && record->executed ? std::make_shared<const torchir::NodeRecord>(*record) : nullptr);
  }
  m_reportedUpTo = report->position;
  return report;
}

void EngineWorker::compare(quint64 generation, quint64 commandId, const CompareRequest& request) {
  if (!m_session || generation != m_controls->generation.load()) return;
  const torchir::Program& a = m_program->program;
  m_reference.reset();
  m_replayTo.reset();  // a comparison runs from the start
  m_pinned.clear();
  try {
    auto reference = std::make_unique<Reference>();
    torchir::SessionOptions options;
    const std::string path = QFile::encodeName(request.path).toStdString();
    switch (request.kind) {
      case CompareRequest::Dtype:
        reference->program = std::shared_ptr<const torchir::Program>(m_program, &m_program->program);
        options.floatingAs = request.dtype;
        reference->description = QString::fromUtf8(torchir::dtypeName(request.dtype).data());
        break;
      case CompareRequest::File:
        // an IR JSON with the weights and constants files beside it, as File › Open finds them
        reference->program = std::make_shared<torchir::Program>(
            torchir::loadProgram(path, torchir::withCompanionFiles(path, {})));
        reference->description = QFileInfo(request.path).fileName();
        break;
      case CompareRequest::Weights:
        reference->program = std::make_shared<torchir::Program>(torchir::loadProgram(
            QFile::encodeName(m_program->request.path).toStdString(),
            {path, QFile::encodeName(m_program->request.constantsPath).toStdString()}));
        reference->description = QStringLiteral("weights %1").arg(QFileInfo(request.path).fileName());
        break;
    }
    const torchir::Program& b = *reference->program;
    reference->session = torchir::atenBackend().createSession(b, options);
    const torchir::Diagnosis in = m_inputs ? reference->session->setInputs(*m_inputs) : reference->session->setRandomInputs(0);
    if (!in.ok()) throw std::runtime_error("the reference run's inputs: " + in.message);
    m_session->reset();
    m_reportedUpTo = 0;
    m_restartPending = true;
    reference->options.tolerance = request.tolerance;
    reference->run = std::make_unique<torchir::PairedRun>(
        *m_session, *reference->session, &b == &a ? torchir::identityMatching(a) : torchir::matchNodes(a, b),
        reference->options);
    m_reference = std::move(reference);
  } catch (const std::exception& e) {  // a LoadError of the other file too
    auto report = makeReport(generation);
    report->ended = true;
    report->command = EngineCommand::Compare;
    report->reason = torchir::StopReason::Failed;
    report->diagnosis.kind = torchir::DiagnosisClass::RuntimeError;
    report->diagnosis.message = "cannot compare: " + oneLine(QString::fromUtf8(e.what())).toStdString();
    Q_EMIT reported(std::move(report));
    return;
  }
  runComparison(generation, commandId, request.stop);
}

void EngineWorker::layerSensitivity(quint64 generation, quint64 commandId) {
  if (!m_session || generation != m_controls->generation.load()) return;
  CommandObserver observer(*this, generation, commandId, /*reports=*/false);
  torchir::StepOutcome outcome;
  try {
    if (!m_reference || m_reference->program.get() == &m_program->program)
      throw std::runtime_error("layer sensitivity needs a comparison with the float program (Compare › With Float Program…)");
    if (!m_session->finished()) outcome = m_reference->run->run(torchir::CompareStop::None, &observer);
    if (outcome.reason == torchir::StopReason::Cancelled || outcome.reason == torchir::StopReason::Failed)
      throw std::runtime_error(outcome.reason == torchir::StopReason::Failed ? "the run failed at node '" +
                                                                                   outcome.diagnosis.nodeName + "'"
                                                                             : "stopped");
    if (!m_reference->session->finished()) {
      const torchir::StepOutcome b = m_reference->session->run();
      if (b.reason != torchir::StopReason::Finished)
        throw std::runtime_error("the float program's run failed at node '" + b.diagnosis.nodeName + "': " + b.diagnosis.message);
    }
    auto result = std::make_shared<torchir::SensitivityResult>(torchir::layerSensitivity(
        *m_session, *m_reference->session, m_reference->run->matching(),
        [&](std::size_t done, std::size_t total) {
          Q_EMIT sensitivityProgress(generation, static_cast<int>(done), static_cast<int>(total));
          return !shouldStop(generation, commandId);
        },
        &observer));
    outcome.reason = result->cancelled ? torchir::StopReason::Cancelled : torchir::StopReason::Finished;
    if (!result->cancelled) m_reference->sensitivity = std::move(result);
  } catch (const std::exception& e) {
    outcome.reason = torchir::StopReason::Failed;
    outcome.diagnosis = {};
    outcome.diagnosis.kind = torchir::DiagnosisClass::RuntimeError;
    outcome.diagnosis.message = "no layer sensitivity: " + oneLine(QString::fromUtf8(e.what())).toStdString();
  }
  auto report = makeReport(generation);
  report->ended = true;
  report->command = EngineCommand::Compare;
  report->reason = outcome.reason == torchir::StopReason::Cancelled && m_session->finished() ? torchir::StopReason::Finished
                                                                                              : outcome.reason;
  report->diagnosis = std::move(outcome.diagnosis);
  report->comparison = comparisonSoFar();
  Q_EMIT reported(std::move(report));
}

void EngineWorker::keepInFloat(quint64 generation, quint64 commandId, const std::vector<torchir::NodeId>& layers,
                               const torchir::StopConditions& stops) {
  if (!m_session || generation != m_controls->generation.load()) return;
  const torchir::Program& a = m_program->program;
  const bool twin = m_reference && m_reference->program.get() != &a;
  for (torchir::NodeId layer : layers) {
    const auto changes = torchir::keepInFloatPatches(a, layer, twin ? m_reference->session.get() : nullptr,
                                                     twin ? &m_reference->run->matching() : nullptr);
    if (changes.empty()) continue;
    const auto now = m_session->patches().find(layer);
    const auto merged = torchir::withChanges(now == m_session->patches().end() ? std::vector<torchir::ArgumentPatch>{}
                                                                                : now->second,
                                             changes);
    try {
      m_session->setPatches(layer, merged);
    } catch (const std::exception& e) {
      // the others are taken: the comparison below is made with them
      Q_EMIT patchesApplied(generation, layer, merged, oneLine(QString::fromUtf8(e.what())), false);
      continue;
    }
    Q_EMIT patchesApplied(generation, layer, merged, {}, /*andContinue=*/true);  // the run below ends the job
  }
  // the change holds from the start: the comparison (or the run) is made again
  m_session->reset();
  m_reportedUpTo = 0;
  m_restartPending = true;
  if (!m_reference) {
    run(generation, commandId, EngineCommand::Continue, torchir::kNone, stops);
    return;
  }
  torchir::NodeMatching matching = m_reference->run->matching();
  m_reference->session->reset();
  m_reference->sensitivity.reset();  // it measured the run without the change
  m_reference->run = std::make_unique<torchir::PairedRun>(*m_session, *m_reference->session, std::move(matching),
                                                          m_reference->options);
  runComparison(generation, commandId, torchir::CompareStop::None);
}

void EngineWorker::continueComparison(quint64 generation, quint64 commandId, torchir::CompareStop stop) {
  if (!m_session || generation != m_controls->generation.load()) return;
  runComparison(generation, commandId, stop);
}

void EngineWorker::runComparison(quint64 generation, quint64 commandId, torchir::CompareStop stop) {
  syncBreakpoints();
  CommandObserver observer(*this, generation, commandId);
  torchir::StepOutcome outcome;
  if (!m_reference) {
    outcome.reason = torchir::StopReason::Failed;
    outcome.diagnosis.kind = torchir::DiagnosisClass::RuntimeError;
    outcome.diagnosis.message = "nothing is being compared";
  } else {
    try {
      m_session->setStopConditions({});
      outcome = m_reference->run->run(stop, &observer);
      // the reference's end too, so the comparison has the outputs' SQNR
      if (m_session->finished() && !m_reference->session->finished()) m_reference->session->run();
    } catch (const std::exception& e) {
      outcome.reason = torchir::StopReason::Failed;
      outcome.diagnosis.kind = torchir::DiagnosisClass::RuntimeError;
      outcome.diagnosis.message = "the comparison failed: " + std::string(e.what());
    }
  }
  auto report = makeReport(generation);
  report->ended = true;
  report->command = EngineCommand::Compare;
  report->reason = outcome.reason;
  report->diagnosis = std::move(outcome.diagnosis);
  report->comparison = comparisonSoFar();
  Q_EMIT reported(std::move(report));
}

ComparisonPtr EngineWorker::comparisonSoFar() const {
  if (!m_reference) return nullptr;
  auto record = std::make_shared<ComparisonResult>(
      m_reference->run->record(m_reference->description.toStdString(), m_reference->program));
  record->sensitivity = m_reference->sensitivity;
  return record;
}

void EngineWorker::fetchCompared(quint64 generation, torchir::NodeId node) {
  if (generation != m_controls->generation.load()) return;
  const torchir::NodeComparison* c = m_reference ? m_reference->run->comparisonOf(node) : nullptr;
  if (!c) {
    Q_EMIT comparedUnavailable(generation, node, QStringLiteral("the node was not compared"));
    return;
  }
  const torchir::Program& b = *m_reference->program;
  const auto output = static_cast<std::size_t>(c->output);
  const torchir::ValueId va = m_program->program.node(c->a).outputs.at(output);
  const torchir::ValueId vb = b.node(c->b).outputs.at(output);
  try {
    const auto run = m_session->tensor(va);
    const auto reference = m_reference->session->tensor(vb);
    if (!run || !reference) {
      Q_EMIT comparedUnavailable(generation, node, QStringLiteral("its output was released to stay within the memory budget"));
      return;
    }
    Q_EMIT comparedReady(generation, node, *run, *reference, torchir::differenceOf(*run, *reference));
  } catch (const std::exception& e) {
    Q_EMIT comparedUnavailable(generation, node, oneLine(QString::fromUtf8(e.what())));
  }
}

void EngineWorker::fetchTensor(quint64 generation, torchir::ValueId value) {
  if (generation != m_controls->generation.load()) return;
  if (!m_session) {
    Q_EMIT tensorUnavailable(generation, value, QStringLiteral("the engine has not started"));
    return;
  }
  const torchir::Program& p = m_program->program;
  if (value < 0 || value >= static_cast<torchir::ValueId>(p.values.size())) {
    Q_EMIT tensorUnavailable(generation, value, QStringLiteral("no such value"));
    return;
  }
  const torchir::Value& v = p.value(value);
  const QString name = QString::fromStdString(v.name);
  if (m_replayTo) {  // the capture's run, not made again yet
    if (const auto pinned = m_pinned.find(value); pinned != m_pinned.end()) {
      Q_EMIT tensorReady(generation, value, pinned->second);
      return;
    }
    Q_EMIT tensorUnavailable(generation, value,
                             QStringLiteral("the capture keeps no tensor for '%1' (pin it before saving, or "
                                            "continue to run the program again)").arg(name));
    return;
  }
  if (v.producer != torchir::kNone && !m_session->finished() && v.producer >= m_session->position()) {
    Q_EMIT tensorUnavailable(generation, value, QStringLiteral("'%1' has not been computed yet").arg(name));
    return;
  }
  if (m_session->released(value)) {
    Q_EMIT tensorUnavailable(generation, value,
                             QStringLiteral("'%1' was released to stay within the memory budget").arg(name));
    return;
  }
  if (v.kind != torchir::ValueKind::Tensor) {
    Q_EMIT tensorUnavailable(generation, value, QStringLiteral("'%1' is not a tensor").arg(name));
    return;
  }
  // tensor() copies into storage of its own, so nothing the engine frees later is shared.
  std::optional<torchir::TensorData> tensor;
  try {
    tensor = m_session->tensor(value);
  } catch (const std::exception& e) {
    Q_EMIT tensorUnavailable(generation, value, oneLine(QString::fromUtf8(e.what())));
    return;
  }
  if (!tensor) {
    Q_EMIT tensorUnavailable(generation, value, QStringLiteral("'%1' holds no tensor (no data)").arg(name));
    return;
  }
  Q_EMIT tensorReady(generation, value, *tensor);
}

void EngineWorker::tryPatches(quint64 generation, torchir::NodeId node,
                              const std::vector<torchir::ArgumentPatch>& patches) {
  if (!m_session || generation != m_controls->generation.load()) return;
  torchir::PatchTrial trial;
  try {
    if (m_replayTo) {
      CommandObserver observer(*this, generation, std::numeric_limits<quint64>::max());  // not a command: never stopped
      const torchir::StepOutcome replayed = replayCapture(observer);
      Q_EMIT reported(makeReport(generation));
      if (replayed.reason == torchir::StopReason::Failed)
        throw std::runtime_error("the capture's run could not be made again: " + replayed.diagnosis.message);
    }
    trial = m_session->tryPatches(node, patches);
  } catch (const std::exception& e) {
    trial.afterProblem = e.what();
  }
  Q_EMIT patchTried(generation, node, trial);
}

void EngineWorker::applyPatches(quint64 generation, quint64 commandId, torchir::NodeId node,
                                const std::vector<torchir::ArgumentPatch>& patches, bool andContinue,
                                const torchir::StopConditions& stops) {
  if (!m_session || generation != m_controls->generation.load()) return;
  try {
    m_session->setPatches(node, patches);
  } catch (const std::exception& e) {
    Q_EMIT patchesApplied(generation, node, patches, oneLine(QString::fromUtf8(e.what())), false);
    return;
  }
  Q_EMIT patchesApplied(generation, node, patches, {}, andContinue);
  if (andContinue) run(generation, commandId, EngineCommand::Continue, torchir::kNone, stops);
}

void EngineWorker::exportRepro(quint64 generation, quint64 commandId, const torchir::ReproPart& part, const QString& path) {
  if (!m_session || generation != m_controls->generation.load()) return;
  try {
    torchir::SessionOptions options;
    options.castWeightsToExport = m_program->request.castWeights;
    auto session = torchir::atenBackend().createSession(m_program->program, options);
    const torchir::Diagnosis in = m_inputs ? session->setInputs(*m_inputs) : session->setRandomInputs(0);
    if (!in.ok()) throw std::runtime_error("its inputs: " + in.message);
    for (const auto& [node, patches] : m_session->patches()) session->setPatches(node, patches);
    CommandObserver observer(*this, generation, commandId, /*reports=*/false);
    const torchir::Repro repro = torchir::extractRepro(*session, part, &observer);
    QStringList files;
    for (const auto& f : torchir::writeRepro(repro, QFile::encodeName(path).toStdString())) files << QFile::decodeName(f.c_str());
    Q_EMIT reproExported(generation, QString::fromStdString(repro.description), files, {});
  } catch (const std::exception& e) {
    Q_EMIT reproExported(generation, QString::fromStdString(part.describe()), {}, oneLine(QString::fromUtf8(e.what())));
  }
}

void EngineWorker::saveCapture(quint64 generation, const QString& path, std::shared_ptr<torchir::Capture> capture,
                               const std::vector<torchir::ValueId>& pinned, bool embedProgram) {
  if (!m_session || generation != m_controls->generation.load()) return;
  try {
    const std::string program = QFile::encodeName(m_program->request.path).toStdString();
    capture->program = torchir::programReference(program);
    capture->python = torchir::atenBackend().pythonHost();  // which Python ran its ops defined in Python
    if (embedProgram) {
      const auto file = torchir::MappedFile::open(program);
      auto bytes = std::make_shared<torchir::Storage>();
      bytes->data = file->data();
      bytes->nbytes = file->size();
      bytes->owner = file;
      capture->embeddedProgram = {torchir::DType::UInt8, {static_cast<int64_t>(file->size())}, {1}, 0, bytes, nullptr};
    }
    const torchir::Program& p = m_program->program;
    for (torchir::ValueId v : pinned) {
      // the capture's own while its run is not made again, else the run's
      std::optional<torchir::TensorData> t;
      if (m_replayTo) {
        if (const auto kept = m_pinned.find(v); kept != m_pinned.end()) t = kept->second;
      } else if (!m_session->released(v)) {
        t = m_session->tensor(v);
      }
      if (t) capture->pinned[p.value(v).name] = std::move(*t);
    }
    if (m_inputs) {
      capture->inputs = *m_inputs;
    } else {  // random inputs: the ones the session holds
      for (const torchir::InputSpec& spec : m_program->program.inputs)
        if (spec.kind == torchir::InputKind::UserInput)
          if (auto t = m_session->tensor(spec.value)) capture->inputs.push_back(std::move(*t));
    }
    torchir::writeCapture(QFile::encodeName(path).toStdString(), *capture);
    Q_EMIT captureSaved(generation, path, {});
  } catch (const std::exception& e) {
    Q_EMIT captureSaved(generation, path, oneLine(QString::fromUtf8(e.what())));
  }
}

}  // namespace torchir::ui
