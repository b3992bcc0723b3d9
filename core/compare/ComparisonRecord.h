#pragma once
// A comparison as everyone keeps it: the engine makes it (PairedRun::record), the studio's table,
// graph and status bar show it, and a capture holds it by node names (capture/CaptureFile's
// namedComparison and comparisonFromNames, the one pair of converters).
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "compare/NodeComparison.h"
#include "program/Program.h"

namespace torchir {

struct SensitivityResult;  // a quantization debugger's finding (quant/LayerSensitivity.h)

struct ComparisonRecord {
  std::string reference;         // what the run was compared with: "float64", "other.pt2", "weights w.safetensors"
  std::string referenceFailure;  // "node: message" where the reference run failed
  /// The reference run's program: the run's own (a shadow) or another file's; what
  /// NodeComparison::b names. A capture's record has the run's program here.
  std::shared_ptr<const Program> referenceProgram;
  std::vector<NodeComparison> nodes;                        // in the order the run made them
  std::vector<std::string> onlyInProgram, onlyInReference;  // node names
  /// The first node that makes a NaN or Inf from finite inputs, and the nodes it depends on
  /// (sorted).
  NodeId firstNonfinite = kNone;
  std::vector<NodeId> nonfiniteSlice;
  /// The final output's SQNR (torchao's) once both runs have ended.
  std::optional<double> outputSqnrDb;
  /// The run's program takes quantized inputs somewhere (a dequantize node feeds an op): layer
  /// sensitivity and keep in float apply.
  bool quantized = false;
  /// Quantize/dequantize nodes of the run's program; reference nodes folded into the run's.
  std::size_t quantizationNodes = 0;
  std::vector<std::string> foldedInReference;
  /// A device's run (an ExecuTorch ETDump) against the program: side a is the device's values,
  /// NodeComparison::deviceMs its latencies (core/device).
  bool device = false;
  /// Each quantized layer kept in float alone (Compare › Layer Sensitivity); null until asked.
  std::shared_ptr<const SensitivityResult> sensitivity;

  /// Rebuilds the per-node index after `nodes` changed; `programNodes` is the run's program's size.
  void index(std::size_t programNodes);
  const NodeComparison* of(NodeId node) const;
  /// The first node in run order that starts a divergence or makes a NaN/Inf from finite inputs:
  /// where the studio takes the user after a comparison. Found by index().
  const NodeComparison* firstDivergingNode() const;
  bool inNonfiniteSlice(NodeId node) const;

 private:
  std::vector<int32_t> m_indexOf;  // per node of the program: its entry in `nodes`, or -1
  std::size_t m_firstDiverging = SIZE_MAX;  // its entry in `nodes`; none when past the end
};

}  // namespace torchir
