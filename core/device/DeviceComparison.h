#pragma once
// The device's values (an ETDump) against the Edge program's (an ETRecord) run by the engine:
// per instruction how far apart, the first that diverges, and whether its own kernel is wrong
// or the error came in from upstream.
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "compare/TensorMetrics.h"
#include "device/DeviceRun.h"

namespace torchir {

class RunObserver;

struct DeviceRow {
  std::size_t instruction = 0;  // entry in DeviceRun::instructions
  int output = 0;               // which of its outputs
  NodeId node = kNone;          // the Edge node it is paired with
  TensorMetrics metrics;        // the device (a) against the float32 reference (b)
  std::optional<TensorMetrics> floor;  // the float32 reference against float64 at that node
  double tolerance = 0;
  bool codes = false;           // integer (quantized) values: compared as codes, one step allowed
  bool diverges = false;
  /// For a diverging row: the instruction's Edge nodes run again on the device's own inputs to it.
  enum class Cause : uint8_t { NotMeasured, Kernel, Upstream } cause = Cause::NotMeasured;
  std::optional<TensorMetrics> local;  // the device against that local run
  std::string causeProblem;            // why the local run was not made
  std::string problem;                 // why nothing was compared
  std::string causeText() const;
};

struct DeviceComparison {
  std::string method;
  DeviceRun run;
  std::vector<DeviceRow> rows;          // in instruction order
  std::optional<std::size_t> firstDivergence;  // entry in rows
  std::string referenceFailure;         // where the engine's run of the Edge program failed
  std::string inputs;                   // the words for the inputs it ran on
  /// The method's outputs as the device logged them, against the reference's.
  std::vector<TensorMetrics> outputs;
};

/// Runs `record`'s Edge program on `inputs` (none: its representative inputs) in float32 and,
/// as the noise floor, float64, and compares each value `dump` logged with it. `pte` names the
/// instructions' kernels. `observer` can cancel the runs. Throws std::runtime_error when the
/// program cannot be run at all.
DeviceComparison compareDevice(const EtRecord& record, const EtDump& dump, const PteProgram* pte,
                               const std::vector<TensorData>* inputs, RunObserver* observer = nullptr);

}  // namespace torchir
