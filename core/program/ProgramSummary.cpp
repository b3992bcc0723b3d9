#include "ProgramSummary.h"

#include <algorithm>

#include "QuantOps.h"

namespace torchir {

namespace {

void count(std::vector<std::pair<std::string, int>>& counts, const std::string& key) {
  auto it = std::find_if(counts.begin(), counts.end(), [&](const auto& e) { return e.first == key; });
  if (it == counts.end()) counts.emplace_back(key, 1);
  else ++it->second;
}

bool quantizedDtype(DType t) {
  return t == DType::Int8 || t == DType::UInt8 || t == DType::Float8_e5m2 || t == DType::Float8_e4m3fn ||
         t == DType::Float8_e5m2fnuz || t == DType::Float8_e4m3fnuz;
}

}  // namespace

ProgramSummary summarize(const Program& p) {
  ProgramSummary s;
  for (const auto& n : p.nodes) {
    if (n.opcode != Opcode::CallFunction) continue;
    const QuantRole role = quantRole(n.target);
    if (role == QuantRole::None) continue;
    count(s.quantNodes, std::string(quantRoleName(role)));
    if (role == QuantRole::Quantize && !n.outputs.empty()) count(s.quantDtypes, std::string(dtypeName(p.value(n.outputs[0]).dtype)));
  }
  for (const auto& in : p.inputs) {
    if (in.kind == InputKind::UserInput) continue;
    const auto w = p.weights.find(in.target);
    if (w == p.weights.end()) continue;
    if (w->second.subclass) {
      count(s.subclassWeights, w->second.subclass->className);
      for (const auto& [attr, t] : w->second.subclass->inner)
        if (quantizedDtype(t.dtype)) count(s.quantDtypes, std::string(dtypeName(t.dtype)));
    } else if (quantizedDtype(w->second.dtype) && !s.quantNodes.empty()) {
      count(s.quantDtypes, std::string(dtypeName(w->second.dtype)));
    }
  }
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
