#include "AtenSession.h"

#include <ATen/ATen.h>
#include <ATen/Parallel.h>
#include <ATen/core/dispatch/Dispatcher.h>
#include <c10/core/InferenceMode.h>

#include <algorithm>
#include <chrono>
#include <limits>
#include <functional>
#include <utility>
#include <optional>
#include <sstream>

#include "AutocastScope.h"
#include "BodyTrace.h"
#include "ConstantResults.h"
#include "FailureExplainer.h"
#include "program/TensorValues.h"
#include "formats/WeightsFile.h"
#include "IValueSummary.h"
#include "MemoryBudget.h"
#include "NodeKernels.h"
#include "PythonOps.h"
#include "SubclassKernels.h"
#include "TensorBridge.h"
#include "WeightCache.h"
#include "exec/MachineMemory.h"

namespace torchir {
namespace {

/// A child session on a higher-order op's subgraph (defined after AtenSession); `cancelled` is
/// the parent's: a cancel reaches every level.
/// `trace`: where the calls go while the parent keeps them (null otherwise); `index`: the
/// subgraph's in the parent's program.
std::unique_ptr<SubgraphRunner> makeSubgraphRunner(const Subgraph& g, const SessionOptions& options,
                                                   std::function<bool()> cancelled, std::size_t index,
                                                   std::function<BodyTrace*()> trace);

/// A subgraph's run was cancelled: the higher-order node stops unfinished, as the run does.
struct RunCancelled {};

std::string firstLine(const std::string& s) { return s.substr(0, s.find('\n')); }

bool hasNanOrInf(const c10::IValue& v) {
  if (!v.isTensor()) return false;
  const at::Tensor& t = v.toTensor();
  if (!t.defined() || !at::isFloatingType(t.scalar_type()) || t.numel() == 0) return false;
  return !at::isfinite(t).all().item<bool>();
}

class AtenSession final : public Session {
 public:
  /// `outerCancelled`: for a subgraph's session, whether the run of the graph around it is cancelled.
  explicit AtenSession(const Program& p, const SessionOptions& options = {}, std::function<bool()> outerCancelled = {})
      : m_p(p),
        m_options(options),
        m_device(options.device),
        m_runs(p.nodes.size()),
        m_budget(p),
        m_outerCancelled(std::move(outerCancelled)) {
    m_kernels.reserve(p.nodes.size());
    SessionOptions childOptions = m_options;
    childOptions.autocast.reset();  // the region is entered once, around the whole program
    const MakeSubgraphRunner child = [this, childOptions](const Subgraph& g) {
      const auto index = static_cast<std::size_t>(&g - m_p.subgraphs.data());
      if (index >= m_p.subgraphs.size()) throw std::logic_error("a subgraph of another program");
      return makeSubgraphRunner(g, childOptions, [this] { return cancelRequested(); }, index,
                                [this] { return m_trace; });
    };
    MissingOperators missing;
    for (const auto& n : p.nodes) m_kernels.push_back(resolveNodeKernel(p, n, child, missing, options.floatingAs));
    // A subgraph's results go to the node around it, which may write them in place; a device's
    // memory is not what the bound counts: neither keeps results.
    m_keepsConstants = !m_outerCancelled && m_device.is_cpu();
    m_constant = constantNodes(p, m_kernels, {});
    m_constantResults.setBound(constantResultsBound());
    for (const auto& s : p.inputs)
      if (s.kind == InputKind::UserInput) m_userInputs.push_back(s.value);
    reset();
  }

  const Program& program() const override { return m_p; }

  Diagnosis setInputs(const std::vector<TensorData>& inputs) override {
    Diagnosis d;
    if (inputs.size() != m_userInputs.size()) {
      d.kind = DiagnosisClass::ShapeMismatch;
      d.message = "the program takes " + std::to_string(m_userInputs.size()) + " inputs, " +
                  std::to_string(inputs.size()) + " were given";
      // tensors alone (an archive's sample inputs keep no numbers): name the numbers it lacks
      std::string numbers;
      int count = 0;
      for (ValueId id : m_userInputs)
        if (isSymbolic(m_p.value(id).kind)) numbers += (count++ ? ", '" : "'") + m_p.value(id).name + "'";
      if (count)
        d.message += "; " + numbers + (count == 1 ? " is a number" : " are numbers") +
                     " it takes at run time: give the inputs in a file, each number as a 0-d tensor";
      return d;
    }
    std::map<std::string, int64_t> symbols;
    for (std::size_t i = 0; i < inputs.size(); ++i) {
      const Value& v = m_p.value(m_userInputs[i]);
      const TensorData& t = inputs[i];
      d.node = v.producer;  // the placeholder, should this input be refused
      d.nodeName = v.name;
      if (isSymbolic(v.kind)) {
        if (const std::string why = symbolicInputProblem(v, t); !why.empty()) {
          d.kind = DiagnosisClass::DtypeMismatch;
          d.message = why;
          return d;
        }
        if (const std::string why = numberOutOfRange(v, t); !why.empty()) {
          d.kind = DiagnosisClass::SymbolOutOfRange;
          d.message = why;
          d.explanation = "The program was exported with this number dynamic within that range; give one inside it or "
                          "export with a wider Dim range.";
          return d;
        }
        continue;
      }
      if (v.kind != ValueKind::Tensor) continue;
      if (!t.hasData()) {
        d.kind = DiagnosisClass::MissingData;
        d.message = "input '" + v.name + "' has no data (the sample inputs of a meta-device export are empty)";
        return d;
      }
      if (t.sizes.size() != v.shape.size()) {
        d.kind = DiagnosisClass::ShapeMismatch;
        d.message = "input '" + v.name + "' has " + std::to_string(t.sizes.size()) + " dimensions, the program expects " +
                    std::to_string(v.shape.size());
        return d;
      }
      for (std::size_t k = 0; k < v.shape.size(); ++k) {
        const Dim& dim = v.shape[k];
        if (!dim.isSymbolic()) {
          if (dim.hint != t.sizes[k]) {
            d.kind = DiagnosisClass::ShapeMismatch;
            d.message = "input '" + v.name + "' dimension " + std::to_string(k) + " is " + std::to_string(t.sizes[k]) +
                        ", the program was exported for " + std::to_string(dim.hint);
            return d;
          }
          continue;
        }
        auto range = m_p.symbolRanges.find(dim.expr);
        if (range == m_p.symbolRanges.end()) continue;
        const auto& r = range->second;
        if ((r.min && t.sizes[k] < *r.min) || (r.max && t.sizes[k] > *r.max)) {
          d.kind = DiagnosisClass::SymbolOutOfRange;
          d.message = "input '" + v.name + "' dimension " + std::to_string(k) + " is " + std::to_string(t.sizes[k]) +
                      ", outside the range of " + dim.expr + ": [" + (r.min ? std::to_string(*r.min) : "-inf") + ", " +
                      (r.max ? std::to_string(*r.max) : "inf") + "]";
          d.explanation = "The program was exported with " + dim.expr +
                          " dynamic within that range; give an input inside it or export with a wider Dim range.";
          return d;
        }
      }
    }
    m_inputs = inputs;
    reset();
    return {};
  }

