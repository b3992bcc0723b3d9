#include "KeepInFloat.h"

#include <algorithm>

#include "program/QuantOps.h"

namespace torchir {
namespace {

std::size_t at(int32_t id) { return static_cast<std::size_t>(id); }

/// The values the twin's node names, one per value a's node names, where it is the same op with
/// the same arguments; empty otherwise.
std::vector<ValueId> twinValues(const Program& a, NodeId layer, const Session* b, const NodeMatching* matching) {
  if (!b || !matching || at(layer) >= matching->bOf.size() || matching->bOf[at(layer)] == kNone) return {};
  const Node& n = a.node(layer);
  const Node& nb = b->program().node(matching->bOf[at(layer)]);
  if (nb.target != n.target || valuesNamedBy(nb).size() != valuesNamedBy(n).size()) return {};
  return valuesNamedBy(nb);
}

}  // namespace

bool isQuantizedLayer(const Program& p, const Node& n) {
  if (!isOpNode(n) || quantRole(n.target) != QuantRole::None) return false;
  for (ValueId v : valuesNamedBy(n))
    if (quantizedInputOf(p, v)) return true;
  return false;
}

std::vector<NodeId> quantizedLayers(const Program& p) {
  // A quantized layer reads a dequantize node's output: only their readers are looked at, so a
  // float program of 100k nodes costs a pass of target checks, not a look at every node's values.
  std::vector<NodeId> out;
  for (const Node& d : p.nodes) {
    if (d.opcode != Opcode::CallFunction || quantRole(d.target) != QuantRole::Dequantize) continue;
    for (ValueId v : d.outputs)
      for (NodeId user : p.value(v).users)
        if (isQuantizedLayer(p, p.node(user))) out.push_back(user);
  }
  std::sort(out.begin(), out.end());
  out.erase(std::unique(out.begin(), out.end()), out.end());
  return out;
}

std::vector<std::optional<TensorData>> inputsKeptInFloat(const Session& a, NodeId layer, const Session* b,
                                                         const NodeMatching* matching, const ValueAt& valueAt) {
  const Program& pa = a.program();
  const std::vector<ValueId> named = valuesNamedBy(pa.node(layer));
  const std::vector<ValueId> twin = twinValues(pa, layer, b, matching);
  std::vector<std::optional<TensorData>> inputs(named.size());
  for (std::size_t i = 0; i < named.size(); ++i) {
    const auto q = quantizedInputOf(pa, named[i]);
    if (!q) continue;
    if (!q->isWeight()) {
      const NodeId quantize = pa.value(pa.node(q->dequantize).inputs[0].values[0]).producer;
      inputs[i] = valueAt ? valueAt(quantize, q->floatValue) : a.tensorView(q->floatValue);
    } else if (!twin.empty()) {
      inputs[i] = b->tensorView(twin[i]);
    }
  }
  return inputs;
}

std::vector<ArgumentPatch> keepInFloatPatches(const Program& a, NodeId layer, const Session* b,
                                              const NodeMatching* matching) {
  const Node& n = a.node(layer);
  const std::vector<ValueId> twin = twinValues(a, layer, b, matching);
  std::vector<ArgumentPatch> patches;
  std::size_t k = 0;  // index into valuesNamedBy order
  for (const NodeArgument& arg : n.inputs) {
    // a whole tensor argument only: a list's element cannot be changed alone
    if (arg.values.size() == 1)
      if (const auto q = quantizedInputOf(a, arg.values[0])) {
        ArgumentPatch p;
        p.argument = arg.name;
        if (!q->isWeight()) {
          p.kind = ArgumentPatch::Kind::FromValue;
          p.source = q->floatValue;
          p.origin = "kept in float: '" + a.value(q->floatValue).name + "' before its quantization";
          patches.push_back(std::move(p));
        } else if (!twin.empty()) {
          if (auto w = b->tensor(twin[k])) {
            p.kind = ArgumentPatch::Kind::Replace;
            p.tensor = std::move(*w);
            p.origin = "kept in float: the float program's '" + b->program().value(twin[k]).name + "'";
            patches.push_back(std::move(p));
          }
        }
      }
    k += arg.values.size();
  }
  return patches;
}

}  // namespace torchir
