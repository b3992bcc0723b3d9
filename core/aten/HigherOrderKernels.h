#pragma once
// Kernels for torch.export's higher-order ops (`torch.ops.higher_order.*`): the dispatcher does not
// hold them, and most take subgraphs (Program::subgraphs) that run on child frames through the same
// kernels as the main graph. Only for .pt2 programs: pytorch-ir's IR JSON keeps no subgraphs.
#include <functional>
#include <memory>
#include <stdexcept>
#include <string>
#include <variant>
#include <vector>

#include "ArgumentBuilder.h"

namespace torchir {

/// A subgraph ready to run on a frame of its own, its kernels resolved once (AtenSession makes it).
class SubgraphRunner {
 public:
  virtual ~SubgraphRunner() = default;
  /// Operands in placeholder order -> results in output order. Throws SubgraphFailure.
  virtual std::vector<c10::IValue> run(const std::vector<c10::IValue>& operands) = 0;
  /// The op nodes the last run executed, in order, named by the subgraph.
  virtual std::vector<InnerRecord> lastRun() const = 0;
};
using MakeSubgraphRunner = std::function<std::unique_ptr<SubgraphRunner>(const Subgraph&)>;

/// A node inside a subgraph failed: its own diagnosis, reported on the higher-order node.
struct SubgraphFailure : std::runtime_error {
  SubgraphFailure(std::string graphName, Diagnosis d)
      : std::runtime_error(d.message), graph(std::move(graphName)), diagnosis(std::move(d)) {}
  std::string graph;
  Diagnosis diagnosis;
};

/// One higher-order node, planned once.
class HigherOrderKernel {
 public:
  virtual ~HigherOrderKernel() = default;
  virtual std::string schema() const = 0;
  /// The op's results by output index (the node's getitem values pick them). Fills
  /// record.arguments with what the argument view shows (the branch taken, the iterations).
  virtual std::vector<c10::IValue> run(const FrameValues& frame, NodeRecord& record) = 0;
  /// The nodes the last run() executed inside the subgraphs, for the node's record. Asked only
  /// when the record is made: a run that nobody inspects does not pay for them.
  virtual std::vector<InnerRecord> lastRun() const { return {}; }
};

/// Why a higher-order node cannot run, found when its kernel is resolved.
struct HigherOrderProblem {
  DiagnosisClass kind = DiagnosisClass::UnsupportedHigherOrderOp;
  std::string message;
};

std::variant<std::shared_ptr<HigherOrderKernel>, HigherOrderProblem> resolveHigherOrder(
    const Program& program, const Node& node, const MakeSubgraphRunner& makeRunner);

}  // namespace torchir
