#include "Sensitivity.h"

#include <algorithm>
#include <limits>
#include <stdexcept>

#include "compare/OutputSqnr.h"
#include "exec/WhatIfRun.h"

namespace torchir {

SensitivityResult layerSensitivity(Session& a, const Session& b, const NodeMatching& matching,
                                   const std::function<bool(std::size_t, std::size_t)>& progress, RunObserver* outer) {
  const Program& p = a.program();
  for (const auto& [node, patches] : a.patches())
    for (const ArgumentPatch& patch : patches)
      if (patch.kind == ArgumentPatch::Kind::FromValue)  // it would read the run's value, not the layer's run's
        throw std::invalid_argument("layer sensitivity measures the quantized program as exported: take back the "
                                    "Keep in Float change of '" + p.node(node).name + "' first");
  SensitivityResult result;
  WhatIfRun whatIf(a, userOutputs(p));
  if (!whatIf.prepare(outer)) {
    result.cancelled = true;
    return result;
  }
  result.baselineSqnrDb = outputSqnrDb(a, b, [&](ValueId v) { return a.tensorView(v); });
  const ValueAt valueAt = [&](NodeId reader, ValueId v) { return whatIf.readBy(reader, v); };
  const std::vector<NodeId> layers = quantizedLayers(p);
  for (std::size_t li = 0; li < layers.size(); ++li) {
    if ((progress && !progress(li, layers.size())) || (outer && outer->cancelled())) {
      result.cancelled = true;
      break;
    }
    LayerSensitivity s;
    s.node = layers[li];
    try {
      // the layer on its float inputs and weights, then what depends on it
      const auto changed = whatIf.from(s.node, inputsKeptInFloat(a, s.node, &b, &matching, valueAt));
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
