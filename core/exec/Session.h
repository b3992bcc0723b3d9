#pragma once
#include <atomic>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "ExecTypes.h"
#include "Patch.h"

namespace torchir {

/// Why a step, run-to or run returned.
enum class StopReason : uint8_t { Stepped, Finished, Breakpoint, StopCondition, Failed, Cancelled };
std::string_view stopReasonName(StopReason r);

struct StepOutcome {
  StopReason reason = StopReason::Stepped;
  Diagnosis diagnosis;  // set for Failed and StopCondition
};

/// What a replay keeps of the values it makes again: what the memory budget allows, or every one
/// (a repro reads all of its part's values at the part's end).
enum class Replay : uint8_t { WithinBudget, KeepEveryValue };

/// How a session runs its program: as exported, as a shadow at another floating dtype (the
/// reference of a comparison), or on another device.
struct SessionOptions {
  /// Floating weights and inputs are cast to this dtype; Unknown keeps them as they are.
  DType floatingAs = DType::Unknown;
  /// "cpu", or a device such as "cuda" that weights and inputs are moved to (ops follow them).
  std::string device = "cpu";
  /// Weights whose data has another dtype than the export recorded (weightsOfOtherDtype) are cast
  /// to the recorded one.
  bool castWeightsToExport = false;
  /// The most bytes of weights held as copies of their own (cast to floatingAs or to the export's
  /// dtype, or aligned), made when a node needs them; 0: a quarter of the usable memory.
  std::size_t weightCacheBytes = 0;
  /// True when the session is no longer wanted while it is made: a Python worker it starts
  /// (importing torch and the user's modules) is stopped, and the session is not made.
  std::function<bool()> abandoned = {};
  /// Every node runs under this autocast region: for a body run on its own (BodyCall::autocast),
  /// as the higher-order node around it ran it.
  std::optional<AutocastRegion> autocast = {};
};

/// What drives a run between two nodes: the command line, the studio's engine thread, a
/// comparison. Every run goes through one loop (step, runTo and run differ only in where it ends),
/// which asks its observer before and tells it after each node.
class RunObserver {
 public:
  virtual ~RunObserver() = default;
  /// Asked before every node, a subgraph's included (a while_loop's millionth iteration too): true
  /// stops the run there, Cancelled; the node has not run.
  virtual bool cancelled() { return false; }
  /// Before a node of the program runs; breakpoints are looked at after this.
  virtual void beforeNode(NodeId /*next*/) {}
  /// After a node of the program ran: true stops the run there (StopCondition), `why` saying why.
  virtual bool afterNode(NodeId /*node*/, Diagnosis& /*why*/) { return false; }
};

/// One run of a program, node by node (nativert's model: the program is immutable and kernels are
/// resolved once; all run state lives here, so reset() is a new frame). Not thread-safe: one owner
/// thread calls everything but requestCancel().
class Session {
 public:
  virtual ~Session() = default;
  virtual const Program& program() const = 0;

  /// User inputs in user-input order. Checks count, dtype, rank and symbolic-dimension ranges;
  /// a problem comes back as a diagnosis and the inputs stay unset. Resets the run.
  virtual Diagnosis setInputs(const std::vector<TensorData>& inputs) = 0;
  /// Random inputs of the recorded shapes and dtypes (symbolic sizes at their export hint).
  virtual Diagnosis setRandomInputs(uint64_t seed) = 0;

  /// The node that runs next; program().nodes.size() when finished.
  virtual NodeId position() const = 0;
  virtual bool finished() const = 0;
  /// Runs the next call_function node (placeholders and getitem nodes are passed on the way).
  virtual StepOutcome step(RunObserver* observer = nullptr) = 0;
  /// Runs until `node` has run (or something stops the run first).
  virtual StepOutcome runTo(NodeId node, RunObserver* observer = nullptr) = 0;
  /// Runs until `node` is the next to run (or something stops the run first): it has not run.
  virtual StepOutcome runUpTo(NodeId node, RunObserver* observer = nullptr) = 0;
  /// Runs to the end, stopping before a breakpoint (not the one it starts at), after a node that
  /// meets a stop condition or that the observer stops at, at a failure, or when cancelled.
  virtual StepOutcome run(RunObserver* observer = nullptr) = 0;
  /// Makes the run again from the inputs until `next` is the next node to run (nodes.size(): to
  /// the end), as the forward run went (ops are deterministic at a given thread count; the call
  /// changes of setPatches apply): breakpoints and stop conditions are suspended, and with
  /// Replay::KeepEveryValue the memory budget too, so every value made stays held; all three are
  /// restored after. Stepped (Finished at the end) when it got there, else Failed or Cancelled
  /// (through the observer) where it stopped short. Step back, a capture reopened and a repro's
  /// run are this one replay.
  virtual StepOutcome replayTo(NodeId next, RunObserver* observer = nullptr, Replay keep = Replay::WithinBudget) = 0;
  /// Goes back one op: the last node that did work is the next to run again, and every value is
  /// what the forward run had there (replayTo it). Nothing happens at the start.
  virtual StepOutcome stepBack(RunObserver* observer = nullptr) = 0;
  virtual void reset() = 0;