  /// An int, float or bool the program takes at run time (a SymInt input: `n` with Dim.DYNAMIC)
  /// comes as a one-element tensor of a fitting dtype (an inputs file holds nothing else); why
  /// `t` cannot be it, or "".
  static std::string symbolicInputProblem(const Value& v, const TensorData& t) {
    const std::string kind = v.kind == ValueKind::SymInt ? "an int" : v.kind == ValueKind::SymFloat ? "a float" : "a bool";
    const std::string want = "input '" + v.name + "' is " + kind + " the program takes at run time: give it as a 0-d tensor";
    if (t.numel() != 1 || !t.hasData()) return want + ", not " + (t.hasData() ? "a tensor of " + std::to_string(t.numel()) + " elements" : "one without data");
    const bool integral = isIntegral(t.dtype) || t.dtype == DType::Bool;
    const bool fits = v.kind == ValueKind::SymInt ? integral && t.dtype != DType::Bool
                      : v.kind == ValueKind::SymBool ? t.dtype == DType::Bool
                                                     : integral || isFloating(t.dtype);
    return fits ? "" : want + " of a fitting dtype, not " + std::string(dtypeName(t.dtype));
  }

  /// Why the number `t` gives input `v` is outside its symbol's range (as ep.module()'s guard
  /// says: "input 'n' is 7, outside the range of s86: [0, 6]"), or "".
  std::string numberOutOfRange(const Value& v, const TensorData& t) const {
    const auto symbol = m_p.inputSymbols.find(v.id);
    if (symbol == m_p.inputSymbols.end()) return {};
    const auto range = m_p.symbolRanges.find(symbol->second);
    if (range == m_p.symbolRanges.end()) return {};
    double x = 0;
    try {
      x = elementAsDouble(t, 0);
    } catch (const std::exception&) {
      return "input '" + v.name + "' is a number of a dtype that cannot be read (" + std::string(dtypeName(t.dtype)) + ")";
    }
    const SymbolRange& r = range->second;
    if ((!r.min || x >= static_cast<double>(*r.min)) && (!r.max || x <= static_cast<double>(*r.max))) return {};
    std::ostringstream text;
    text << "input '" << v.name << "' is " << x << ", outside the range of " << symbol->second << ": ["
         << (r.min ? std::to_string(*r.min) : "-inf") << ", " << (r.max ? std::to_string(*r.max) : "inf") << "]";
    return text.str();
  }

  static bool isSymbolic(ValueKind k) { return k == ValueKind::SymInt || k == ValueKind::SymFloat || k == ValueKind::SymBool; }

  Diagnosis setRandomInputs(uint64_t seed) override {
    at::manual_seed(seed);
    std::vector<TensorData> inputs;
    for (ValueId id : m_userInputs) {
      const Value& v = m_p.value(id);
      if (isSymbolic(v.kind)) {  // a number the program computes sizes from: no random one would do
        Diagnosis d;
        d.kind = DiagnosisClass::MissingData;
        d.node = v.producer;
        d.nodeName = v.name;
        d.message = "input '" + v.name + "' is a number the program takes at run time: random inputs cannot choose "
                    "it; give the inputs in a file, this one as a 0-d tensor";
        return d;
      }
      std::vector<int64_t> sizes;
      for (const auto& d : v.shape) sizes.push_back(d.hint);
      const auto options = at::TensorOptions().dtype(static_cast<at::ScalarType>(v.dtype));
      at::Tensor t = at::isFloatingType(options.dtype().toScalarType()) ? at::randn(sizes, options)
                     : options.dtype().toScalarType() == at::kBool ? at::randint(0, 2, sizes, options)
                                                                    : at::randint(0, 16, sizes, options);
      inputs.push_back(fromAten(t));
    }
    return setInputs(inputs);
  }

  NodeId position() const override { return m_pos; }
  bool finished() const override { return m_pos >= static_cast<NodeId>(m_p.nodes.size()); }

  StepOutcome step(RunObserver* observer) override {
    const std::uint64_t before = m_executed;
    return runWhile([&] { return m_executed > before; }, observer);
  }

  StepOutcome runTo(NodeId node, RunObserver* observer) override {
    return runWhile([&] { return m_runs[static_cast<std::size_t>(node)].executed; }, observer);
  }

  StepOutcome runUpTo(NodeId node, RunObserver* observer) override {
    return runWhile([&] { return m_pos >= node; }, observer);
  }

  StepOutcome run(RunObserver* observer) override {
    return runWhile([] { return false; }, observer);
  }

  StepOutcome replayTo(NodeId next, RunObserver* observer, Replay keep) override {
    next = std::clamp<NodeId>(next, 0, static_cast<NodeId>(m_p.nodes.size()));
    // Set aside while the replay runs; what the caller sets meanwhile (a breakpoint toggled during
    // a step back) goes to the set-aside copies, which come back when it ends.
    m_suspended = Suspended{std::exchange(m_breakpoints, {}), std::exchange(m_stops, {}), m_budget.limit()};
    if (keep == Replay::KeepEveryValue) m_budget.setLimit(std::numeric_limits<std::size_t>::max());
    struct Restore {
      AtenSession& s;
      ~Restore() {
        s.m_breakpoints = std::move(s.m_suspended->breakpoints);
        s.m_stops = s.m_suspended->stops;
        s.m_budget.setLimit(s.m_suspended->budget);
        s.m_suspended.reset();
      }
    } restore{*this};
    reset();
    return runWhile([&] { return m_pos >= next; }, observer);
  }

