#include "exec/WhatIfRun.h"

#include <algorithm>

namespace torchir {
namespace {

std::size_t at(int32_t id) { return static_cast<std::size_t>(id); }

/// Whether a call writes its first argument (`Tensor(a!) self`: add_, relu_).
bool writesFirstArgument(const NodeRecord& r) { return !r.writtenArguments.empty() && r.writtenArguments.front() == 0; }

}  // namespace

WhatIfRun::WhatIfRun(Session& run, std::vector<ValueId> kept) : m_run(run) {
  const Program& p = run.program();
  m_lastUser.assign(p.values.size(), kNone);
  for (const Node& n : p.nodes)
    for (ValueId v : valuesNamedBy(n)) m_lastUser[at(v)] = std::max(m_lastUser[at(v)], n.id);
  for (ValueId v : kept)
    if (v >= 0 && at(v) < m_lastUser.size()) m_lastUser[at(v)] = static_cast<NodeId>(p.nodes.size());
}

bool WhatIfRun::prepare(RunObserver* outer) {
  const Program& p = m_run.program();
  m_written.assign(p.values.size(), false);
  for (const Node& n : p.nodes) {
    const NodeRecord* r = m_run.record(n.id);
    if (!r || !writesFirstArgument(*r)) continue;
    const auto named = valuesNamedBy(n);
    if (!named.empty()) m_written[at(named.front())] = true;
    for (ValueId v : n.outputs) m_written[at(v)] = true;  // it aliases what it wrote
  }
  m_outer = outer;
  m_read.clear();
  const bool finished =
      m_run.replayTo(static_cast<NodeId>(p.nodes.size()), this, Replay::KeepEveryValue).reason == StopReason::Finished;
  m_outer = nullptr;
  return finished;
}

void WhatIfRun::beforeNode(NodeId next) {
  const Node& n = m_run.program().node(next);
  if (n.opcode != Opcode::CallFunction) return;
  for (ValueId v : valuesNamedBy(n))
    if (m_written[at(v)])
      if (auto t = m_run.tensor(v)) m_read.emplace(std::make_pair(next, v), std::move(*t));
}

std::optional<TensorData> WhatIfRun::copyReadBy(NodeId reader, ValueId value) const {
  const auto it = m_read.find({reader, value});
  return it != m_read.end() ? std::optional<TensorData>(it->second) : std::nullopt;
}

std::optional<TensorData> WhatIfRun::readBy(NodeId reader, ValueId value) const {
  auto copy = copyReadBy(reader, value);
  return copy ? copy : m_run.tensorView(value);
}

std::vector<std::optional<TensorData>> WhatIfRun::inputsOf(NodeId reader, std::vector<std::optional<TensorData>> given,
                                                           const std::unordered_map<ValueId, TensorData>& changed) const {
  const auto named = valuesNamedBy(m_run.program().node(reader));
  given.resize(named.size());
  for (std::size_t i = 0; i < named.size(); ++i) {
    if (given[i]) continue;
    if (const auto it = changed.find(named[i]); it != changed.end()) given[i] = it->second;
    else given[i] = copyReadBy(reader, named[i]);  // nullopt: the run's own
  }
  return given;
}

std::unordered_map<ValueId, TensorData> WhatIfRun::from(NodeId from, std::vector<std::optional<TensorData>> inputs) {
  const Program& p = m_run.program();
  std::unordered_map<ValueId, TensorData> changed;
  auto outs = m_run.rerunNode(from, inputsOf(from, std::move(inputs), changed));
  const Node& first = p.node(from);
  for (std::size_t i = 0; i < outs.size() && i < first.outputs.size(); ++i)
    if (outs[i]) changed.emplace(first.outputs[i], std::move(*outs[i]));
  for (std::size_t id = at(from) + 1; id < p.nodes.size() && !changed.empty(); ++id) {
    const Node& n = p.nodes[id];
    const std::vector<ValueId> named = valuesNamedBy(n);
    if (std::none_of(named.begin(), named.end(), [&](ValueId v) { return changed.count(v) != 0; })) continue;
    const NodeRecord* r = m_run.record(n.id);
    if (n.opcode == Opcode::CallFunction && r && r->doesWork) {
      auto made = m_run.rerunNode(n.id, inputsOf(n.id, {}, changed));
      // an in-place op's result is also what later readers of the value it wrote get
      if (writesFirstArgument(*r) && !named.empty() && !made.empty() && made[0])
        changed.insert_or_assign(named.front(), *made[0]);
      for (std::size_t i = 0; i < made.size() && i < n.outputs.size(); ++i)
        if (made[i]) changed.insert_or_assign(n.outputs[i], std::move(*made[i]));
    }
    for (ValueId v : named)
      if (m_lastUser[at(v)] <= n.id) changed.erase(v);
  }
  // what is left: the kept values that changed, and values no node reads (let go here)
  std::erase_if(changed, [&](const auto& entry) { return m_lastUser[at(entry.first)] != static_cast<NodeId>(p.nodes.size()); });
  return changed;
}

}  // namespace torchir
