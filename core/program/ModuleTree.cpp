#include "ModuleTree.h"

#include <unordered_map>

namespace torchir {

void buildModuleTree(Program& p) {
  p.modules.clear();
  p.modules.push_back(Module{"", p.source.modelName, -1, {}, {}});
  std::unordered_map<std::string, int> byPath{{"", 0}};
  for (const auto& n : p.nodes) {
    int parent = 0;
    for (const auto& frame : n.moduleStack) {
      auto [it, inserted] = byPath.emplace(frame.path, static_cast<int>(p.modules.size()));
      if (inserted) {
        p.modules.push_back(Module{frame.path, frame.type, parent, {}, {}});
        p.modules[static_cast<std::size_t>(parent)].children.push_back(it->second);
      }
      parent = it->second;
    }
    p.modules[static_cast<std::size_t>(parent)].nodes.push_back(n.id);
  }
}

}  // namespace torchir
