#include "DeviceRun.h"

#include <algorithm>
#include <map>
#include <tuple>

#include "program/LoadError.h"

namespace torchir {
namespace {

constexpr uint64_t kOutputChain = UINT64_MAX;  // the chain index of the method's logged outputs

bool instructionEvent(const std::string& name) { return name == "OPERATOR_CALL" || name == "DELEGATE_CALL"; }

/// The output of `node` that is a tensor of `t`'s dtype and shape (symbolic sizes match any), or kNone.
ValueId madeBy(const Program& p, NodeId node, const TensorData& t) {
  for (ValueId v : p.nodes[node].outputs) {
    const Value& value = p.values[v];
    if (value.kind != ValueKind::Tensor || value.dtype != t.dtype || value.shape.size() != t.sizes.size()) continue;
    bool same = true;
    for (std::size_t d = 0; d < t.sizes.size() && same; ++d)
      same = value.shape[d].isSymbolic() || value.shape[d].hint == t.sizes[d];
    if (same) return v;
  }
  return kNone;
}

}  // namespace

double percentile(std::vector<double> values, double q) {
  if (values.empty()) return 0;
  std::sort(values.begin(), values.end());
  const double pos = (values.size() - 1) * q / 100.0;
  const auto lo = static_cast<std::size_t>(pos);
  const std::size_t hi = std::min(lo + 1, values.size() - 1);
  return values[lo] + (values[hi] - values[lo]) * (pos - lo);
}

const DeviceInstruction* DeviceRun::of(NodeId node) const {
  if (node < 0 || static_cast<std::size_t>(node) >= instructionOfNode.size() || instructionOfNode[node] < 0) return nullptr;
  return &instructions[instructionOfNode[node]];
}

DeviceRun pairDeviceRun(const Program& program, const EtRecord& record, const EtDump& dump, const PteProgram* pte) {
  const PteProgram::Plan* plan = pte ? pte->plan(record.method) : nullptr;
  DeviceRun out;
  out.instructionOfNode.assign(program.nodes.size(), -1);
  std::map<int, DeviceInstruction> byId;
  auto instruction = [&](int id) -> DeviceInstruction& {
    auto [it, fresh] = byId.try_emplace(id);
    if (fresh) it->second.id = id;
    return it->second;
  };

  // Values: the last block of consecutive events of an instruction is its last run's.
  std::map<int, std::vector<const TensorData*>> logged;
  std::map<int, std::string> loggedProblem;
  std::map<int, std::string> eventName;
  int previous = INT32_MIN;
  for (const auto& run : dump.runs)
    for (const auto& d : run.debugs) {
      if (d.chain == kOutputChain || d.output) {
        if (previous != -2) out.methodOutputs.clear();
        for (const auto& t : d.tensors) out.methodOutputs.push_back(t);
        previous = -2;
        continue;
      }
      if (d.chain != 0 || d.instruction < 0) continue;
      if (d.instruction != previous) logged[d.instruction].clear(), loggedProblem[d.instruction].clear();
      previous = d.instruction;
      for (const auto& t : d.tensors) logged[d.instruction].push_back(&t);
      if (!d.problem.empty()) loggedProblem[d.instruction] = d.problem;
      if (!d.name.empty()) eventName[d.instruction] = d.name;
    }

  // Latencies: each event's durations over the runs, an event being its place among the events
  // of its run with the same instruction, delegate and name.
  using Key = std::tuple<int, int, std::string, std::string, int>;
  std::map<Key, std::vector<double>> durations;
  std::vector<Key> order;
  std::size_t executes = 0;
  for (const auto& run : dump.runs) {
    std::map<std::tuple<int, int, std::string, std::string>, int> seen;
    for (const auto& p : run.profiles) {
      // an execute's events are logged as they end, its own last: the next execute starts anew
      if (p.name == "Method::execute") ++executes, seen.clear();
      if (p.chain != 0 || p.instruction < 0) continue;
      const auto base = std::make_tuple(p.instruction, p.delegateId, p.delegateName, p.name);
      const Key key{p.instruction, p.delegateId, p.delegateName, p.name, seen[base]++};
      auto [it, fresh] = durations.try_emplace(key);
      if (fresh) order.push_back(key);
      it->second.push_back(static_cast<double>(p.nanoseconds()) / 1e6);
    }
  }
  for (const Key& key : order) {
    const auto& [id, delegateId, delegateName, name, occurrence] = key;
    const double p50 = percentile(durations[key], 50);
    DeviceInstruction& in = instruction(id);
    if (delegateId < 0 && delegateName.empty() && instructionEvent(name)) {
      if (!in.p50Ms) in.p50Ms = p50;
      in.delegated = in.delegated || name == "DELEGATE_CALL";
    } else if (delegateId >= 0 || !delegateName.empty()) {
      in.delegateEvents.emplace_back(delegateName.empty() ? name + " #" + std::to_string(delegateId) : delegateName, p50);
    } else if (in.kernel.empty()) {
      in.kernel = name;  // "native_call_cumsum.out"
    }
  }
  out.runs = executes > 0 ? executes : dump.runs.size();

  for (const auto& [id, handles] : record.debugHandles) instruction(id).handles = handles;
  for (auto& [id, values] : logged) {
    DeviceInstruction& in = instruction(id);
    const auto counted = record.outputCounts.find(id);
    const std::size_t outs = counted != record.outputCounts.end() ? static_cast<std::size_t>(counted->second) : 1;
    const std::size_t n = std::min(outs, values.size());
    for (std::size_t i = 0; i < values.size(); ++i) (i + n < values.size() ? in.inputs : in.outputs).push_back(*values[i]);
    in.problem = loggedProblem[id];
  }

  // Nodes: the Edge nodes of the instruction's handles; each output, the last of them making it.
  const auto nodesOfHandle = nodesByDeviceHandle(program);
  std::size_t pairs = 0;
  for (auto& [id, in] : byId) {
    for (int h : in.handles)
      if (auto it = nodesOfHandle.find(h); it != nodesOfHandle.end()) {
        pairs += it->second.size();
        // a real map names a node in one instruction, two where a quantize ends one and starts the next
        if (pairs > 4 * program.nodes.size() + 1024)
          throw LoadError(record.path, "its debug handle map names the same Edge nodes in more instructions than a program has");
        in.nodes.insert(in.nodes.end(), it->second.begin(), it->second.end());
      }
    std::sort(in.nodes.begin(), in.nodes.end());
    in.nodes.erase(std::unique(in.nodes.begin(), in.nodes.end()), in.nodes.end());
    if (plan && !plan->chains.empty() && id >= 0 && static_cast<std::size_t>(id) < plan->chains[0].instructions.size()) {
      const auto& pi = plan->chains[0].instructions[id];
      in.kernel = plan->instructionText(pi);
      in.delegated = pi.kind == PteProgram::Instruction::Kind::Delegate;
    } else if (auto d = record.delegates.find(id); d != record.delegates.end()) {
      in.kernel = d->second, in.delegated = true;
    } else if (in.kernel.empty()) {
      in.kernel = eventName.count(id) ? eventName[id] : "instruction " + std::to_string(id);
    }
    for (const TensorData& t : in.outputs) {
      NodeId paired = kNone;
      ValueId value = kNone;
      for (auto it = in.nodes.rbegin(); it != in.nodes.rend() && paired == kNone; ++it)
        if ((value = madeBy(program, *it, t)) != kNone) paired = *it;
      in.outputNodes.push_back(paired);
      in.outputValues.push_back(value);
    }
    if (in.handles.empty() && in.problem.empty()) in.problem = "the ETRecord's debug handle map does not name this instruction";
    else if (in.nodes.empty() && in.problem.empty()) in.problem = "no Edge node has its debug handles";
  }
  for (auto& [id, in] : byId) {
    for (NodeId n : in.outputNodes)
      if (n != kNone) out.instructionOfNode[n] = static_cast<int>(out.instructions.size());
    out.instructions.push_back(std::move(in));
  }
  return out;
}

}  // namespace torchir
