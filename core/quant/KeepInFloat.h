#pragma once
// Keep in float: a quantized layer run as if the quantizer had skipped it. Its inputs are taken
// before their quantize/dequantize: the float activation the quantize node read, and the float
// program's weight where the twin's node is the same op (else the dequantized weight stays: a
// folded conv's float weights are not the twin's). What sensitivity, the own error of a
// quantized node and the studio's Keep in Float change share.
#include <functional>
#include <optional>
#include <vector>

#include "compare/NodeMatching.h"
#include "exec/Patch.h"
#include "exec/Session.h"

namespace torchir {

/// The nodes of a quantized program that take a quantized input (a dequantize node's output):
/// its quantized layers, in program order.
std::vector<NodeId> quantizedLayers(const Program& p);
bool isQuantizedLayer(const Program& p, const Node& n);

/// The value `reader` read for `value` in a's run (where an in-place op changed it since, the
/// value as it was then).
using ValueAt = std::function<std::optional<TensorData>(NodeId reader, ValueId value)>;

/// One entry per value `layer` names, for Session::rerunNode: the float value where the input is
/// quantized, nullopt (the run's own) elsewhere. `b` (the float program's run, `matching` from
/// a's program to b's) may be null: then weights stay dequantized.
std::vector<std::optional<TensorData>> inputsKeptInFloat(const Session& a, NodeId layer, const Session* b,
                                                         const NodeMatching* matching, const ValueAt& valueAt = {});

/// The same as edit-and-continue changes of `layer`'s call, for every later run of it: each
/// quantized activation argument taken from the value before its quantize node, each quantized
/// weight replaced by the twin's (where `b` is given and its node is the same op). Empty when
/// the layer takes no quantized input.
std::vector<ArgumentPatch> keepInFloatPatches(const Program& a, NodeId layer, const Session* b,
                                              const NodeMatching* matching);

}  // namespace torchir
