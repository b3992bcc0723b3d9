#pragma once
// Which modules are expanded. The root (index 0) is always expanded: it is the canvas itself.
// Indices from the program's module count on are ViewGraph's sibling groups; they are expanded
// unless collapsed explicitly, so folds made from the Program alone (all, toDepth, paths) look as
// they did without groups, and only `initial` (which knows the ViewGraph) collapses groups.
#include <cstdint>
#include <cstddef>
#include <string>
#include <vector>

#include "program/Program.h"

namespace torchir::layout {

class ViewGraph;

class FoldState {
 public:
  FoldState() = default;
  explicit FoldState(std::size_t modules) : m_modules(modules), m_expanded(modules, false) {
    if (modules) m_expanded[0] = true;
  }

  bool expanded(int module) const {
    if (module == 0) return true;
    if (module < 0) return false;
    const auto m = static_cast<std::size_t>(module);
    if (m >= m_modules) return m - m_modules >= m_groupCollapsed.size() || !m_groupCollapsed[m - m_modules];
    return m < m_expanded.size() && m_expanded[m];
  }
  void setExpanded(int module, bool on);
  std::size_t size() const { return m_expanded.size(); }
  bool operator==(const FoldState&) const = default;

  /// Everything expanded.
  static FoldState all(const Program& p);
  /// Modules up to `depth` levels below the root expanded (depth 0: only the root).
  static FoldState toDepth(const Program& p, int depth);
  /// Breadth-first, one whole depth level at a time, while the number of boxes stays at most
  /// `maxBoxes`: the first view is readable and lays out fast however big the program is. A level is
  /// expanded entirely or not at all, so twelve identical layers look identical.
  static FoldState initial(const ViewGraph& g, int maxBoxes = 300);
  /// The named modules (paths) and their ancestors expanded; unknown paths are returned in `unknown`.
  static FoldState paths(const Program& p, const std::vector<std::string>& paths, std::vector<std::string>* unknown);

 private:
  std::size_t m_modules = SIZE_MAX;  // program modules; a default FoldState has no groups
  std::vector<bool> m_expanded;
  std::vector<bool> m_groupCollapsed;  // by group (index - m_modules)
};

}  // namespace torchir::layout