  StepOutcome stepBack(RunObserver* observer) override {
    NodeId target = kNone;
    for (NodeId n = std::min<NodeId>(m_pos, static_cast<NodeId>(m_p.nodes.size())) - 1; n >= 0 && target == kNone; --n)
      if (m_kernels[static_cast<std::size_t>(n)]->doesWork() && m_runs[static_cast<std::size_t>(n)].executed) target = n;
    if (target == kNone) return {StopReason::Stepped, {}};
    return replayTo(target, observer, Replay::WithinBudget);
  }

  void reset() override {
    m_values.assign(m_p.values.size(), c10::IValue());
    for (NodeRun& r : m_runs) r.clear();
    m_records.assign(m_p.nodes.size(), std::nullopt);
    m_budget.reset();
    m_snapshotCursor = 0;
    m_pos = 0;
    m_cancel = false;
    c10::InferenceMode guard;
    if (!m_weights) m_weights = bridgeWeights();
    for (const BridgedWeight& w : *m_weights)
      // Mapped weights are read-only memory: a buffer the program mutates gets its own copy.
      m_values[static_cast<std::size_t>(w.value)] = w.buffer && w.held.isTensor() ? w.held.toTensor().clone() : w.held;
    m_weightCache.refill(m_values);
    for (const InputSpec& s : m_p.inputs)  // what orders the ops with side effects: torch's is an empty tensor
      if (s.kind == InputKind::Token && s.value != kNone) m_values[static_cast<std::size_t>(s.value)] = at::empty({0});
    for (std::size_t i = 0; i < m_inputs.size() && i < m_userInputs.size(); ++i) {
      const Value& v = m_p.value(m_userInputs[i]);
      c10::IValue& slot = m_values[static_cast<std::size_t>(m_userInputs[i])];
      if (!isSymbolic(v.kind)) {
        slot = placed(toAten(m_inputs[i])).clone();
        continue;
      }
      const at::Tensor number = toAten(m_inputs[i]);  // one element, of a fitting dtype (setInputs)
      slot = v.kind == ValueKind::SymInt     ? c10::IValue(number.item<int64_t>())
             : v.kind == ValueKind::SymFloat ? c10::IValue(number.item<double>())
                                             : c10::IValue(number.item<bool>());
    }
    skipToWork();
  }

  void setBreakpoints(const std::set<NodeId>& nodes) override {
    (m_suspended ? m_suspended->breakpoints : m_breakpoints) = nodes;
  }
  void setMemoryBudget(std::size_t bytes) override {
    if (m_suspended) m_suspended->budget = bytes;
    else m_budget.setLimit(bytes);
    m_constantResults.setBound(constantResultsBound());
  }

  /// The weight cache's bound, and no more than a quarter of the run's memory budget: results
  /// kept stay held while the budget releases the run's values.
  std::size_t constantResultsBound() const {
    const std::size_t weights = m_options.weightCacheBytes ? m_options.weightCacheBytes : usableMemory() / 4;
    return std::min(weights, (m_suspended ? m_suspended->budget : m_budget.limit()) / 4);
  }
  bool released(ValueId value) const override { return m_budget.released(value); }
  void setStopConditions(const StopConditions& c) override { (m_suspended ? m_suspended->stops : m_stops) = c; }
  void requestCancel() override { m_cancel = true; }

  /// Runs the whole program as a higher-order op's subgraph: operands in, results out.
  std::vector<c10::IValue> runGraph(const std::vector<c10::IValue>& operands, const std::string& graphName) {
    reset();
    if (operands.size() != m_userInputs.size())
      throw std::runtime_error(graphName + " takes " + std::to_string(m_userInputs.size()) + " operands, " +
                               std::to_string(operands.size()) + " were given");
    for (std::size_t i = 0; i < operands.size(); ++i) m_values[static_cast<std::size_t>(m_userInputs[i])] = operands[i];
    const StepOutcome o = run(nullptr);
    if (o.reason == StopReason::Cancelled) throw RunCancelled{};
    if (o.reason != StopReason::Finished) throw SubgraphFailure(graphName, o.diagnosis);
    std::vector<c10::IValue> results;
    for (const auto& s : m_p.outputs) results.push_back(s.value == kNone ? c10::IValue() : m_values[static_cast<std::size_t>(s.value)]);
    return results;
  }

  /// The op nodes this (sub)graph's last run executed, for the higher-order node that ran it.
  std::vector<InnerRecord> executedOps(const std::string& graphName) const {
    std::vector<InnerRecord> out;
    for (const Node& n : m_p.nodes) {
      if (!m_kernels[static_cast<std::size_t>(n.id)]->doesWork()) continue;
      if (const NodeRecord* r = record(n.id)) out.push_back(InnerRecord{graphName, n.name, n.target, *r});
    }
    return out;
  }

  const NodeRecord* record(NodeId node) const override {
    const NodeRun& run = m_runs.at(static_cast<std::size_t>(node));
    if (!run.executed) return nullptr;
    auto& rec = m_records[static_cast<std::size_t>(node)];
    if (!rec) rec = materialize(node, run);
    return &*rec;
  }

  std::optional<TensorData> tensor(ValueId value) const override {
    const auto& v = m_values.at(static_cast<std::size_t>(value));
    if (!v.isTensor())
      return cachedWeight(value) ? std::optional<TensorData>(fromAten(m_weightCache.make(value))) : std::nullopt;
    return fromAten(v.toTensor());
  }

  std::optional<TensorData> tensorView(ValueId value) const override {
    const auto& v = m_values.at(static_cast<std::size_t>(value));
    if (!v.isTensor())
      return cachedWeight(value) ? std::optional<TensorData>(viewOfAten(m_weightCache.make(value))) : std::nullopt;
    return viewOfAten(v.toTensor());
  }

