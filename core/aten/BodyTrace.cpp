#include "BodyTrace.h"

#include <ATen/ATen.h>

#include "AutocastScope.h"
#include "TensorBridge.h"

namespace torchir {
namespace {

/// A value as a body's input takes it: a tensor, or a number as a 0-d tensor (how a run's
/// inputs give numbers); an empty TensorData for what a program's input cannot be.
TensorData asInput(const c10::IValue& v) {
  if (v.isTensor()) return v.toTensor().defined() ? fromAten(v.toTensor().cpu()) : TensorData{};
  if (v.isInt()) return fromAten(at::scalar_tensor(v.toInt(), at::kLong));
  if (v.isDouble()) return fromAten(at::scalar_tensor(v.toDouble(), at::kDouble));
  if (v.isBool()) return fromAten(at::scalar_tensor(v.toBool(), at::kBool));
  return {};
}

bool sameTensor(const c10::IValue& a, const c10::IValue& b) {
  return a.isTensor() && b.isTensor() && a.toTensor().defined() && a.toTensor().is_same(b.toTensor());
}

std::size_t bytesOf(const c10::IValue& v) {
  return v.isTensor() && v.toTensor().defined() ? v.toTensor().nbytes() : 0;
}

}  // namespace

void BodyTrace::calling(std::size_t subgraph, const std::vector<c10::IValue>& operands) {
  Graph& g = m_graphs[subgraph];
  const std::size_t iteration = g.calls++;
  g.kept.reset();
  // an operand passed again unchanged (a weight, a map's extra argument) shares its last copy
  auto repeated = [&](std::size_t i) { return i < g.lastOperands.size() && sameTensor(operands[i], g.lastOperands[i]); };
  std::size_t bytes = 0;
  for (std::size_t i = 0; i < operands.size(); ++i)
    if (!repeated(i)) bytes += bytesOf(operands[i]);
  if (g.full || m_bytes + bytes > m_maxBytes) {
    g.full = true;
    ++m_calls.notKept[subgraph];
    return;
  }
  m_bytes += bytes;
  BodyCall call;
  call.subgraph = subgraph;
  call.iteration = iteration;
  for (std::size_t i = 0; i < operands.size(); ++i) {
    call.operands.push_back(repeated(i) ? g.lastCopies[i] : asInput(operands[i]));
    int from = -1;
    for (std::size_t j = 0; j < g.lastResults.size() && from < 0; ++j)
      if (sameTensor(operands[i], g.lastResults[j])) from = static_cast<int>(j);
    call.carriedFrom.push_back(from);
  }
  call.autocast = autocastInForce(m_device);
  g.lastOperands = operands;
  g.lastCopies = call.operands;
  g.kept = m_calls.calls.size();
  m_calls.calls.push_back(std::move(call));
}

void BodyTrace::returned(std::size_t subgraph, const std::vector<c10::IValue>* results) {
  Graph& g = m_graphs[subgraph];
  g.lastResults = results ? *results : std::vector<c10::IValue>{};
  if (!g.kept || !results) return;
  BodyCall& call = m_calls.calls[*g.kept];
  std::size_t bytes = 0;
  for (const c10::IValue& v : *results) bytes += bytesOf(v);
  m_bytes += bytes;  // results are kept with their call even past the bound: the call is whole or absent
  for (const c10::IValue& v : *results) call.results.push_back(asInput(v));
}

}  // namespace torchir
