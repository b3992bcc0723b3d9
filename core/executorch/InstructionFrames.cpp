#include "InstructionFrames.h"

#include <algorithm>
#include <map>
#include <memory>

#include "program/ModuleTree.h"

namespace torchir {
namespace {

/// The frames `a` and `b` share, outermost first.
ModuleStack commonFrames(const ModuleStack& a, const ModuleStack& b) {
  ModuleStack out;
  for (std::size_t i = 0; i < a.size() && i < b.size() && a[i].path == b[i].path; ++i) out.push_back(a[i]);
  return out;
}

}  // namespace

std::size_t frameByInstruction(Program& edge, const EtRecord& record, const PteProgram::Plan* plan) {
  // A handle's nodes belong to the first instruction that names it (a handle two instructions
  // share, as a quantize's that ends one delegate call and starts the next, stays with the first):
  // each handle's nodes are visited once, whatever the map repeats.
  auto nodesOfHandle = nodesByDeviceHandle(edge);
  std::map<int, std::vector<NodeId>> nodesOf;
  for (const auto& [id, handles] : record.debugHandles)
    for (int h : handles)
      if (auto it = nodesOfHandle.find(h); it != nodesOfHandle.end()) {
        nodesOf[id].insert(nodesOf[id].end(), it->second.begin(), it->second.end());
        nodesOfHandle.erase(it);
      }

  std::size_t made = 0;
  for (auto& [id, nodes] : nodesOf) {
    std::string name;
    bool delegated = false;
    if (plan && !plan->chains.empty() && id >= 0 && static_cast<std::size_t>(id) < plan->chains[0].instructions.size()) {
      const auto& instruction = plan->chains[0].instructions[static_cast<std::size_t>(id)];
      name = plan->instructionText(instruction);
      delegated = instruction.kind == PteProgram::Instruction::Kind::Delegate;
    } else if (auto d = record.delegates.find(id); d != record.delegates.end()) {
      name = d->second, delegated = true;
    } else {
      name = "instruction";
    }
    if (nodes.size() < 2 && !delegated) continue;  // a kernel of one node: its box says it all
    std::sort(nodes.begin(), nodes.end());
    ModuleStack shared = edge.nodes[static_cast<std::size_t>(nodes.front())].moduleFrames();
    for (NodeId n : nodes) shared = commonFrames(shared, edge.nodes[static_cast<std::size_t>(n)].moduleFrames());
    // the instruction inside the modules its nodes share, each node's own modules inside it (named
    // under the instruction: a module two instructions run parts of is one frame in each)
    const std::string frame = "#" + std::to_string(id) + " " + name;
    std::map<const ModuleStack*, std::shared_ptr<const ModuleStack>> restacked;  // nodes share stacks
    for (NodeId n : nodes) {
      Node& node = edge.nodes[static_cast<std::size_t>(n)];
      auto& stack = restacked[node.moduleStack.get()];
      if (!stack) {
        ModuleStack frames = shared;
        frames.push_back({frame, delegated ? "delegate" : "kernel"});
        const ModuleStack& own = node.moduleFrames();
        for (std::size_t i = shared.size(); i < own.size(); ++i) frames.push_back({frame + "." + own[i].path, own[i].type});
        stack = std::make_shared<const ModuleStack>(std::move(frames));
      }
      node.moduleStack = stack;
    }
    ++made;
  }
  if (made > 0) {
    edge.modules.clear();  // made again from the new stacks
    buildModuleTree(edge);
  }
  return made;
}

}  // namespace torchir
