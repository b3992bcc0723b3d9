#pragma once
// What a kind of program adds to the lockstep comparison of two runs (PairedRun), as a few hooks
// with neutral defaults: the comparison itself knows nothing of that kind. The quantization
// debugger (core/quant) is one.
#include <optional>
#include <string>
#include <vector>

#include "compare/ComparisonRecord.h"
#include "compare/NodeMatching.h"
#include "compare/TensorMetrics.h"
#include "exec/Session.h"

namespace torchir {

/// How a node's own error is measured: which run's node runs again, on what.
struct OwnErrorRun {
  /// Reference: the reference's node on this run's values (the usual way). Program: the node of
  /// the run under test itself, on other inputs.
  enum class Side : uint8_t { Reference, Program } side = Side::Reference;
  std::vector<std::optional<TensorData>> inputs;  // one per value the node names; nullopt: that run's own
  std::string problem;                            // not measured, and why
};

class ComparisonExtension {
 public:
  virtual ~ComparisonExtension() = default;
  /// Output `v` of the run under test, `t`, in the form compared with the reference's floating
  /// value (integer codes as the numbers they stand for); nullopt: as it is.
  virtual std::optional<TensorData> comparedForm(const Program& /*a*/, ValueId /*v*/, const TensorData& /*t*/) const {
    return std::nullopt;
  }
  /// The tolerance of output `v` when none was asked for: `byDtypes` (defaultTolerance) or wider.
  virtual double tolerance(const Program& /*a*/, ValueId /*v*/, double byDtypes, const TensorMetrics& /*m*/) const {
    return byDtypes;
  }
  /// Whether node `n`'s own error is measured however small its difference is.
  virtual bool alwaysMeasureOwnError(const Program& /*a*/, const Node& /*n*/) const { return false; }
  /// How node `na`'s own error is measured (`nb`: its reference node); nullopt: the usual way,
  /// the reference's node on this run's values.
  virtual std::optional<OwnErrorRun> ownErrorRun(const Session& /*a*/, const Node& /*na*/, const Session& /*b*/,
                                                 const Node& /*nb*/, const NodeMatching& /*matching*/) const {
    return std::nullopt;
  }
  /// What it knows of the two programs, added to the record.
  virtual void annotate(ComparisonRecord& /*r*/, const Program& /*a*/, const Program& /*b*/,
                        const NodeMatching& /*matching*/) const {}
};

/// Why a node's own error cannot be measured on the reference's node.
inline constexpr const char* kArgumentsDiffer = "its arguments differ from the reference node's";

}  // namespace torchir
