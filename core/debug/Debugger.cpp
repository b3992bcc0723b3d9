#include "Debugger.h"

#include <exception>
#include <filesystem>
#include <stdexcept>
#include <utility>

#include "exec/AtenBackend.h"
#include "exec/MachineMemory.h"
#include "formats/MappedFile.h"
#include "formats/Pt2Writer.h"
#include "program/LoadError.h"
#include "quant/KeepInFloat.h"
#include "quant/QuantComparison.h"
#include "quant/Sensitivity.h"

namespace torchir {

DebugOutcome failedOutcome(DebugCommand command, std::string message) {
  DebugOutcome o;
  o.command = command;
  o.reason = StopReason::Failed;
  o.diagnosis.kind = DiagnosisClass::RuntimeError;
  o.diagnosis.message = std::move(message);
  return o;
}

Debugger::Debugger(DebugTarget target) : m_target(std::move(target)) {}

Debugger::~Debugger() {
  m_reference.reset();  // it runs beside the session, which refers to the program
  m_session.reset();
}

std::string Debugger::start(std::function<bool()> abandoned) {
  SessionOptions options;
  options.castWeightsToExport = m_target.castWeights;
  options.abandoned = std::move(abandoned);
  options.autocast = m_target.autocast;
  m_session = atenBackend().createSession(program(), options);
  if (m_target.capture) {
    startFromCapture(*m_target.capture);
    return "inputs from the capture " + std::filesystem::path(m_target.capturePath).filename().string();
  }
  m_inputs = chooseInputs(program(), m_target.inputs);
  if (const Diagnosis problem = giveInputs(*m_session, m_inputs); !problem.ok())
    throw LoadError(m_inputs.fromFile ? m_target.inputs.file : m_target.path,
                    m_inputs.fromFile ? problem.message : m_inputs.description + ": " + problem.message);
  return m_inputs.description;
}

void Debugger::startFromCapture(const Capture& capture) {
  const Program& p = program();
  const std::string& file = m_target.capturePath;
  m_inputs.tensors = capture.inputs;
  if (const Diagnosis in = m_session->setInputs(capture.inputs); !in.ok())
    throw LoadError(file, "capture: its inputs: " + in.message);
  for (const auto& [name, patches] : capture.patches) {
    const auto node = p.findNode(name);
    if (!node) throw LoadError(file, "capture: it changes the call of node '" + name + "', which the program has not");
    m_session->setPatches(*node, patches);
  }
  const auto next = capture.next.empty() ? std::optional<NodeId>(static_cast<NodeId>(p.nodes.size())) : p.findNode(capture.next);
  if (!next) throw LoadError(file, "capture: it stands at node '" + capture.next + "', which the program has not");
  m_replayTo = *next;
  for (const auto& [name, tensor] : capture.pinned)
    if (const auto v = p.findValue(name)) m_pinned[*v] = tensor;
}

std::vector<Problem> Debugger::check() const {
  return checkProgram(program(), *m_session, m_inputs.tensors ? &*m_inputs.tensors : nullptr);
}

void Debugger::restart() {
  m_adopted.reset();  // an adopted comparison describes the run that goes
  m_adoptedValues.clear();
  m_reportedUpTo = 0;
  m_restartPending = true;
}

StepOutcome Debugger::replayCapture(RunObserver* observer) {
  const NodeId to = *std::exchange(m_replayTo, std::nullopt);
  m_pinned.clear();
  restart();  // the front end's records are the capture's: take the run's
  return m_session->replayTo(to, observer);
}

DebugOutcome Debugger::execute(DebugCommand command, NodeId target, const StopConditions& stops, RunObserver* observer) {
  m_session->setStopConditions(stops);
  StepOutcome outcome;
  try {
    if (m_replayTo && command != DebugCommand::Reset) {
      // the capture's run made again first; a command goes on only from where the capture stood
      outcome = replayCapture(observer);
      if (outcome.reason != StopReason::Stepped && outcome.reason != StopReason::Finished) command = DebugCommand::Replay;
    }
    m_replayTo.reset();  // a reset starts from the inputs as well
    m_pinned.clear();
    switch (command) {
      case DebugCommand::Step: outcome = m_session->step(observer); break;
      case DebugCommand::StepBack:
        // made again from the inputs: every record is taken anew, and a comparison no longer
        // describes the run
        m_reference.reset();
        restart();
        outcome = m_session->stepBack(observer);
        break;
      case DebugCommand::Continue: outcome = m_session->run(observer); break;
      case DebugCommand::RunTo: outcome = m_session->runTo(target, observer); break;
      case DebugCommand::RunUpTo: outcome = m_session->runUpTo(target, observer); break;
      case DebugCommand::Reset:
        m_reference.reset();  // the comparison described the run that goes
        m_session->reset();
        restart();
        break;
      case DebugCommand::Replay:
      case DebugCommand::Compare:
      case DebugCommand::CompareOn:
      case DebugCommand::Sensitivity:
        break;  // compare(), continueComparison() and layerSensitivity() run them
    }
  } catch (const std::exception& e) {
    // The session diagnoses a node's own failures; this is the engine failing around one, which
    // must not take the front end down with it.
    outcome.reason = StopReason::Failed;
    outcome.diagnosis.kind = DiagnosisClass::RuntimeError;
    outcome.diagnosis.node = m_session->finished() ? kNone : m_session->position();
    outcome.diagnosis.message = e.what();
  }
  return {command, outcome.reason, std::move(outcome.diagnosis), nullptr};
}

DebugProgress Debugger::takeProgress() {
  DebugProgress p;
  p.restart = std::exchange(m_restartPending, false);
  p.finished = m_session->finished();
  p.position = m_session->position();
  p.firstRecord = m_reportedUpTo;
  for (NodeId n = m_reportedUpTo; n < p.position; ++n) {
    // Copies: the engine's own records change with the next run of the node.
    const NodeRecord* record = m_session->record(n);
    p.records.push_back(record && record->executed ? std::make_shared<const NodeRecord>(*record) : nullptr);
  }
  m_reportedUpTo = p.position;
  return p;
}

DebugOutcome Debugger::compare(const ReferenceSpec& spec, CompareStop stop, RunObserver* observer) {
  m_reference.reset();
  m_replayTo.reset();  // a comparison runs from the start
  m_pinned.clear();
  restart();  // the run is made anew from its start, whether the reference can be made or not
  ReferenceSpec withRegion = spec;
  withRegion.autocast = m_target.autocast;
  m_reference = makeReference(withRegion, m_target.program, m_target.path, m_target.constantsPath, m_inputs, *m_session);
  return runComparison(stop, observer);
}

DebugOutcome Debugger::continueComparison(CompareStop stop, RunObserver* observer) {
  return runComparison(stop, observer);
}

DebugOutcome Debugger::runComparison(CompareStop stop, RunObserver* observer) {
  if (!m_reference) return failedOutcome(DebugCommand::Compare, "nothing is being compared");
  DebugOutcome o;
  o.command = DebugCommand::Compare;
  try {
    m_session->setStopConditions({});
    StepOutcome outcome = m_reference->run->run(stop, observer);
    // the reference's end too, so the comparison has the outputs' SQNR, unless it failed on the way
    Session& b = *m_reference->session;
    if (m_session->finished() && !b.finished() && m_reference->run->bFailure().ok()) b.run();
    o.reason = outcome.reason;
    o.diagnosis = std::move(outcome.diagnosis);
  } catch (const std::exception& e) {
    o = failedOutcome(DebugCommand::Compare, "the comparison failed: " + std::string(e.what()));
  }
  o.comparison = comparison();
  return o;
}

void Debugger::adoptComparison(std::shared_ptr<const ComparisonRecord> record, std::map<NodeId, TensorData> values) {
  m_adopted = std::move(record);
  m_adoptedValues = std::move(values);
}

std::shared_ptr<const ComparisonRecord> Debugger::comparison() const {
  if (m_adopted) return m_adopted;
  if (!m_reference) return nullptr;
  auto record = std::make_shared<ComparisonRecord>(m_reference->run->record(m_reference->description, m_reference->program));
  record->sensitivity = m_reference->sensitivity;
  return record;
}

DebugOutcome Debugger::layerSensitivity(const std::function<bool(std::size_t, std::size_t)>& progress,
                                        RunObserver* observer) {
  DebugOutcome o;
  o.command = DebugCommand::Compare;
  try {
    if (!m_reference || m_reference->program == m_target.program)
      throw std::runtime_error("layer sensitivity needs a comparison with the float program (Compare › With Float Program…)");
    if (quantizedLayers(program()).empty())
      throw std::runtime_error(program().source.path + " has no quantized layer (no op takes a dequantized input)");
    StepOutcome outcome;
    if (!m_session->finished()) outcome = m_reference->run->run(CompareStop::None, observer);
    if (outcome.reason == StopReason::Cancelled || outcome.reason == StopReason::Failed)
      throw std::runtime_error(outcome.reason == StopReason::Failed ? "the run failed at node '" + outcome.diagnosis.nodeName + "'"
                                                                    : "stopped");
    if (!m_reference->session->finished()) {
      const StepOutcome b = m_reference->session->run();
      if (b.reason != StopReason::Finished)
        throw std::runtime_error("the float program's run failed at node '" + b.diagnosis.nodeName + "': " + b.diagnosis.message);
    }
    auto result = std::make_shared<SensitivityResult>(
        torchir::layerSensitivity(*m_session, *m_reference->session, m_reference->run->matching(), progress, observer));
    o.reason = result->cancelled && !m_session->finished() ? StopReason::Cancelled : StopReason::Finished;
    if (!result->cancelled) m_reference->sensitivity = std::move(result);
  } catch (const std::exception& e) {
    o = failedOutcome(DebugCommand::Compare, "no layer sensitivity: " + std::string(e.what()));
  }
  o.comparison = comparison();
  return o;
}

DebugOutcome Debugger::keepInFloat(const std::vector<NodeId>& layers, const StopConditions& stops, RunObserver* observer,
                                   const std::function<void(const CallChange&)>& changed) {
  const Program& a = program();
  const bool twin = m_reference && m_reference->program != m_target.program;
  for (NodeId layer : layers) {
    const auto changes = keepInFloatPatches(a, layer, twin ? m_reference->session.get() : nullptr,
                                            twin ? &m_reference->run->matching() : nullptr);
    if (changes.empty()) continue;
    const auto now = m_session->patches().find(layer);
    CallChange change = changeCall(
        layer, withChanges(now == m_session->patches().end() ? std::vector<ArgumentPatch>{} : now->second, changes));
    if (changed) changed(change);  // a refused one leaves the others taken
  }
  // the change holds from the start: the comparison (or the run) is made again
  m_session->reset();
  restart();
  if (!m_reference) return execute(DebugCommand::Continue, kNone, stops, observer);
  NodeMatching matching = m_reference->run->matching();
  m_reference->session->reset();
  m_reference->sensitivity.reset();  // it measured the run without the change
  m_reference->run = std::make_unique<PairedRun>(*m_session, *m_reference->session, std::move(matching),
                                                 m_reference->options, quantComparison());
  return runComparison(CompareStop::None, observer);
}

CallChange Debugger::changeCall(NodeId node, const std::vector<ArgumentPatch>& patches) {
  CallChange change{node, patches, {}};
  try {
    m_session->setPatches(node, patches);
  } catch (const std::exception& e) {
    change.problem = e.what();
  }
  return change;
}

BodyCalls Debugger::bodyCalls(NodeId node, RunObserver* observer) {
  if (!m_session) throw std::runtime_error("the engine has not started");
  if (m_replayTo) {
    const StepOutcome replayed = replayCapture(observer);
    if (replayed.reason == StopReason::Failed)
      throw std::runtime_error("the capture's run could not be made again: " + replayed.diagnosis.message);
  }
  // a part of what the machine has: the copies are the user's to look at, not the run's
  return m_session->traceBodyCalls(node, usableMemory() / 8, observer);
}

DebugTarget bodyTarget(const DebugTarget& parent, const BodyCall& call, std::string description) {
  const Subgraph& body = parent.program->subgraphs.at(call.subgraph);
  DebugTarget t;
  t.program = body.graph;
  t.path = parent.path;
  runOnCall(t, call, std::move(description));
  return t;
}

void runOnCall(DebugTarget& body, const BodyCall& call, std::string description) {
  body.inputs = {};
  body.inputs.given = std::make_shared<const std::vector<TensorData>>(call.operands);
  body.inputs.givenDescription = std::move(description);
  body.autocast = call.autocast;
  body.isBody = true;
}

PatchTrial Debugger::tryPatches(NodeId node, const std::vector<ArgumentPatch>& patches, RunObserver* observer) {
  PatchTrial trial;
  try {
    if (m_replayTo) {
      const StepOutcome replayed = replayCapture(observer);
      if (replayed.reason == StopReason::Failed)
        throw std::runtime_error("the capture's run could not be made again: " + replayed.diagnosis.message);
    }
    trial = m_session->tryPatches(node, patches);
  } catch (const std::exception& e) {
    trial.afterProblem = e.what();
  }
  return trial;
}

ValueAnswer Debugger::tensor(ValueId value) const {
  if (!m_session) return {std::nullopt, "the engine has not started"};
  const Program& p = program();
  if (value < 0 || value >= static_cast<ValueId>(p.values.size())) return {std::nullopt, "no such value"};
  const Value& v = p.value(value);
  const std::string quoted = "'" + v.name + "'";
  if (m_replayTo) {  // the capture's run, not made again yet
    if (const auto pinned = m_pinned.find(value); pinned != m_pinned.end()) return {pinned->second, {}};
    return {std::nullopt, "the capture keeps no tensor for " + quoted +
                              " (pin it before saving, or continue to run the program again)"};
  }
  if (v.producer != kNone && !m_session->finished() && v.producer >= m_session->position())
    return {std::nullopt, quoted + " has not been computed yet"};
  if (m_session->released(value)) return {std::nullopt, quoted + " was released to stay within the memory budget"};
  if (v.kind != ValueKind::Tensor) return {std::nullopt, quoted + " is not a tensor"};
  try {
    // tensor() copies into storage of its own, so nothing the engine frees later is shared
    if (auto t = m_session->tensor(value)) return {std::move(t), {}};
    return {std::nullopt, quoted + " holds no tensor (no data)"};
  } catch (const std::exception& e) {
    return {std::nullopt, e.what()};
  }
}

ComparedAnswer Debugger::compared(NodeId node) const {
  if (m_adopted) {
    const NodeComparison* c = m_adopted->of(node);
    const auto value = m_adoptedValues.find(node);
    if (!c || value == m_adoptedValues.end()) return {{}, {}, {}, "the node was not compared"};
    try {
      auto reference = m_session->tensor(program().node(node).outputs.at(static_cast<std::size_t>(c->output)));
      if (!reference) return {{}, {}, {}, "its output was released to stay within the memory budget"};
      auto difference = differenceOf(value->second, *reference);
      return {value->second, std::move(reference), std::move(difference), {}};
    } catch (const std::exception& e) {
      return {{}, {}, {}, e.what()};
    }
  }
  const NodeComparison* c = m_reference ? m_reference->run->comparisonOf(node) : nullptr;
  if (!c) return {{}, {}, {}, "the node was not compared"};
  const auto output = static_cast<std::size_t>(c->output);
  const ValueId va = program().node(c->a).outputs.at(output);
  const ValueId vb = m_reference->program->node(c->b).outputs.at(output);
  try {
    auto run = m_session->tensor(va);
    auto reference = m_reference->session->tensor(vb);
    if (!run || !reference) return {{}, {}, {}, "its output was released to stay within the memory budget"};
    auto difference = differenceOf(*run, *reference);
    return {std::move(run), std::move(reference), std::move(difference), {}};
  } catch (const std::exception& e) {
    return {{}, {}, {}, e.what()};
  }
}

Debugger::ReproFiles Debugger::exportRepro(const ReproPart& part, const std::string& path, RunObserver* observer) {
  // A run that has not started is cut from and put back at its start; one that has keeps its
  // place, and the repro is cut from a run of its own with the same inputs and changes.
  const bool fresh = !m_replayTo && !m_session->finished() && m_session->position() == 0;
  std::unique_ptr<Session> own;
  if (!fresh) {
    SessionOptions options;
    options.castWeightsToExport = m_target.castWeights;
    options.autocast = m_target.autocast;
    own = atenBackend().createSession(program(), options);
    const Diagnosis in = giveInputs(*own, m_inputs);
    if (!in.ok()) throw std::runtime_error("its inputs: " + in.message);
    for (const auto& [node, patches] : m_session->patches()) own->setPatches(node, patches);
  }
  Session& session = fresh ? *m_session : *own;
  struct BackToStart {
    Session* session;
    ~BackToStart() {
      if (session) session->reset();
    }
  } back{fresh ? m_session.get() : nullptr};
  ReproFiles out{extractRepro(session, part, observer), {}};
  out.files = writeRepro(out.repro, path);
  return out;
}

void Debugger::saveCapture(const std::string& path, Capture capture, const std::vector<ValueId>& pinned, bool embedProgram) {
  std::string programPath = m_target.path;
  if (m_target.isBody) {  // the body's own program, which its inputs are of
    if (m_target.autocast)
      throw std::runtime_error("a body run under autocast cannot be captured as a program of its own: capture the "
                               "program around it");
    programPath = std::filesystem::path(path).replace_extension(".body.pt2").string();
    if (std::filesystem::path(programPath) == std::filesystem::path(m_target.path))
      throw std::runtime_error(programPath + " is the program around the body: save the capture under another name");
    // written whole or not at all: a reader of the file never sees half of it
    const std::string partial = programPath + ".partial";
    writePt2(program(), atenBackend().torchSaveArgs(*m_inputs.tensors), partial);
    std::filesystem::rename(partial, programPath);
  }
  capture.program = programReference(programPath);
  capture.python = atenBackend().pythonHost();  // which Python ran its ops defined in Python
  if (embedProgram) {
    const auto file = MappedFile::open(programPath);
    auto bytes = std::make_shared<Storage>();
    bytes->data = file->data();
    bytes->nbytes = file->size();
    bytes->owner = file;
    capture.embeddedProgram = {DType::UInt8, {static_cast<int64_t>(file->size())}, {1}, 0, bytes, nullptr};
  }
  const Program& p = program();
  for (ValueId v : pinned) {
    // the capture's own while its run is not made again, else the run's
    std::optional<TensorData> t;
    if (m_replayTo) {
      if (const auto kept = m_pinned.find(v); kept != m_pinned.end()) t = kept->second;
    } else if (!m_session->released(v)) {
      t = m_session->tensor(v);
    }
    if (t) capture.pinned[p.value(v).name] = std::move(*t);
  }
  if (m_inputs.tensors) {
    capture.inputs = *m_inputs.tensors;
  } else {  // random inputs: the ones the session holds
    for (const InputSpec& spec : p.inputs)
      if (spec.kind == InputKind::UserInput)
        if (auto t = m_session->tensor(spec.value)) capture.inputs.push_back(std::move(*t));
  }
  writeCapture(path, capture);
}

}  // namespace torchir
