#pragma once
// What a comparison of the studio's run with a reference gives the views: each compared node's
// metrics (compare/PairedRun), by the program's NodeId, made on the engine thread.
#include <QString>
#include <memory>
#include <string>
#include <vector>

#include "compare/PairedRun.h"

namespace torchir::ui {

/// What the run is compared with.
struct CompareRequest {
  enum Kind { Dtype, File, Weights } kind = Dtype;
  torchir::DType dtype = torchir::DType::Float64;  // Dtype: the shadow's floating dtype
  QString path;                                    // File: another program; Weights: a weights file
  /// Where the paired run stops (again: "next divergence"); None runs to the end.
  torchir::CompareStop stop = torchir::CompareStop::None;
  /// Max relative difference a node may have; 0: by the run's dtype (torchir::defaultTolerance).
  double tolerance = 0;
};

struct ComparisonResult {
  QString reference;  // "float64", "other.pt2", "weights w.safetensors"
  /// The reference run's program: this one (a shadow) or another file's; what NodeComparison::b names.
  std::shared_ptr<const torchir::Program> referenceProgram;
  std::vector<torchir::NodeComparison> nodes;  // in the order the run made them
  std::vector<int32_t> indexOf;                // per node of the program: its entry in `nodes`, or -1
  std::vector<std::string> onlyInProgram, onlyInReference;  // node names
  QString referenceFailure;                    // the reference run's failure, if it failed
  /// The first node that makes a NaN or Inf from finite inputs, and the nodes it depends on.
  torchir::NodeId firstNonfinite = torchir::kNone;
  std::vector<torchir::NodeId> nonfiniteSlice;
  bool inNonfiniteSlice(torchir::NodeId node) const;

  const torchir::NodeComparison* of(torchir::NodeId node) const {
    if (node < 0 || static_cast<std::size_t>(node) >= indexOf.size() || indexOf[static_cast<std::size_t>(node)] < 0)
      return nullptr;
    return &nodes[static_cast<std::size_t>(indexOf[static_cast<std::size_t>(node)])];
  }
};
using ComparisonPtr = std::shared_ptr<const ComparisonResult>;

}  // namespace torchir::ui