  std::vector<std::optional<TensorData>> rerunNode(NodeId id, const std::vector<std::optional<TensorData>>& inputs) override {
    const Node& n = m_p.nodes.at(static_cast<std::size_t>(id));
    NodeKernel& k = *m_kernels[static_cast<std::size_t>(id)];
    if (!m_runs[static_cast<std::size_t>(id)].executed || !k.doesWork() || k.problem())
      throw std::runtime_error("node '" + n.name + "' has not run");
    if (inputs.size() != valuesNamedBy(n).size())
      throw std::runtime_error("node '" + n.name + "' names " + std::to_string(valuesNamedBy(n).size()) + " values, " +
                               std::to_string(inputs.size()) + " were given");
    return callDetached(id, &inputs);
  }

  BodyCalls traceBodyCalls(NodeId id, std::size_t maxBytes, RunObserver* observer) override {
    const Node& n = m_p.nodes.at(static_cast<std::size_t>(id));
    if (subgraphsOf(m_p, n).empty()) throw std::runtime_error("node '" + n.name + "' has no body");
    // it ran, or runs next (where it failed, too): its arguments are in the frame
    if ((!m_runs[static_cast<std::size_t>(id)].executed && id != m_pos) || m_kernels[static_cast<std::size_t>(id)]->problem())
      throw std::runtime_error("node '" + n.name + "' has not run");
    BodyTrace trace(maxBytes, c10::Device(m_device).type());
    m_trace = &trace;
    // Stop reaches the bodies as it reaches a run: between two of their nodes, and a call in Python
    RunObserver* const outer = std::exchange(m_observer, observer);
    struct Off {
      BodyTrace*& slot;
      RunObserver*& observer;
      RunObserver* outer;
      ~Off() { slot = nullptr, observer = outer; }
    } off{m_trace, m_observer, outer};
    PythonCallCancelScope pythonStops([this] { return cancelRequested(); });
    std::string failure;
    try {
      callDetached(id, nullptr);
    } catch (const RunCancelled&) {
      m_cancel = false;
      failure = "stopped before the node's run ended";
    } catch (const std::exception& e) {
      failure = e.what();
    }
    BodyCalls calls = trace.take();
    calls.failure = std::move(failure);
    return calls;
  }

  void setPatches(NodeId node, std::vector<ArgumentPatch> patches) override {
    if (node < 0 || static_cast<std::size_t>(node) >= m_kernels.size())
      throw std::invalid_argument("no node " + std::to_string(node));
    m_kernels[static_cast<std::size_t>(node)]->setPatches(patches);  // throws before anything changes
    if (patches.empty()) m_patches.erase(node);
    else m_patches[node] = std::move(patches);
    // a change reaches every node made from the one changed: what was reused is made again
    std::set<NodeId> patched;
    for (const auto& [id, changes] : m_patches) patched.insert(id);
    m_constant = constantNodes(m_p, m_kernels, patched);
    m_constantResults.clear();
  }

  const std::map<NodeId, std::vector<ArgumentPatch>>& patches() const override { return m_patches; }

  PatchTrial tryPatches(NodeId node, const std::vector<ArgumentPatch>& patches) override {
    if (finished() || node != m_pos) throw std::runtime_error("only the next node's call can be tried");
    NodeKernel& k = *m_kernels[static_cast<std::size_t>(node)];
    if (k.problem()) throw std::runtime_error(k.problem()->message);
    const auto it = m_patches.find(node);
    const std::vector<ArgumentPatch> now = it == m_patches.end() ? std::vector<ArgumentPatch>{} : it->second;
    PatchTrial trial;
    auto attempt = [&](std::vector<std::optional<TensorData>>& outputs, std::string& problem,
                       std::vector<ArgumentRecord>* arguments) {
      try {
        outputs = callDetached(node, nullptr, arguments);
      } catch (const std::exception& e) {
        problem = e.what();
      }
    };
    attempt(trial.before, trial.beforeProblem, nullptr);
    k.setPatches(patches);
    attempt(trial.after, trial.afterProblem, &trial.arguments);
    k.setPatches(now);
    return trial;
  }

  std::vector<TensorData> outputs() const override {
    std::vector<TensorData> out;
    for (const auto& s : m_p.outputs) {
      if (s.kind != OutputKind::UserOutput || s.value == kNone) continue;
      const auto& v = m_values[static_cast<std::size_t>(s.value)];
      if (v.isTensor()) out.push_back(fromAten(v.toTensor()));
    }
    return out;
  }

 private:
  /// Calls node `id` on the frame's values (or `inputs` where given) and gives its outputs; the
  /// frame is left as it was, whatever the call writes, however it ends.
  std::vector<std::optional<TensorData>> callDetached(NodeId id, const std::vector<std::optional<TensorData>>* inputs,
                                                     std::vector<ArgumentRecord>* arguments = nullptr) {
    const Node& n = m_p.nodes.at(static_cast<std::size_t>(id));
    NodeKernel& k = *m_kernels[static_cast<std::size_t>(id)];
    const std::vector<ValueId> named = valuesNamedBy(n);
    c10::InferenceMode guard;
    const AutocastScope region(m_options.autocast);
    provideWeights(id);
    // Everything the call may overwrite, put back however it ends (in reverse: a value named twice
    // is saved twice, the run's own first).
    struct Restore {
      FrameValues& frame;
      std::vector<std::pair<ValueId, c10::IValue>> saved;
      ~Restore() {
        for (auto it = saved.rbegin(); it != saved.rend(); ++it) frame[static_cast<std::size_t>(it->first)] = it->second;
      }
    } restore{m_values, {}};
    for (ValueId v : n.outputs) restore.saved.emplace_back(v, m_values[static_cast<std::size_t>(v)]);
    // a call that says it writes no argument is given the run's own tensors, uncopied; every
    // other gets copies
    const bool mayWrite = !k.declaresItsWrites() || !k.writtenArguments().empty();
    for (std::size_t i = 0; i < named.size(); ++i) {
      c10::IValue& slot = m_values[static_cast<std::size_t>(named[i])];
      restore.saved.emplace_back(named[i], slot);
      if (inputs && (*inputs)[i]) {
        at::Tensor t = toAten(*(*inputs)[i]);
        slot = slot.isTensor() ? t.to(slot.toTensor().options(), false, true) : placed(t).clone();
      } else if (slot.isTensor() && mayWrite) {
        slot = slot.toTensor().clone();  // an op that writes its argument writes the copy
      }
    }
    NodeRun scratch;
    torch::jit::Stack stack;
    // what the call was given, however it ends
    auto keepArguments = [&] {
      if (arguments) *arguments = k.arguments(scratch);
    };
    try {
      k.run(m_values, stack, scratch);
    } catch (const MissingValue& e) {
      keepArguments();
      throw std::runtime_error("node '" + n.name + "' cannot run: value '" + m_p.value(e.value).name +
                               "' is no longer held");
    } catch (const c10::Error& e) {
      keepArguments();
      throw std::runtime_error(firstLine(e.what_without_backtrace()));
    } catch (...) {
      keepArguments();
      throw;
    }
    keepArguments();
    std::vector<std::optional<TensorData>> out;
    for (ValueId v : n.outputs) {
      const c10::IValue& r = m_values[static_cast<std::size_t>(v)];
      out.push_back(r.isTensor() ? std::optional<TensorData>(fromAten(r.toTensor())) : std::nullopt);
    }
    return out;
  }

