#include "ModuleTree.h"

#include <unordered_map>

namespace torchir {

void buildModuleTree(Program& p) {
  p.modules.clear();
  p.modules.push_back(Module{"", p.source.modelName, -1, {}, {}});
  std::unordered_map<std::string, int> byPath{{"", 0}};
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
  // Nodes of one module share one stack: each distinct stack is walked once.
  std::unordered_map<const ModuleStack*, int> innermost;
  for (const auto& n : p.nodes) {
    int module = 0;
    if (n.moduleStack) {
      auto [it, first] = innermost.emplace(n.moduleStack.get(), 0);
      if (first) it->second = innermostOf(*n.moduleStack);
      module = it->second;
    }
    p.modules[static_cast<std::size_t>(module)].nodes.push_back(n.id);
  }
}

}  // namespace torchir
