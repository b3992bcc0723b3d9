#pragma once
// How each node runs, decided once when a session is made: one class per kind of node behind one
// interface (as nativert's OpKernel), resolved by resolveNodeKernel.
#include <map>
#include <memory>
#include <stdexcept>
#include <optional>
#include <string>
#include <vector>

#include "HigherOrderKernels.h"
#include "exec/Patch.h"

namespace torchir {

/// What one execution of a node keeps: cheap enough for every node of every run.
struct NodeRun {
  bool executed = false;
  double microseconds = 0;
  bool cached = false;  // its results were an earlier run's, reused (ConstantResults): the op was not called
  std::vector<c10::IValue> args;         // a planned call's arguments (references to frame tensors)
  std::vector<ArgumentRecord> ownArgs;  // the records a kernel without a plan makes itself
  /// Forgets the last run of the node, keeping the vectors' capacity: no allocation per call.
  void clear() {
    executed = false;
    microseconds = 0;
    cached = false;
    args.clear();
    ownArgs.clear();
  }
};

/// Why a node cannot run, found when its kernel was resolved.
struct KernelProblem {
  DiagnosisClass kind = DiagnosisClass::OpNotFound;
  std::string message;
  std::vector<std::string> pythonImports;  // modules whose source defines the missing op (Diagnosis::pythonImports)
};

class NodeKernel {
 public:
  virtual ~NodeKernel() = default;
  /// False for nodes that only name values (placeholders, a .pt2's getitems, the output).
  virtual bool doesWork() const { return true; }
  virtual std::string schema() const { return {}; }
  /// The schema arguments the call writes, by index, as the parsed schema's alias info says
  /// (`Tensor(a!) self`); empty for a call that writes none or has no schema.
  virtual std::vector<std::size_t> writtenArguments() const { return {}; }
  /// Whether writtenArguments is the whole truth. False for executors, higher-order ops and ops
  /// outside ATen, whose schemas may not say, and for the norms that update their running stats
  /// in training without saying so: such a call may write any tensor it is given.
  virtual bool declaresItsWrites() const { return false; }
  /// Same arguments, same results, and nothing else done: no argument written, no randomness, no
  /// Python, no body, no check or print for its own sake. A call whose every argument is a
  /// constant of the program may then be made once per session (constantNodes).
  virtual bool pure() const { return false; }
  /// Whether an output may share memory with an argument (a view: `Tensor(a)` in the schema), so
  /// a write to one is a write to the other. True unless the schema says otherwise.
  virtual bool outputsMayAlias() const { return true; }
  /// Puts the call's arguments into `run` as run() would, without calling the op: the record of
  /// a node whose results are reused shows the arguments it was called with. The frame is as it
  /// was when it returns.
  virtual void gather(FrameValues& /*frame*/, torch::jit::Stack& /*stack*/, NodeRun& /*run*/) const {}
  /// Non-null when the node cannot run at all.
  virtual const KernelProblem* problem() const { return nullptr; }
  /// Runs the node on the frame: its results into `frame`, what its record needs into `run`.
  /// `stack` is the session's boxed stack, reused by every node. Throws MissingValue,
  /// SubgraphFailure, c10::Error or std::exception.
  virtual void run(FrameValues& frame, torch::jit::Stack& stack, NodeRun& run) = 0;
  /// The arguments as the argument view shows them after `run`.
  virtual std::vector<ArgumentRecord> arguments(const NodeRun& run) const { return run.ownArgs; }
  /// The arguments as far as they were rebuilt (`values`: the stack, or the run's arguments), for
  /// a diagnosis.
  virtual std::vector<ArgumentRecord> argumentsSoFar(const std::vector<c10::IValue>& /*values*/) const { return {}; }
  /// The nodes a higher-order node's subgraphs ran the last time.
  virtual std::vector<InnerRecord> inner() const { return {}; }
  /// Edit and continue: later runs call the op with these arguments changed (empty: as planned).
  /// Throws std::invalid_argument for a call that cannot be edited or an argument it does not have.
  virtual void setPatches(const std::vector<ArgumentPatch>& patches) {
    if (!patches.empty()) throw std::invalid_argument("this node's call is not a schema call: it cannot be edited");
  }
};

/// A kernel for a node that cannot run: its run throws the problem's message.
std::unique_ptr<NodeKernel> unsupportedKernel(KernelProblem problem, std::string schema = {});

/// What a session found of the ops the dispatcher lacks, by target: each diagnosis walks the
/// program and asks the worker once, however many nodes call the op.
using MissingOperators = std::map<std::string, KernelProblem>;

/// The kernel of node `n`: a higher-order op's subgraphs become child sessions through `make`.
/// `floatingAs`: a shadow run's floating dtype (shadowFloatingDtypes), Unknown for a plain run.
std::unique_ptr<NodeKernel> resolveNodeKernel(const Program& p, const Node& n, const MakeSubgraphRunner& make,
                                              MissingOperators& missing, DType floatingAs = DType::Unknown);

}  // namespace torchir