  /// The weights with data as ATen tensors, once per session: a misaligned one is copied then,
  /// not on every reset.
  struct BridgedWeight {
    ValueId value;
    c10::IValue held;  // a tensor, or a subclass's inner tensors (subclassValue)
    bool buffer;
  };
  std::vector<BridgedWeight> bridgeWeights() {
    std::vector<BridgedWeight> out;
    m_weightCache.setBound(m_options.weightCacheBytes ? m_options.weightCacheBytes : usableMemory() / 4);
    for (const InputSpec& s : m_p.inputs) {
      if (s.kind == InputKind::UserInput) continue;
      auto it = m_p.weights.find(s.target);
      if (it == m_p.weights.end() || !it->second.runnable()) continue;  // diagnosed where it is used
      if (it->second.subclass) {
        out.push_back({s.value, subclassValue(*it->second.subclass, [this](at::Tensor t) { return placed(t); }),
                       s.kind == InputKind::Buffer});
        continue;
      }
      const TensorData& w = it->second;
      const DType exported = m_p.value(s.value).dtype;
      const bool castToExport = m_options.castWeightsToExport && exported != DType::Unknown && w.dtype != exported;
      const DType held = castToExport ? exported : w.dtype;
      const bool shadowed = m_options.floatingAs != DType::Unknown && at::isFloatingType(static_cast<at::ScalarType>(held));
      const auto target = static_cast<at::ScalarType>(shadowed ? m_options.floatingAs : held);
      // A parameter or constant the session would hold as a copy of its own (cast, aligned) is
      // made when a node needs it and may be let go; a buffer (which the program may write) and
      // a weight used as the file's bytes (pages the kernel may evict) are held as they are.
      const bool copied = target != static_cast<at::ScalarType>(w.dtype) || !bridgesWithoutCopy(w);
      if (copied && s.kind != InputKind::Buffer && m_device.is_cpu()) {
        m_weightCache.add(s.value, [&w, target] { return copyIntoOwnPages(toAten(w), target); });
        continue;
      }
      at::Tensor t = toAten(w);
      if (castToExport) t = t.to(static_cast<at::ScalarType>(exported));
      out.push_back({s.value, c10::IValue(placed(t)), s.kind == InputKind::Buffer});
    }
    // which of those each node reads, so that a run asks for them node by node
    if (!m_weightCache.empty()) {
      m_lazyReads.assign(m_p.nodes.size(), {});
      for (const Node& n : m_p.nodes)
        for (ValueId v : valuesNamedBy(n))
          if (v >= 0 && m_weightCache.holds(v)) {
            auto& reads = m_lazyReads[static_cast<std::size_t>(n.id)];
            if (std::find(reads.begin(), reads.end(), v) == reads.end()) reads.push_back(v);
          }
    }
    return out;
  }

  /// Puts the cast weights node `id` reads into the frame. Where that lets others go, the records
  /// of the nodes that ran become summaries, so the tensors they referenced are freed.
  void provideWeights(NodeId id) {
    if (m_lazyReads.empty()) return;
    const auto& needed = m_lazyReads[static_cast<std::size_t>(id)];
    if (needed.empty()) return;
    if (m_weightCache.provide(needed, m_values) && id > 0) snapshotRecordsUpTo(id - 1);
  }

  /// A weight made on demand: its frame slot may be empty while it is let go.
  bool cachedWeight(ValueId v) const { return m_weightCache.holds(v); }

  /// A weight or input as this session holds it: at its floating dtype, on its device.
  at::Tensor placed(at::Tensor t) const {
    if (m_options.floatingAs != DType::Unknown && at::isFloatingType(t.scalar_type()))
      t = t.to(static_cast<at::ScalarType>(m_options.floatingAs));
    if (!m_device.is_cpu()) t = t.to(m_device);
    return t;
  }

  /// Passes nodes that do no work (placeholders, getitem, output) so position() shows real work.
  void skipToWork() {
    while (!finished() && !m_kernels[static_cast<std::size_t>(m_pos)]->doesWork()) {
      m_runs[static_cast<std::size_t>(m_pos)].executed = true;
      if (m_p.nodes[static_cast<std::size_t>(m_pos)].opcode == Opcode::Output) writeBackMutations();
      ++m_pos;
    }
  }

  bool cancelRequested() const {
    return m_cancel.load(std::memory_order_relaxed) || (m_observer && m_observer->cancelled()) ||
           (m_outerCancelled && m_outerCancelled());
  }

  /// The one run loop: step, runTo and run end it at different places. A breakpoint stops it
  /// before its node, except the node it starts at (as debuggers do).
  template <class Done>
  StepOutcome runWhile(Done done, RunObserver* observer) {
    c10::InferenceMode guard;  // once for the run, not per node
    const AutocastScope region(m_options.autocast);
    PythonCallCancelScope pythonStops([this] { return cancelRequested(); });  // Stop reaches a call in Python
    RunObserver* const outer = std::exchange(m_observer, observer);
    struct Restore {
      RunObserver*& slot;
      RunObserver* value;
      ~Restore() { slot = value; }
    } restore{m_observer, outer};
    bool first = true;
    while (true) {
      skipToWork();
      if (finished()) return {StopReason::Finished, {}};
      if (done()) return {StopReason::Stepped, {}};
      if (cancelRequested()) {
        m_cancel = false;
        return {StopReason::Cancelled, {}};
      }
      if (observer) observer->beforeNode(m_pos);
      if (!first && m_breakpoints.count(m_pos)) return {StopReason::Breakpoint, {}};
      first = false;
      const NodeId id = m_pos;
      StepOutcome o = execute(id);
      if (o.reason == StopReason::Cancelled) m_cancel = false;  // a subgraph's run saw it
      if (o.reason == StopReason::Failed || o.reason == StopReason::Cancelled) return o;
      ++m_pos;
      ++m_executed;
      if (o.reason != StopReason::StopCondition && observer && observer->afterNode(id, o.diagnosis))
        o.reason = StopReason::StopCondition;
      if (o.reason == StopReason::StopCondition) {
        skipToWork();
        return o;
      }
    }
  }

