#include "ModuleTree.h"

#include <string_view>
#include <unordered_map>

namespace torchir {

void buildModuleTree(Program& p) {
  p.modules.clear();
  p.modules.push_back(Module{"", p.source.modelName, -1, {}, {}});
  // Keys are views of the paths in the stacks the nodes hold, which outlive this function. Both
  // maps start at a size that spares most rehashing (a node has at most one distinct stack):
  // rehashing 46k modules' paths grown entry by entry took a fifth of this function.
  std::unordered_map<std::string_view, int> byPath{{"", 0}};
  byPath.reserve(p.nodes.size());
  // The innermost module of a stack, made with its parents on the stack's first sight.
  auto innermostOf = [&](const ModuleStack& stack) {
    int parent = 0;
    for (const auto& frame : stack) {
      auto it = byPath.find(frame.path);
      if (it == byPath.end()) {
        it = byPath.emplace(frame.path, static_cast<int>(p.modules.size())).first;
        p.modules.push_back(Module{frame.path, frame.type, parent, {}, {}});
        p.modules[static_cast<std::size_t>(parent)].children.push_back(it->second);
      }
      parent = it->second;
    }
    return parent;
  };
  // Nodes of one module share one stack: each distinct stack is walked once. Runs of nodes share
  // it too, and a lookup that finds the stack allocates nothing (emplace would make a node first).
  std::unordered_map<const ModuleStack*, int> innermost;
  innermost.reserve(p.nodes.size());
  const ModuleStack* lastStack = nullptr;
  int lastModule = 0;
  std::vector<int> moduleOf(p.nodes.size(), 0);
  for (const auto& n : p.nodes) {
    int& module = moduleOf[static_cast<std::size_t>(n.id)];
    if (const ModuleStack* stack = n.moduleStack.get(); stack == lastStack && stack) {
      module = lastModule;
    } else if (stack) {
      auto it = innermost.find(stack);
      if (it == innermost.end()) it = innermost.emplace(stack, innermostOf(*stack)).first;
      module = it->second;
      lastStack = stack;
      lastModule = module;
    }
  }
  // Each module's list made at its size: grown node by node, 46k modules of a 100k-node program
  // reallocated 140k times.
  std::vector<std::size_t> count(p.modules.size(), 0);
  for (const int m : moduleOf) ++count[static_cast<std::size_t>(m)];
  for (std::size_t m = 0; m < p.modules.size(); ++m) p.modules[m].nodes.reserve(count[m]);
  for (const auto& n : p.nodes) p.modules[static_cast<std::size_t>(moduleOf[static_cast<std::size_t>(n.id)])].nodes.push_back(n.id);
}

}  // namespace torchir
