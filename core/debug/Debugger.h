#pragma once
// The debugger: one run of a program and, while it is compared, a reference run paired with it.
// Step, run to, step back, compare, keep in float, layer sensitivity, edit and continue, captures
// and repros, written once for every front end: the command line's verbs call it and print, the
// studio posts jobs that call it on its engine thread and shows what they report. No Qt here.
// Everything runs on the caller's thread; a RunObserver cancels, sees breakpoints and progress.
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "capture/CaptureFile.h"
#include "check/ProgramCheck.h"
#include "debug/Reference.h"
#include "debug/RunInputs.h"
#include "repro/Repro.h"

namespace torchir {

/// The program a debugger runs, and the files it came from.
struct DebugTarget {
  std::shared_ptr<const Program> program;
  std::string path, constantsPath;  // its files: a capture names the program; other weights are read with it
  InputsChoice inputs;
  bool castWeights = false;  // weights of another dtype cast to the export's
  /// Opened from a capture: its inputs and changes, and the run made again up to where it stood
  /// when first needed.
  std::shared_ptr<const Capture> capture;
  std::string capturePath;
  /// A body run on its own runs under the autocast region its node ran it in.
  std::optional<AutocastRegion> autocast;
  /// A body run on its own (runOnCall): `path` is the file of the program around it, not its own.
  bool isBody = false;
};

/// One call of a body of `parent`'s program, as a program of its own: the subgraph, run on the
/// call's operands under the call's autocast region (runOnCall); `description` names the call for
/// the inputs' words ("iteration 3 of body_graph_0 at node map_impl"). Throws std::out_of_range
/// for a call of another program.
DebugTarget bodyTarget(const DebugTarget& parent, const BodyCall& call, std::string description);
/// `body`'s run takes the call's operands as its inputs and runs under its autocast region.
void runOnCall(DebugTarget& body, const BodyCall& call, std::string description);

/// Compare starts a paired run; CompareOn runs it on; Sensitivity measures each quantized layer.
/// Replay: a job that ended in making a capture's run again (it failed or was stopped there).
/// RunUpTo stops before its node (RunTo after it).
enum class DebugCommand : uint8_t { Step, StepBack, Continue, RunTo, RunUpTo, Reset, Compare, CompareOn, Replay, Sensitivity };

/// The records of the nodes that ran since the last progress taken. Nodes run in order, so
/// everything before `position` has run.
struct DebugProgress {
  bool restart = false;   // the run was made anew: earlier records are void
  NodeId firstRecord = 0;  // records[i] is node firstRecord + i
  std::vector<std::shared_ptr<const NodeRecord>> records;  // copies; null: the node did not run
  NodeId position = 0;     // program().nodes.size() when finished
  bool finished = false;
};

/// How a job ended.
struct DebugOutcome {
  DebugCommand command = DebugCommand::Step;
  StopReason reason = StopReason::Stepped;
  Diagnosis diagnosis;
  std::shared_ptr<const ComparisonRecord> comparison;  // a paired job's, what it compared so far
};

/// A value's tensor, or why there is none to show.
struct ValueAnswer {
  std::optional<TensorData> tensor;
  std::string why;
};

/// A compared node's output in the run and the reference, and their difference; or why not.
struct ComparedAnswer {
  std::optional<TensorData> run, reference, difference;
  std::string why;
};

/// A change of a node's call the run took (problem empty) or refused.
struct CallChange {
  NodeId node = kNone;
  std::vector<ArgumentPatch> patches;
  std::string problem;
};

/// A job's end in a failure around the run (no node's own): a RuntimeError with `message`.
DebugOutcome failedOutcome(DebugCommand command, std::string message);

class Debugger {
 public:
  explicit Debugger(DebugTarget target);
  ~Debugger();

  /// Creates the run (the backend's, with its Python as set now) and gives it its inputs, or the
  /// capture's; the words for the inputs. `abandoned`: a Python worker's start gives up when it
  /// says so. Throws LoadError (the inputs file, the capture) or std::runtime_error.
  std::string start(std::function<bool()> abandoned = {});
  /// What would stop the run, found without running it.
  std::vector<Problem> check() const;

  const DebugTarget& target() const { return m_target; }
  const Program& program() const { return *m_target.program; }
  Session& session() { return *m_session; }
  const Session& session() const { return *m_session; }

  /// Step, StepBack, Continue, RunTo `target`, Reset; a capture's run is made again first. Never
  /// throws: the engine failing around a node is a Failed outcome.
  DebugOutcome execute(DebugCommand command, NodeId target, const StopConditions& stops, RunObserver* observer);
  /// The records since the last progress taken (all of them after a restart).
  DebugProgress takeProgress();

