#pragma once
// Two runs stepped in lockstep: the run under test (A) and a reference (B): the same program at
// float64, with other weights, on another device, or another export of the model. After each node
// of A, B runs to the node that stands for it, and their outputs are compared then, so the runs
// hold what they would hold anyway plus one pair of tensors at a time.
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "NodeMatching.h"
#include "TensorMetrics.h"
#include "compare/ComparisonExtension.h"
#include "compare/ComparisonRecord.h"
#include "compare/NodeComparison.h"
#include "exec/Session.h"

namespace torchir {

struct CompareOptions {
  /// A node diverges when its output's max relative difference passes this; 0: by the dtypes
  /// compared (defaultTolerance), or wider where the comparison's extension says.
  double tolerance = 0;
  /// A node's own error (the node re-run in B's setting on A's inputs) is measured for nodes whose
  /// difference reaches this fraction of the tolerance: below it a node adds nothing worth naming.
  double ownErrorFrom = 0.1;
};

/// What float32, float16 and bfloat16 can be asked for (a few units of their rounding, grown by
/// the sums of a layer): 1e-3, 1e-2, 5e-2; 1e-9 for float64; integers must be equal.
double defaultTolerance(DType d);
/// Two runs compared in two dtypes: the coarser one's (a float32 run against bfloat16 is held to
/// bfloat16's rounding).
double defaultTolerance(DType a, DType b);

enum class CompareStop : uint8_t { None, Divergence, Nonfinite };

class PairedRun {
 public:
  /// Both sessions have their inputs; `matching` is from A's program to B's. `extension` adds what
  /// a kind of program needs (quantComparison); null: none.
  PairedRun(Session& a, Session& b, NodeMatching matching, CompareOptions options = {},
            std::shared_ptr<const ComparisonExtension> extension = nullptr);

  /// Runs A (and B with it) to the end, or to the next node that starts a divergence or makes a
  /// non-finite value (`stop`); again to go on. `outer` (the studio's, a command's) is asked and
  /// told as a plain run's observer is.
  StepOutcome run(CompareStop stop = CompareStop::None, RunObserver* outer = nullptr);

  /// The compared nodes, in the order A ran them.
  const std::vector<NodeComparison>& nodes() const { return m_nodes; }
  /// What has been compared so far, as everyone keeps it; `reference` says what B is, and
  /// `referenceProgram` is B's program.
  ComparisonRecord record(std::string reference, std::shared_ptr<const Program> referenceProgram) const;
  const NodeComparison* comparisonOf(NodeId a) const;
  const NodeComparison* firstDivergence() const;
  const NodeComparison* firstNonfinite() const;
  /// B's own failure, which ends the comparison of the nodes after it (A runs on).
  const Diagnosis& bFailure() const { return m_bFailure; }
  const NodeMatching& matching() const { return m_matching; }

  /// The nodes of A that `node`'s outputs depend on, itself included, in program order: where a
  /// non-finite value can come from.
  std::vector<NodeId> backwardSlice(NodeId node) const;

 private:
  class Observer;
  void compareNode(NodeId a);
  std::optional<double> ownError(const Node& na, NodeId b, int output, const TensorData& outA, std::string& problem,
                                 std::optional<double>& sqnrDb);
  bool inputsDiverged(const Node& na) const;
  bool inputsFinite(const Node& na);

  Session& m_a;
  Session& m_b;
  NodeMatching m_matching;
  CompareOptions m_options;
  std::shared_ptr<const ComparisonExtension> m_extension;  // never null
  std::vector<NodeComparison> m_nodes;
  std::vector<int32_t> m_index;          // per node of A: its entry in m_nodes, or -1
  std::vector<int8_t> m_valueDiverged;   // per value of A: 1 when its producer diverged
  std::vector<int8_t> m_valueFinite;     // per value of A: -1 unknown, 0 no, 1 yes
  Diagnosis m_bFailure;
};

}  // namespace torchir