  virtual void setBreakpoints(const std::set<NodeId>& nodes) = 0;
  virtual void setStopConditions(const StopConditions& conditions) = 0;
  /// Intermediate values are kept for inspection until they exceed this many bytes (default: a
  /// quarter of RAM); then values no later node needs are released, oldest first.
  virtual void setMemoryBudget(std::size_t bytes) = 0;
  /// True for a value released by the memory budget (its node ran; its tensor is gone).
  virtual bool released(ValueId value) const = 0;
  /// Safe from any thread: the run stops between two nodes (of a subgraph too).
  virtual void requestCancel() = 0;

  /// The nodes that cannot run whatever the inputs, known before running (an op this libtorch
  /// lacks, a custom op without an executor, a call that does not fit its schema): the diagnosis
  /// each would fail with, in node order.
  virtual std::vector<Diagnosis> plannedProblems() const = 0;
  /// What will run `node`, as its record will say: the op's schema, marked "[run in Python ...]"
  /// or "(Python executor)" where the user's Python runs it; "" for a node that does no work.
  virtual std::string plannedSchema(NodeId /*node*/) const { return {}; }

  /// Edit and continue: every later run of `node` (a step back's replay too) calls it with these
  /// arguments changed; an empty list takes the change back. Throws std::invalid_argument when the
  /// node's call cannot be edited or has no such argument (then nothing changes).
  virtual void setPatches(NodeId node, std::vector<ArgumentPatch> patches) = 0;
  virtual const std::map<NodeId, std::vector<ArgumentPatch>>& patches() const = 0;
  /// The next node's call as it would run now and with `patches` instead, on the values it gets
  /// now; the run stays as it was. Throws std::runtime_error when `node` is not the next to run.
  virtual PatchTrial tryPatches(NodeId node, const std::vector<ArgumentPatch>& patches) = 0;

  /// What a node's last run recorded; nullptr if it has not run since the last reset.
  virtual const NodeRecord* record(NodeId node) const = 0;
  /// A copy of a value computed in this run, if it is a tensor that is still held.
  virtual std::optional<TensorData> tensor(ValueId value) const = 0;
  /// The same value's bytes without a copy where they allow, kept alive by the view: for reading
  /// at once (a later node may write the tensor in place), as a comparison does.
  virtual std::optional<TensorData> tensorView(ValueId value) const = 0;
  /// User outputs in order, once finished.
  virtual std::vector<TensorData> outputs() const = 0;

  /// Runs a node that has run once more, on other values for some of its arguments, and leaves
  /// the run as it was: `inputs` has one entry per value the node's arguments name
  /// (NodeArgument::values, in order), nullopt to keep the run's. A given tensor is cast to the
  /// dtype and device of the value it stands for. Returns the node's outputs (nullopt for one that
  /// is not a tensor). Throws std::runtime_error when the node cannot run again.
  virtual std::vector<std::optional<TensorData>> rerunNode(NodeId node,
                                                           const std::vector<std::optional<TensorData>>& inputs) = 0;
  /// Runs a higher-order node that has run, or runs next, once more on the run's values, keeping a
  /// copy of every call of its bodies (up to `maxBytes` of operands and results), and leaves the
  /// run as it was. `observer` can cancel it between two nodes of a body (its failure then says
  /// so). Throws std::runtime_error when the node has not run and is not next, has no body, or
  /// its values are gone.
  virtual BodyCalls traceBodyCalls(NodeId node, std::size_t maxBytes, RunObserver* observer = nullptr) = 0;
};

}  // namespace torchir
