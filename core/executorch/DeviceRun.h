#pragma once
// A device's run (an ETDump) tied to the Edge program it ran (an ETRecord): per instruction, the
// Edge nodes it stands for, the values it made and how long it took.
#include <optional>
#include <string>
#include <vector>

#include "executorch/EtDump.h"
#include "executorch/EtRecord.h"
#include "executorch/PteProgram.h"

namespace torchir {

struct DeviceInstruction {
  int id = -1;                   // instruction id in chain 0
  std::string kernel;            // "aten::cumsum.out", "XnnpackBackend", or the event's name
  bool delegated = false;
  std::vector<int> handles;      // the ETRecord's debug handles of the instruction
  std::vector<NodeId> nodes;     // the Edge nodes of those handles, in program order
  std::vector<TensorData> inputs;   // a delegate call's logged inputs (its arguments before its outputs)
  std::vector<TensorData> outputs;  // what it made, as the device logged it
  /// Per output, the Edge node whose value it is (kNone where none of `nodes` makes that dtype
  /// and shape): the last of `nodes` that does, which is where a fused region ends.
  std::vector<NodeId> outputNodes;
  std::vector<ValueId> outputValues;  // per output, the value of its node it is (kNone with no node)
  std::optional<double> p50Ms;   // the instruction's own event (OPERATOR_CALL / DELEGATE_CALL), over the runs
  /// The delegate's own events inside the call ("Fully Connected (NC, F32) GEMM #1"), p50 in ms.
  std::vector<std::pair<std::string, double>> delegateEvents;
  std::string problem;           // why its values cannot be compared, "" when they can
};

struct DeviceRun {
  std::vector<DeviceInstruction> instructions;  // in instruction order
  std::size_t runs = 0;                          // runs the latencies are taken over
  std::vector<TensorData> methodOutputs;         // the method's outputs as logged
  /// Edge node -> its entry in `instructions` whose output it is (-1: none).
  std::vector<int> instructionOfNode;
  const DeviceInstruction* of(NodeId node) const;
};

/// Pairs `dump`'s events of method `record.method` with `program` (the record's Edge program, as
/// read with it or by the studio) through the record's debug handle map. `pte`, when given, names
/// each instruction's kernel or backend. Throws LoadError naming the record when its map names
/// Edge nodes in more instructions than a real one does.
DeviceRun pairDeviceRun(const Program& program, const EtRecord& record, const EtDump& dump, const PteProgram* pte = nullptr);

/// numpy's percentile (linear interpolation) of `values`, which it sorts; 0 for none.
double percentile(std::vector<double> values, double q);

}  // namespace torchir
