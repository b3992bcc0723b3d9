#include "BodyTrace.h"

#include <ATen/ATen.h>

#include "AutocastScope.h"
#include "TensorBridge.h"

namespace torchir {
namespace {

/// A value as a body's input takes it: a tensor, or a number as a 0-d tensor (how a run's
/// inputs give numbers); nullopt for what a program's input cannot be.
std::optional<TensorData> asInput(const c10::IValue& v) {
  if (v.isTensor()) return fromAten(v.toTensor().cpu());
  if (v.isInt() || v.isSymInt()) return fromAten(at::scalar_tensor(v.isInt() ? v.toInt() : v.toSymInt().guard_int(__FILE__, __LINE__), at::kLong));
  if (v.isDouble()) return fromAten(at::scalar_tensor(v.toDouble(), at::kDouble));
  if (v.isBool()) return fromAten(at::scalar_tensor(v.toBool(), at::kBool));
  return std::nullopt;
}

std::size_t bytesOf(const std::vector<c10::IValue>& values) {
  std::size_t bytes = 0;
  for (const auto& v : values)
    if (v.isTensor()) bytes += v.toTensor().nbytes();
  return bytes;
}

}  // namespace

void BodyTrace::called(std::size_t subgraph, const std::vector<c10::IValue>& operands,
                       const std::vector<c10::IValue>* results) {
  const std::size_t iteration = m_count[subgraph]++;
  std::vector<c10::IValue>& last = m_last[subgraph];
  const std::size_t bytes = bytesOf(operands) + (results ? bytesOf(*results) : 0);
  if (m_bytes + bytes > m_maxBytes) {
    ++m_calls.notKept;
  } else {
    m_bytes += bytes;
    BodyCall call;
    call.subgraph = subgraph;
    call.iteration = iteration;
    for (const c10::IValue& v : operands) {
      std::optional<TensorData> t = asInput(v);
      call.operands.push_back(t ? std::move(*t) : TensorData{});
      int from = -1;
      for (std::size_t j = 0; j < last.size() && from < 0; ++j)
        if (v.isTensor() && last[j].isTensor() && v.toTensor().is_same(last[j].toTensor())) from = static_cast<int>(j);
      call.carriedFrom.push_back(from);
    }
    if (results)
      for (const c10::IValue& v : *results) {
        std::optional<TensorData> t = asInput(v);
        call.results.push_back(t ? std::move(*t) : TensorData{});
      }
    call.autocast = autocastInForce(m_device);
    m_calls.calls.push_back(std::move(call));
  }
  last = results ? *results : std::vector<c10::IValue>{};
}

}  // namespace torchir