  /// Starts a paired run against `spec`'s reference from the start and runs it to `stop`. Throws
  /// (LoadError, std::runtime_error) when the reference cannot be made; a run's failure is the outcome's.
  DebugOutcome compare(const ReferenceSpec& spec, CompareStop stop, RunObserver* observer);
  /// Runs the paired run on to its next stop.
  DebugOutcome continueComparison(CompareStop stop, RunObserver* observer);
  /// The paired run (null: nothing compared), and what it compared so far as everyone keeps it.
  const PairedRun* pairedRun() const { return m_reference ? m_reference->run.get() : nullptr; }
  std::shared_ptr<const ComparisonRecord> comparison() const;
  /// Layer sensitivity: the comparison with the float program to its end, then each quantized
  /// layer kept in float alone (quant/Sensitivity). `progress(done, total)`; false cancels.
  DebugOutcome layerSensitivity(const std::function<bool(std::size_t, std::size_t)>& progress, RunObserver* observer);
  /// Keep in Float: each layer takes its keep-in-float changes (the float program's weights where
  /// the comparison is with it), told to `changed`; then the comparison (or the run) is made again.
  DebugOutcome keepInFloat(const std::vector<NodeId>& layers, const StopConditions& stops, RunObserver* observer,
                           const std::function<void(const CallChange&)>& changed);

  /// Every later run of `node` takes `patches`; the change, or why it was refused.
  CallChange changeCall(NodeId node, const std::vector<ArgumentPatch>& patches);
  /// A capture's run waits to be made again by the next job that needs it.
  bool replayPending() const { return m_replayTo.has_value(); }
  /// The next node's call with and without `patches` (a capture's run made again first).
  PatchTrial tryPatches(NodeId node, const std::vector<ArgumentPatch>& patches, RunObserver* observer);

  /// Every call of a higher-order node's bodies, its node run once more on the run's values (a
  /// capture's run made again first); the run is left as it was. Operands and results past a
  /// part of the memory are counted, not kept. Throws std::runtime_error when it cannot run again.
  BodyCalls bodyCalls(NodeId node, RunObserver* observer);

  /// What the views show of a value: a copy of its tensor, or why there is none.
  ValueAnswer tensor(ValueId value) const;
  ComparedAnswer compared(NodeId node) const;
  /// A comparison made outside a paired run (a device's values against this run's: core/device)
  /// shown as this run's comparison until the run starts anew: `record` compares `values` (per
  /// node, its value elsewhere, the record's side a) with this run's (side b).
  void adoptComparison(std::shared_ptr<const ComparisonRecord> record, std::map<NodeId, TensorData> values);
  /// The adopted comparison's other side, by node (empty without one).
  const std::map<NodeId, TensorData>& adoptedValues() const { return m_adoptedValues; }

  /// A repro of `part`: a run of its own with this run's inputs and changes, to the part's end;
  /// then its files at `path`, the .pt2 first.
  struct ReproFiles {
    Repro repro;
    std::vector<std::string> files;
  };
  ReproFiles exportRepro(const ReproPart& part, const std::string& path, RunObserver* observer);
  /// Completes `capture` with the program's reference (its bytes too, when `embedProgram`), the
  /// run's inputs and the `pinned` values' tensors, and writes it to `path`. A body has no file of
  /// its own: it is written beside the capture as `<capture stem>.body.pt2`, which the capture
  /// names (std::invalid_argument when the body has symbolic sizes, which that writer refuses).
  void saveCapture(const std::string& path, Capture capture, const std::vector<ValueId>& pinned, bool embedProgram);

 private:
  void startFromCapture(const Capture& capture);
  StepOutcome replayCapture(RunObserver* observer);
  DebugOutcome runComparison(CompareStop stop, RunObserver* observer);
  void restart();

  DebugTarget m_target;
  std::unique_ptr<Session> m_session;
  RunInputs m_inputs;                     // a reference run gets the same
  std::unique_ptr<Reference> m_reference;  // the last comparison's, kept for its tensors until the run starts anew
  /// An adopted comparison (adoptComparison), and its other side's values; it wins over m_reference's.
  std::shared_ptr<const ComparisonRecord> m_adopted;
  std::map<NodeId, TensorData> m_adoptedValues;
  /// The node the capture stood at (nodes.size(): finished), until the run is made again.
  std::optional<NodeId> m_replayTo;
  /// The capture's pinned tensors, by value: what the views can show before the run is made again.
  std::map<ValueId, TensorData> m_pinned;
  NodeId m_reportedUpTo = 0;  // records before this node have been taken
  bool m_restartPending = false;
};

}  // namespace torchir
