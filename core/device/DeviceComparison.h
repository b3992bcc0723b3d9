#pragma once
// The device's values (an ETDump) against the Edge program's (an ETRecord) run by the engine:
// per instruction how far apart, the first that diverges, and whether its own kernel is wrong
// or the error came in from upstream.
#include <memory>
#include <stdexcept>
#include <optional>
#include <string>
#include <vector>

#include "compare/TensorMetrics.h"
#include "executorch/DeviceRun.h"

namespace torchir {

class RunObserver;
class Debugger;
struct DebugTarget;

struct DeviceRow {
  std::size_t instruction = 0;  // entry in DeviceRun::instructions
  int output = 0;               // which of the instruction's outputs
  int nodeOutput = 0;           // which output of `node` it is
  NodeId node = kNone;          // the Edge node it is paired with
  /// The node that names its layer: `node`, or where that has no module (a quantize, an op of the
  /// model's own forward) the last of the instruction's nodes before it that has one.
  NodeId layer = kNone;
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
  /// Entry in rows: the first, in the device's order, that diverges of its own (its kernel, or a
  /// cause not measured); where none does, the first that diverges.
  std::optional<std::size_t> firstDivergence;
  std::string referenceFailure;         // where the engine's run of the Edge program failed
  std::string inputs;                   // the words for the inputs it ran on (the caller's)
  /// The method's outputs as the device logged them, against the reference's.
  std::vector<TensorMetrics> outputs;
};

/// A debugger's target for `record`'s Edge program, on `inputs` (none: the program's sample
/// inputs, which are the record's representative inputs).
DebugTarget deviceTarget(const EtRecord& record, const std::vector<TensorData>* inputs);

/// Thrown when the observer stopped a comparison.
struct DeviceComparisonStopped : std::runtime_error {
  DeviceComparisonStopped();
};

/// Runs `debugger`'s program (`record`'s Edge program, as deviceTarget makes it or as the studio
/// opened it; started) from its start in float32 and, as the noise floor, float64, and compares each value
/// `dump` logged with it. `pte` names the instructions' kernels. `observer` can stop the runs.
/// The debugger's run is left finished; values its memory budget released are rows that say so.
/// Throws DeviceComparisonStopped when stopped, LoadError when the record's maps do not fit.
DeviceComparison compareDevice(Debugger& debugger, const EtRecord& record, const EtDump& dump, const PteProgram* pte,
                               RunObserver* observer = nullptr);

}  // namespace torchir
