#pragma once
// The Edge program framed by what runs it on the device: each instruction of the .pte that runs
// several of its nodes (a delegate call, a fused kernel) becomes a frame of the graph, labelled with
// its backend or kernel, so the graph shows the program as the device runs it.
#include <cstddef>

#include "executorch/EtRecord.h"
#include "executorch/PteProgram.h"

namespace torchir {

/// Gives the nodes of each instruction of `record`'s debug handle map that runs two or more Edge
/// nodes, or calls a delegate, a module frame "#K NAME" (NAME: the backend or kernel `plan` names,
/// else the record's delegate map's, else "instruction") inside the modules its nodes share, their
/// own modules below that inside it ("#K NAME.fc2", a child as PyTorch names one), and rebuilds the module tree. Returns the
/// frames made.
std::size_t frameByInstruction(Program& edge, const EtRecord& record, const PteProgram::Plan* plan);

}  // namespace torchir