  void writeBackMutations() {
    // Export turns `self.buf.add_(1)` into an output; the buffer takes that value for the next run.
    for (const auto& s : m_p.outputs) {
      if (s.kind != OutputKind::BufferMutation || s.value == kNone) continue;
      for (const auto& in : m_p.inputs)
        if (in.kind == InputKind::Buffer && in.target == s.target)
          m_values[static_cast<std::size_t>(in.value)] = m_values[static_cast<std::size_t>(s.value)];
    }
  }

  Diagnosis baseDiagnosis(const Node& n) const {
    Diagnosis d;
    d.node = n.id;
    d.nodeName = n.name;
    d.opType = n.target;
    d.stackTrace = n.stackTraceText();
    return d;
  }

  StepOutcome fail(Diagnosis d) { return {StopReason::Failed, std::move(d)}; }

  /// Why a node whose kernel could not be made (KernelProblem) fails.
  Diagnosis kernelProblemDiagnosis(const Node& n, const NodeKernel& k) const {
    const KernelProblem* problem = k.problem();
    Diagnosis d = baseDiagnosis(n);
    d.kind = problem->kind;
    d.schema = k.schema();
    d.message = problem->message;
    d.pythonImports = problem->pythonImports;
    d.explanation = problem->kind == DiagnosisClass::UnsupportedHigherOrderOp
                        ? "This control-flow or wrapper op needs a kernel of its own; the nodes before it ran."
                    : problem->kind == DiagnosisClass::OpNotFound && !problem->pythonImports.empty()
                        ? "Import " + problem->pythonImports.front() + " in the Python named: --python-import " +
                              problem->pythonImports.front() + " (or --python-import auto), or the studio's Import button."
                    : problem->kind == DiagnosisClass::OpNotFound
                        ? "Name a Python whose modules define the op (--python PATH --python-import MODULE, or the studio's Preferences), load the library that defines it, or register an executor for it (--executors)."
                        : "The node's serialized arguments do not fit the op's schema.";
    return d;
  }

  std::string plannedSchema(NodeId node) const override {
    if (node < 0 || static_cast<std::size_t>(node) >= m_kernels.size()) return {};
    const NodeKernel& k = *m_kernels[static_cast<std::size_t>(node)];
    return k.doesWork() ? k.schema() : std::string();
  }

  std::vector<Diagnosis> plannedProblems() const override {
    std::vector<Diagnosis> problems;
    for (const Node& n : m_p.nodes)
      if (const NodeKernel& k = *m_kernels[static_cast<std::size_t>(n.id)]; k.problem())
        problems.push_back(kernelProblemDiagnosis(n, k));
    return problems;
  }

  /// What the argument and output views show, built when asked for: a run only keeps the
  /// argument values (references, no copies) and the op's time.
  NodeRecord materialize(NodeId id, const NodeRun& run) const {
    const Node& n = m_p.nodes[static_cast<std::size_t>(id)];
    const NodeKernel& k = *m_kernels[static_cast<std::size_t>(id)];
    NodeRecord rec;
    rec.node = id;
    rec.executed = true;
    rec.doesWork = k.doesWork();
    rec.schema = k.schema();
    rec.writtenArguments = k.writtenArguments();
    rec.microseconds = run.microseconds;
    rec.cached = run.cached;
    rec.arguments = k.arguments(run);
    for (ValueId v : n.outputs) rec.outputs.push_back(summarize(m_values[static_cast<std::size_t>(v)]));
    rec.inner = k.inner();  // a higher-order node's subgraphs last ran for this run
    return rec;
  }

  /// Turns the argument references of executed nodes into summaries, so that releasing a
  /// value frees its memory. Each node is visited once per run.
  void snapshotRecordsUpTo(NodeId id) {
    for (; m_snapshotCursor <= id; ++m_snapshotCursor) {
      const auto i = static_cast<std::size_t>(m_snapshotCursor);
      if (!m_runs[i].executed) continue;
      if (!m_records[i]) m_records[i] = materialize(m_snapshotCursor, m_runs[i]);
      m_runs[i].args.clear();
    }
  }

  /// Whether node `id`'s results are kept from run to run. A reduction's bits depend on the
  /// thread count: results kept at another are let go first.
  bool keepsConstantResults(NodeId id) {
    if (!m_keepsConstants || !m_constant[static_cast<std::size_t>(id)]) return false;
    if (const int threads = at::get_num_threads(); threads != m_constantThreads) {
      m_constantResults.clear();
      m_constantThreads = threads;
    }
    return true;
  }

  /// A node made of the program's constants alone, whose results an earlier run kept: they go
  /// into the frame and its arguments into the record, and the op is not called.
  bool reuseConstantResults(NodeId id, NodeKernel& k, torch::jit::Stack& stack, NodeRun& run) {
    if (!keepsConstantResults(id)) return false;
    const std::vector<c10::IValue>* kept = m_constantResults.find(id);
    if (!kept) return false;
    k.gather(m_values, stack, run);
    const Node& n = m_p.nodes[static_cast<std::size_t>(id)];
    for (std::size_t i = 0; i < n.outputs.size() && i < kept->size(); ++i)
      m_values[static_cast<std::size_t>(n.outputs[i])] = (*kept)[i];
    run.cached = true;
    return true;
  }

  void keepConstantResults(NodeId id) {
    if (!keepsConstantResults(id)) return;
    std::vector<c10::IValue> results;
    for (ValueId v : m_p.nodes[static_cast<std::size_t>(id)].outputs) results.push_back(m_values[static_cast<std::size_t>(v)]);
    m_constantResults.keep(id, std::move(results));
  }

