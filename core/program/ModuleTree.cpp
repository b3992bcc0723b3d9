#include "ModuleTree.h"

namespace torchir {

ModuleTreeBuilder::ModuleTreeBuilder(std::size_t nodes) {
  m_modules.push_back(Module{"", "", -1, {}, {}});
  m_byPath.reserve(nodes);
  m_byPath.emplace("", 0);
  m_innermost.reserve(nodes);
  m_moduleOf.reserve(nodes);
}

int ModuleTreeBuilder::innermostOf(const ModuleStack& stack) {
  // The innermost module of a stack, made with its parents on the stack's first sight.
  int parent = 0;
  for (const auto& frame : stack) {
    auto it = m_byPath.find(frame.path);
    if (it == m_byPath.end()) {
      it = m_byPath.emplace(frame.path, static_cast<int>(m_modules.size())).first;
      m_modules.push_back(Module{frame.path, frame.type, parent, {}, {}});
      m_modules[static_cast<std::size_t>(parent)].children.push_back(it->second);
    }
    parent = it->second;
  }
  return parent;
}

void ModuleTreeBuilder::add(const ModuleStack* stack) {
  // Nodes of one module share one stack: each distinct stack is walked once. Runs of nodes share
  // it too, and a lookup that finds the stack allocates nothing (emplace would make a node first).
  int module = 0;
  if (stack == m_lastStack && stack) {
    module = m_lastModule;
  } else if (stack) {
    auto it = m_innermost.find(stack);
    if (it == m_innermost.end()) it = m_innermost.emplace(stack, innermostOf(*stack)).first;
    module = it->second;
    m_lastStack = stack;
    m_lastModule = module;
  }
  m_moduleOf.push_back(module);
}

void ModuleTreeBuilder::into(Program& p) {
  for (std::size_t n = m_moduleOf.size(); n < p.nodes.size(); ++n) add(p.nodes[n].moduleStack.get());
  // Each module's list made at its size: grown node by node, 46k modules of a 100k-node program
  // reallocated 140k times.
  std::vector<std::size_t> count(m_modules.size(), 0);
  for (const int m : m_moduleOf) ++count[static_cast<std::size_t>(m)];
  for (std::size_t m = 0; m < m_modules.size(); ++m) m_modules[m].nodes.reserve(count[m]);
  for (std::size_t n = 0; n < p.nodes.size(); ++n)
    m_modules[static_cast<std::size_t>(m_moduleOf[n])].nodes.push_back(static_cast<NodeId>(n));
  p.modules = std::move(m_modules);
}

void buildModuleTree(Program& p) {
  if (p.modules.empty()) ModuleTreeBuilder(p.nodes.size()).into(p);
  p.modules.front().type = p.source.modelName;
}

}  // namespace torchir
