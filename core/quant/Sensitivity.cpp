#include "Sensitivity.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <stdexcept>
#include <unordered_map>

#include "compare/OutputSqnr.h"
#include "compare/TensorMetrics.h"

namespace torchir {
namespace {

std::size_t at(int32_t id) { return static_cast<std::size_t>(id); }

/// Whether a call writes its first argument (`Tensor(a!) self`: add_, relu_).
bool writesFirstArgument(const NodeRecord& r) {
  return !r.writtenArguments.empty() && r.writtenArguments.front() == 0;
}

/// Values an in-place op writes, as each node read them: a's run made again, copying a written
/// value before every node that reads it. Such a value's tensor in the run is its last state,
/// not what an earlier reader got.
class ReadValues final : public RunObserver {
 public:
  explicit ReadValues(Session& a) : m_a(a) {}

  /// Makes a's run again; false when it did not reach the end.
  bool record(RunObserver* outer) {
    const Program& p = m_a.program();
    m_written.assign(p.values.size(), false);
    for (const Node& n : p.nodes) {
      const NodeRecord* r = m_a.record(n.id);
      if (!r || !writesFirstArgument(*r)) continue;
      const auto named = valuesNamedBy(n);
      if (!named.empty()) m_written[at(named.front())] = true;
      for (ValueId v : n.outputs) m_written[at(v)] = true;  // it aliases what it wrote
    }
    m_outer = outer;
    return m_a.replayTo(static_cast<NodeId>(p.nodes.size()), this, Replay::KeepEveryValue).reason == StopReason::Finished;
  }

  /// What `reader` got for `v`: the copy made before it where an in-place op writes `v`.
  std::optional<TensorData> copyReadBy(NodeId reader, ValueId v) const {
    const auto it = m_read.find({reader, v});
    return it != m_read.end() ? std::optional<TensorData>(it->second) : std::nullopt;
  }
  std::optional<TensorData> readBy(NodeId reader, ValueId v) const {
    auto copy = copyReadBy(reader, v);
    return copy ? copy : m_a.tensorView(v);
  }

  bool cancelled() override { return m_outer && m_outer->cancelled(); }
  void beforeNode(NodeId next) override {
    const Node& n = m_a.program().node(next);
    if (n.opcode != Opcode::CallFunction) return;
    for (ValueId v : valuesNamedBy(n))
      if (m_written[static_cast<std::size_t>(v)])
        if (auto t = m_a.tensor(v)) m_read.emplace(std::make_pair(next, v), std::move(*t));
  }

 private:
  Session& m_a;
  RunObserver* m_outer = nullptr;
  std::vector<bool> m_written;
  std::map<std::pair<NodeId, ValueId>, TensorData> m_read;
};

}  // namespace

SensitivityResult layerSensitivity(Session& a, const Session& b, const NodeMatching& matching,
                                   const std::function<bool(std::size_t, std::size_t)>& progress, RunObserver* outer) {
  const Program& p = a.program();
  for (const auto& [node, patches] : a.patches())
    for (const ArgumentPatch& patch : patches)
      if (patch.kind == ArgumentPatch::Kind::FromValue)  // it would read the run's value, not the layer's run's
        throw std::invalid_argument("layer sensitivity measures the quantized program as exported: take back the "
                                    "Keep in Float change of '" + p.node(node).name + "' first");
  SensitivityResult result;
  ReadValues read(a);
  if (!read.record(outer)) {
    result.cancelled = true;
    return result;
  }
  result.baselineSqnrDb = outputSqnrDb(a, b, [&](ValueId v) { return a.tensorView(v); });
  const ValueAt valueAt = [&](NodeId reader, ValueId v) { return read.readBy(reader, v); };
  // the last node that reads each value: a changed value is let go after it
  std::vector<NodeId> lastUser(p.values.size(), kNone);
  for (const Node& n : p.nodes)
    for (ValueId v : valuesNamedBy(n)) lastUser[at(v)] = std::max(lastUser[at(v)], n.id);
  for (ValueId v : userOutputs(p)) lastUser[at(v)] = static_cast<NodeId>(p.nodes.size());

  const std::vector<NodeId> layers = quantizedLayers(p);
  for (std::size_t li = 0; li < layers.size(); ++li) {
    if ((progress && !progress(li, layers.size())) || (outer && outer->cancelled())) {
      result.cancelled = true;
      break;
    }
    LayerSensitivity s;
    s.node = layers[li];
    std::unordered_map<ValueId, TensorData> changed;
    // what `reader` gets for each value it names: the changed one, else what the run gave it
    auto inputsOf = [&](NodeId reader, std::vector<std::optional<TensorData>> inputs) {
      const auto named = valuesNamedBy(p.node(reader));
      for (std::size_t i = 0; i < named.size(); ++i) {
        if (inputs[i]) continue;
        if (const auto it = changed.find(named[i]); it != changed.end()) inputs[i] = it->second;
        else inputs[i] = read.copyReadBy(reader, named[i]);  // nullopt: the run's own
      }
      return inputs;
    };
    try {
      auto outs = a.rerunNode(s.node, inputsOf(s.node, inputsKeptInFloat(a, s.node, &b, &matching, valueAt)));
      const Node& layer = p.node(s.node);
      for (std::size_t i = 0; i < outs.size() && i < layer.outputs.size(); ++i)
        if (outs[i]) changed.emplace(layer.outputs[i], std::move(*outs[i]));
      // the nodes after it that depend on what changed, in program order
      for (std::size_t id = at(s.node) + 1; id < p.nodes.size() && !changed.empty(); ++id) {
        const Node& n = p.nodes[id];
        const std::vector<ValueId> named = valuesNamedBy(n);
        bool depends = false;
        for (ValueId v : named) depends = depends || changed.count(v);
        if (!depends) continue;
        const NodeRecord* r = a.record(n.id);
        if (n.opcode == Opcode::CallFunction && r && r->doesWork) {
          auto made = a.rerunNode(n.id, inputsOf(n.id, std::vector<std::optional<TensorData>>(named.size())));
          // an in-place op's result is also what later readers of the value it wrote get
          if (writesFirstArgument(*r) && !named.empty() && !made.empty() && made[0])
            changed.insert_or_assign(named.front(), *made[0]);
          for (std::size_t i = 0; i < made.size() && i < n.outputs.size(); ++i)
            if (made[i]) changed.insert_or_assign(n.outputs[i], std::move(*made[i]));
        }
        for (ValueId v : named)
          if (lastUser[at(v)] <= n.id) changed.erase(v);
      }
      s.outputSqnrDb = outputSqnrDb(a, b, [&](ValueId v) -> std::optional<TensorData> {
        const auto it = changed.find(v);
        return it != changed.end() ? std::optional<TensorData>(it->second) : a.tensorView(v);
      });
      s.gainDb = s.outputSqnrDb == result.baselineSqnrDb ? 0 : s.outputSqnrDb - result.baselineSqnrDb;  // inf - inf
    } catch (const std::exception& e) {
      s.problem = e.what();
      s.gainDb = -std::numeric_limits<double>::infinity();
    }
    result.layers.push_back(std::move(s));
  }
  std::stable_sort(result.layers.begin(), result.layers.end(), [](const LayerSensitivity& x, const LayerSensitivity& y) {
    if (x.problem.empty() != y.problem.empty()) return x.problem.empty();
    return x.gainDb > y.gainDb;
  });
  return result;
}

}  // namespace torchir