  StepOutcome execute(NodeId id) {
    const Node& n = m_p.nodes[static_cast<std::size_t>(id)];
    NodeKernel& k = *m_kernels[static_cast<std::size_t>(id)];
    NodeRun& run = m_runs[static_cast<std::size_t>(id)];
    run.clear();
    m_records[static_cast<std::size_t>(id)].reset();
    if (k.problem()) return fail(kernelProblemDiagnosis(n, k));
    // One stack for every call: its capacity survives, so a node costs no allocation for it.
    torch::jit::Stack& stack = m_stack;
    stack.clear();
    try {
      provideWeights(id);
      if (!reuseConstantResults(id, k, stack, run)) {
        k.run(m_values, stack, run);
        keepConstantResults(id);
      }
    } catch (const MissingValue& e) {
      Diagnosis d = baseDiagnosis(n);
      d.kind = DiagnosisClass::MissingData;
      d.schema = k.schema();
      const Value& v = m_p.value(e.value);
      const InputSpec* spec = m_p.inputSpecFor(e.value);
      const bool weight = spec && spec->kind != InputKind::UserInput;
      const std::string what = weight ? std::string(inputKindName(spec->kind)) + " '" + spec->target + "'" : "input '" + v.name + "'";
      d.message = "Weight/input '" + v.name + "' (" + what + ") has no data for node '" + n.name + "'";
      d.explanation = weight ? "The program carries no bytes for it (exported on the meta device, or saved without it). "
                               "Supply it with --weights FILE (or --constants FILE for a lifted constant)."
                             : "Give the program its inputs (--inputs FILE or --random-inputs SEED).";
      d.arguments = k.argumentsSoFar(stack);
      return fail(std::move(d));
    } catch (const RunCancelled&) {
      return {StopReason::Cancelled, {}};  // the node did not finish: it runs anew when the run goes on
    } catch (const PythonCallCancelled&) {
      return {StopReason::Cancelled, {}};
    } catch (const PythonCallError& e) {
      Diagnosis d = baseDiagnosis(n);
      d.kind = DiagnosisClass::PythonError;
      d.schema = k.schema();
      d.message = firstLine(e.what());
      d.traceback = e.traceback();
      d.arguments = k.argumentsSoFar(run.args);
      d.explanation = !e.traceback().empty()
                          ? n.target + " raised in Python (" + pythonHostLabel() +
                                "). The traceback below is the worker's; the arguments are what it was called with."
                      : e.workerEnded() ? n.target + " runs in Python (" + pythonHostLabel() +
                                              "); the call did not complete. The next call starts a new worker."
                                        : n.target + " runs in Python (" + pythonHostLabel() +
                                              "); what it gave back does not fit what the program expects.";
      return fail(std::move(d));
    } catch (const SubgraphFailure& e) {
      // The inner node's diagnosis, placed on this node: the run stands here, not inside.
      Diagnosis d = e.diagnosis;
      d.message = "in " + e.graph + ", node '" + d.nodeName + "' (" + d.opType + "): " + d.message;
      d.node = n.id;
      d.nodeName = n.name;
      d.opType = n.target;
      if (d.stackTrace.empty()) d.stackTrace = n.stackTraceText();
      return fail(std::move(d));
    } catch (const c10::Error& e) {
      Diagnosis d = baseDiagnosis(n);
      d.schema = k.schema();
      d.message = firstLine(e.what_without_backtrace());
      d.arguments = k.argumentsSoFar(run.args);
      explainFailure(d);
      if (d.kind == DiagnosisClass::DtypeMismatch) explainWeightsOfOtherDtype(n, d);
      explainRuntimeAssertion(n, d);
      return fail(std::move(d));
    } catch (const std::exception& e) {
      Diagnosis d = baseDiagnosis(n);
      d.kind = DiagnosisClass::RuntimeError;
      d.schema = k.schema();
      d.message = firstLine(e.what());
      d.arguments = k.argumentsSoFar(run.args);
      d.explanation = "The engine could not call this node.";
      return fail(std::move(d));
    }
    run.executed = true;
    if (m_budget.account(id, m_values)) {
      snapshotRecordsUpTo(id);  // the argument views keep their summaries, not the tensors
      m_budget.release(id, m_values);
    }
    return checkStopConditions(n);
  }

  /// A runtime assertion torch.export recorded (`_assert_scalar` of a test on sizes known only at
  /// run time: `.item()`, `nonzero`, a torch._check) that does not hold: what the program assumed,
  /// in torch's words, and the values the test was made of, with the nodes that made them.
  void explainRuntimeAssertion(const Node& n, Diagnosis& d) const {
    if (n.target != "aten._assert_scalar.default" || n.inputs.empty() || n.inputs[0].values.empty()) return;
    const Value& tested = m_p.value(n.inputs[0].values.front());
    if (tested.producer == kNone) return;
    const Node& test = m_p.node(tested.producer);
    std::string values;
    for (ValueId v : valuesNamedBy(test)) {
      const Value& operand = m_p.value(v);
      const c10::IValue& iv = m_values[static_cast<std::size_t>(v)];
      if (iv.isNone()) continue;
      values += (values.empty() ? "" : ", ") + operand.name + " = " + summarize(iv).text;
      if (operand.producer != kNone) {
        const Node& made = m_p.node(operand.producer);
        values += " (" + made.target + " at node '" + made.name + "')";
      }
    }
    // torch's message: "Runtime assertion failed for expression u0 <= 5 on node 'le_1'"
    std::string expression = d.message;
    if (const auto from = expression.find("expression "); from != std::string::npos) {
      expression = expression.substr(from + 11);
      if (const auto to = expression.rfind(" on node "); to != std::string::npos) expression.resize(to);
    }
    d.kind = DiagnosisClass::SymbolOutOfRange;
    d.explanation = "The program assumes " + expression + " (torch.export recorded it: a torch._check, or a size it "
                    "reasoned about), and at run time it does not hold" + (values.empty() ? "" : ": " + values) +
                    ". Give inputs for which it holds, or export again with the range these inputs need.";
  }

