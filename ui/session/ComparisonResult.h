#pragma once
// What the studio compares its run with (CompareRequest), and the comparison itself: the engine's
// one record (compare/ComparisonRecord), shared read-only by the views.
#include <QString>
#include <memory>

#include "compare/ComparisonRecord.h"
#include "compare/PairedRun.h"
#include "debug/Reference.h"

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

/// The reference the core makes of it.
torchir::ReferenceSpec referenceSpec(const CompareRequest& request);

using ComparisonResult = torchir::ComparisonRecord;
using ComparisonPtr = std::shared_ptr<const ComparisonResult>;

}  // namespace torchir::ui
