#include "FoldState.h"

#include <map>

#include "ViewGraph.h"

namespace torchir::layout {

void FoldState::setExpanded(int module, bool on) {
  if (module <= 0) return;  // the root stays expanded
  if (static_cast<std::size_t>(module) >= m_modules) {
    const std::size_t g = static_cast<std::size_t>(module) - m_modules;
    if (g >= m_groupCollapsed.size()) m_groupCollapsed.resize(g + 1, false);
    m_groupCollapsed[g] = !on;
    return;
  }  if (static_cast<std::size_t>(module) >= m_expanded.size()) m_expanded.resize(static_cast<std::size_t>(module) + 1, false);
  m_expanded[static_cast<std::size_t>(module)] = on;
}

FoldState FoldState::all(const Program& p) {
  FoldState f(p.modules.size());
  for (std::size_t m = 1; m < p.modules.size(); ++m) f.setExpanded(static_cast<int>(m), true);
  return f;
}

FoldState FoldState::toDepth(const Program& p, int depth) {
  FoldState f(p.modules.size());
  std::vector<int> d(p.modules.size(), 0);
  for (std::size_t m = 1; m < p.modules.size(); ++m) {
    d[m] = d[static_cast<std::size_t>(p.modules[m].parent)] + 1;
    f.setExpanded(static_cast<int>(m), d[m] <= depth);
  }
  return f;
}

FoldState FoldState::initial(const ViewGraph& g, int maxBoxes) {
  const Program& p = g.program();
  FoldState f(p.modules.size());
  for (std::size_t m = g.programModules(); m < g.moduleCount(); ++m) f.setExpanded(static_cast<int>(m), false);
  std::map<int, std::vector<int>> byDepth;  // drawn modules only: transparent ones have no level
  std::vector<int> stack{0};
  while (!stack.empty()) {
    const int m = stack.back();
    stack.pop_back();
    for (int c : g.children(m)) {
      byDepth[g.depth(c)].push_back(c);
      stack.push_back(c);
    }
  }
  int boxes = g.boxCount(0);
  for (const auto& [depth, modules] : byDepth) {
    int grow = 0;
    for (int m : modules) grow += g.boxCount(m) - 1;  // its items replace its one box
    if (boxes + grow > maxBoxes) break;
    boxes += grow;
    for (int m : modules) f.setExpanded(m, true);
  }
  return f;
}

FoldState FoldState::paths(const Program& p, const std::vector<std::string>& paths, std::vector<std::string>* unknown) {
  FoldState f(p.modules.size());
  for (const auto& path : paths) {
    bool found = false;
    for (std::size_t m = 1; m < p.modules.size(); ++m)
      if (p.modules[m].path == path) {
        found = true;
        for (int a = static_cast<int>(m); a > 0; a = p.modules[static_cast<std::size_t>(a)].parent) f.setExpanded(a, true);
      }
    if (!found && unknown) unknown->push_back(path);
  }
  return f;
}

}  // namespace torchir::layout
