#pragma once
// The calls of one higher-order node's bodies while it runs once more (Session::traceBodyCalls):
// each call's operands and results copied, so the studio can open any iteration as a program of
// its own and step through it.
#include <ATen/core/ivalue.h>
#include <c10/core/DeviceType.h>
#include <cstddef>
#include <map>
#include <vector>

#include "exec/ExecTypes.h"

namespace torchir {

class BodyTrace {
 public:
  /// Keeps calls until their copies reach `maxBytes`; later ones are counted, not kept.
  BodyTrace(std::size_t maxBytes, c10::DeviceType device) : m_maxBytes(maxBytes), m_device(device) {}

  /// A call of subgraph `subgraph` with `operands` returned `results` (null: it failed).
  void called(std::size_t subgraph, const std::vector<c10::IValue>& operands, const std::vector<c10::IValue>* results);

  BodyCalls take() { return std::move(m_calls); }

 private:
  std::size_t m_maxBytes, m_bytes = 0;
  c10::DeviceType m_device;
  BodyCalls m_calls;
  std::map<std::size_t, std::size_t> m_count;                 // calls so far, per subgraph
  std::map<std::size_t, std::vector<c10::IValue>> m_last;     // the last call's results, per subgraph
};

}  // namespace torchir
