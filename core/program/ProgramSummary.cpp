#include "ProgramSummary.h"

#include <algorithm>

namespace torchir {

ProgramSummary summarize(const Program& p) {
  ProgramSummary s;
  s.modelName = p.source.modelName;
  for (const auto& n : p.nodes) {
    if (n.opcode != Opcode::CallFunction) continue;
    ++s.numNodes;
    auto it = std::find_if(s.opDistribution.begin(), s.opDistribution.end(),
                           [&](const auto& e) { return e.first == n.target; });
    if (it == s.opDistribution.end()) s.opDistribution.emplace_back(n.target, 1);
    else ++it->second;
  }
  std::stable_sort(s.opDistribution.begin(), s.opDistribution.end(),
                   [](const auto& a, const auto& b) { return a.second > b.second; });
  for (const auto& in : p.inputs) {
    const Value& v = p.value(in.value);
    if (in.kind == InputKind::UserInput) {
      ++s.numInputs;
      s.inputShapes.emplace_back(v.name, v.shape);
    } else if (in.kind == InputKind::Parameter || in.kind == InputKind::Buffer ||
               in.kind == InputKind::TensorConstant) {
      ++s.numWeights;
      int64_t n = 1;
      for (const auto& d : v.shape) n *= d.hint;
      s.totalParameters += n;
    }
  }
  for (const auto& out : p.outputs) {
    if (out.kind != OutputKind::UserOutput) continue;
    ++s.numOutputs;
    if (out.value != kNone) s.outputShapes.emplace_back(p.value(out.value).name, p.value(out.value).shape);
  }
  s.missingData = p.missingData();
  return s;
}

}  // namespace torchir