  /// A dtype mismatch at an op that takes a weight the weights file gave another dtype: the cast
  /// that fixes it.
  void explainWeightsOfOtherDtype(const Node& n, Diagnosis& d) const {
    if (m_options.castWeightsToExport) return;
    const auto other = weightsOfOtherDtype(m_p);
    std::string names;
    const WeightOfOtherDtype* last = nullptr;
    for (const NodeArgument& a : n.inputs)
      for (ValueId v : a.values)
        if (const InputSpec* spec = m_p.inputSpecFor(v))
          for (const auto& w : other)
            if (w.name == spec->target) names += (names.empty() ? "'" : ", '") + w.name + "'", last = &w;
    if (!last) return;
    d.explanation += " " + names + (names.find(',') == std::string::npos ? " is " : " are ") +
                     std::string(dtypeName(last->given)) + " in the weights given, " +
                     std::string(dtypeName(last->exported)) +
                     " in the export: cast the weights to the export's dtypes (--cast-weights).";
  }

  StepOutcome checkStopConditions(const Node& n) {
    if (!m_stops.nanOrInf && !m_stops.dtypeDiffers && !m_stops.shapeDiffers) return {StopReason::Stepped, {}};
    const NodeRecord& rec = *record(n.id);
    for (std::size_t i = 0; i < n.outputs.size(); ++i) {
      const Value& v = m_p.value(n.outputs[i]);
      const c10::IValue& iv = m_values[static_cast<std::size_t>(v.id)];
      if (!iv.isTensor()) continue;
      Diagnosis d = baseDiagnosis(n);
      d.arguments = rec.arguments;
      d.schema = rec.schema;
      const ValueSummary& s = rec.outputs[i];
      if (m_stops.nanOrInf && hasNanOrInf(iv)) {
        d.kind = DiagnosisClass::NanOrInf;
        d.message = "output '" + v.name + "' holds NaN or Inf";
      } else if (m_stops.dtypeDiffers && s.dtype != v.dtype) {
        d.kind = DiagnosisClass::DtypeDiffersFromExport;
        d.message = "output '" + v.name + "' is " + std::string(dtypeName(s.dtype)) + ", export recorded " +
                    std::string(dtypeName(v.dtype));
      } else if (m_stops.shapeDiffers && !sameShape(v.shape, s.sizes)) {
        d.kind = DiagnosisClass::ShapeDiffersFromExport;
        d.message = "output '" + v.name + "' has a shape other than the one export recorded";
      } else {
        continue;
      }
      return {StopReason::StopCondition, std::move(d)};
    }
    return {StopReason::Stepped, {}};
  }

  static bool sameShape(const std::vector<Dim>& recorded, const std::vector<int64_t>& actual) {
    if (recorded.size() != actual.size()) return false;
    for (std::size_t i = 0; i < actual.size(); ++i)
      if (!recorded[i].isSymbolic() && recorded[i].hint != actual[i]) return false;
    return true;
  }

  const Program& m_p;
  SessionOptions m_options;
  c10::Device m_device;
  std::vector<std::unique_ptr<NodeKernel>> m_kernels;
  std::vector<ValueId> m_userInputs;
  std::vector<TensorData> m_inputs;
  std::optional<std::vector<BridgedWeight>> m_weights;  // bridged once, on the first reset
  WeightCache m_weightCache;                             // the weights bridged as copies, made on demand
  std::vector<std::vector<ValueId>> m_lazyReads;         // per node: the cached weights it reads
  std::vector<bool> m_constant;                          // per node: made of the program's constants alone
  ConstantResults m_constantResults;                     // their results, computed once
  bool m_keepsConstants = false;                         // the top session on the CPU keeps them
  int m_constantThreads = 0;                             // the thread count they were computed at
  FrameValues m_values;
  torch::jit::Stack m_stack;  // the boxed call's stack, reused by every node
  std::vector<NodeRun> m_runs;
  mutable std::vector<std::optional<NodeRecord>> m_records;  // built on demand from m_runs
  MemoryBudget m_budget;
  NodeId m_snapshotCursor = 0;
  NodeId m_pos = 0;
  std::set<NodeId> m_breakpoints;
  StopConditions m_stops;
  /// What a replay set aside (replayTo), while it runs.
  struct Suspended {
    std::set<NodeId> breakpoints;
    StopConditions stops;
    std::size_t budget = 0;
  };
  std::optional<Suspended> m_suspended;
  std::map<NodeId, std::vector<ArgumentPatch>> m_patches;
  std::atomic<bool> m_cancel{false};
  RunObserver* m_observer = nullptr;  // the running loop's
  std::function<bool()> m_outerCancelled;
  std::uint64_t m_executed = 0;  // nodes executed by this session, for step()
  BodyTrace* m_trace = nullptr;  // while traceBodyCalls runs its node
};

/// A subgraph runs as a session of its own: same kernels, its own frame.
class SubgraphSession final : public SubgraphRunner {
 public:
  SubgraphSession(const Subgraph& g, const SessionOptions& options, std::function<bool()> cancelled,
                  std::size_t index, std::function<BodyTrace*()> trace)
      : m_name(g.name), m_index(index), m_trace(std::move(trace)), m_session(*g.graph, options, std::move(cancelled)) {}
  std::vector<c10::IValue> run(const std::vector<c10::IValue>& operands) override {
    BodyTrace* trace = m_trace();
    if (!trace) return m_session.runGraph(operands, m_name);
    trace->calling(m_index, operands);
    std::vector<c10::IValue> results;
    try {
      results = m_session.runGraph(operands, m_name);
    } catch (...) {
      trace->returned(m_index, nullptr);
      throw;
    }
    trace->returned(m_index, &results);
    return results;
  }
  std::vector<InnerRecord> lastRun() const override { return m_session.executedOps(m_name); }

 private:
  std::string m_name;
  std::size_t m_index;
  std::function<BodyTrace*()> m_trace;
  AtenSession m_session;
};

std::unique_ptr<SubgraphRunner> makeSubgraphRunner(const Subgraph& g, const SessionOptions& options,
                                                   std::function<bool()> cancelled, std::size_t index,
                                                   std::function<BodyTrace*()> trace) {
  return std::make_unique<SubgraphSession>(g, options, std::move(cancelled), index, std::move(trace));
}

}  // namespace

std::unique_ptr<Session> createAtenSession(const Program& program, const SessionOptions& options) {
  return std::make_unique<AtenSession>(program, options);
}

}  // namespace torchir
