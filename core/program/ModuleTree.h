#pragma once
#include <string_view>
#include <unordered_map>
#include <vector>

#include "Program.h"

namespace torchir {

/// Makes the module tree from the nodes' module stacks, given in node order: one Module per
/// distinct path, children in first-use order, each node under its innermost module (the root for
/// nodes outside any module). It reads nothing but the stacks, so a reader can make it on another
/// thread from the nodes read so far while it reads the rest of the file.
class ModuleTreeBuilder {
 public:
  /// `nodes`: how many nodes are expected (the maps are made at that size).
  explicit ModuleTreeBuilder(std::size_t nodes = 0);
  /// The next node's stack; null when it is in no module. The stack must outlive the builder.
  void add(const ModuleStack* stack);
  /// Sets `program.modules`: the tree of the stacks added for its first nodes, continued with the
  /// stacks of the nodes after them. The root is left unnamed: buildModuleTree names it, once the
  /// model's name is known (a .pt2's may come from its file name, after the reader). Once only.
  void into(Program& program);

 private:
  int innermostOf(const ModuleStack& stack);

  std::vector<Module> m_modules;
  // Keys are views of the paths in the stacks, which outlive the builder. Both maps start at a
  // size that spares most rehashing (a node has at most one distinct stack): rehashing 46k
  // modules' paths grown entry by entry took a fifth of the tree's time.
  std::unordered_map<std::string_view, int> m_byPath;
  std::unordered_map<const ModuleStack*, int> m_innermost;
  std::vector<int> m_moduleOf;  // per node added
  const ModuleStack* m_lastStack = nullptr;
  int m_lastModule = 0;
};

/// Fills program.modules from its nodes' module stacks (ModuleTreeBuilder), unless its reader made
/// them already (the .pt2 reader does, while it reads the values' metadata); either way the root is
/// named after the model.
void buildModuleTree(Program& program);

}  // namespace torchir
