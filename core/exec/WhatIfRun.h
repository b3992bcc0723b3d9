#pragma once
// "What if this node had been given these values": a finished run made again from one node, only
// where the change reaches, through the session's own kernels, the run itself left as it was.
#include <map>
#include <optional>
#include <unordered_map>
#include <utility>
#include <vector>

#include "exec/Session.h"

namespace torchir {

/// Layer sensitivity asks it once per layer; anything that measures "this node changed, what
/// comes out" can.
class WhatIfRun final : public RunObserver {
 public:
  /// `run` has run to the end. `kept`: the values each what-if returns when they change (the user
  /// outputs); any other changed value is let go after its last reader.
  WhatIfRun(Session& run, std::vector<ValueId> kept);

  /// Makes the run again, holding every value and, where an in-place op writes one, a copy of it
  /// as each later reader got it (the run's tensor of such a value is its last state). False when
  /// it did not reach the end (`outer` cancelled it). Called once, before the what-ifs.
  bool prepare(RunObserver* outer = nullptr);

  /// What `reader` read for `value` in the run.
  std::optional<TensorData> readBy(NodeId reader, ValueId value) const;

  /// `from` run again with `inputs` (one per value it names, NodeArgument::values in order;
  /// nullopt: what it read in the run), then every later node that depends on what changed, in
  /// program order, each given the changed values it names and what it read for the rest. Returns
  /// the kept values that changed. Tensors carry the change: a size or other number a node makes
  /// again is taken to be the run's (a what-if that changes values, not shapes). Throws
  /// std::runtime_error where a node cannot run again.
  std::unordered_map<ValueId, TensorData> from(NodeId from, std::vector<std::optional<TensorData>> inputs);

  // RunObserver, while prepare() makes the run again
  bool cancelled() override { return m_outer && m_outer->cancelled(); }
  void beforeNode(NodeId next) override;

 private:
  /// What `reader` gets for each value it names: a changed one, else the copy it read, else the
  /// run's own (nullopt). Entries `given` already holds stay.
  std::vector<std::optional<TensorData>> inputsOf(NodeId reader, std::vector<std::optional<TensorData>> given,
                                                  const std::unordered_map<ValueId, TensorData>& changed) const;
  std::optional<TensorData> copyReadBy(NodeId reader, ValueId value) const;

  Session& m_run;
  RunObserver* m_outer = nullptr;
  std::vector<bool> m_written;   // by ValueId: an in-place op writes it
  std::vector<NodeId> m_lastUser;  // by ValueId: a changed value is let go after it
  std::map<std::pair<NodeId, ValueId>, TensorData> m_read;  // a written value, as each reader got it
};

}  // namespace torchir
