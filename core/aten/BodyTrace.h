#pragma once
// The calls of one higher-order node's bodies while it runs once more (Session::traceBodyCalls):
// each call's operands and results copied, so the studio can open any iteration as a program of
// its own and step through it.
#include <ATen/core/ivalue.h>
#include <c10/core/DeviceType.h>
#include <cstddef>
#include <map>
#include <optional>
#include <vector>

#include "exec/ExecTypes.h"

namespace torchir {

class BodyTrace {
 public:
  /// Keeps calls until their copies reach `maxBytes`; from a subgraph's first call past that on,
  /// its calls are counted, not kept, so the kept ones are its first.
  BodyTrace(std::size_t maxBytes, c10::DeviceType device) : m_maxBytes(maxBytes), m_device(device) {}

  /// Subgraph `subgraph` is called with `operands` (copied now, before the body may write them);
  /// returned() follows, also when the call fails.
  void calling(std::size_t subgraph, const std::vector<c10::IValue>& operands);
  /// The call of `subgraph` under way returned `results` (null: it failed).
  void returned(std::size_t subgraph, const std::vector<c10::IValue>* results);

  BodyCalls take() { return std::move(m_calls); }

 private:
  /// What is kept of the calls of one subgraph.
  struct Graph {
    std::size_t calls = 0;
    bool full = false;  // a call was not kept: none after it is
    std::optional<std::size_t> kept;  // the call under way, in BodyCalls::calls, when kept
    std::vector<c10::IValue> lastResults;  // what the next call may carry
    std::vector<c10::IValue> lastOperands;  // an operand passed again unchanged shares its copy
    std::vector<TensorData> lastCopies;
  };
  std::size_t m_maxBytes, m_bytes = 0;
  c10::DeviceType m_device;
  BodyCalls m_calls;
  std::map<std::size_t, Graph> m_graphs;
};

}  // namespace torchir
