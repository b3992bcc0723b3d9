#pragma once
// Which modules are expanded. The root (index 0) is always expanded: it is the canvas itself.
#include <cstdint>
#include <string>
#include <vector>

#include "program/Program.h"

namespace torchir::layout {

class ViewGraph;

class FoldState {
 public:
  FoldState() = default;
  explicit FoldState(std::size_t modules) : m_expanded(modules, false) { if (modules) m_expanded[0] = true; }

  bool expanded(int module) const {
    return module == 0 || (module >= 0 && static_cast<std::size_t>(module) < m_expanded.size() && m_expanded[module]);
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
  std::vector<bool> m_expanded;
};

}  // namespace torchir::layout
