#include "NodeFinder.h"

#include <algorithm>
#include <cctype>
#include <string>

namespace torchir::ui {

namespace {

/// ASCII case folding: node names, targets and module paths are Python identifiers and dots.
bool containsFolded(const std::string& haystack, const std::string& foldedNeedle) {
  const auto it = std::search(haystack.begin(), haystack.end(), foldedNeedle.begin(), foldedNeedle.end(),
                              [](char a, char b) { return std::tolower(static_cast<unsigned char>(a)) == b; });
  return it != haystack.end();
}

}  // namespace

std::vector<NodeId> findNodes(const Program& program, const QString& query) {
  const QString trimmed = query.trimmed();
  std::vector<NodeId> found;
  if (trimmed.isEmpty()) return found;
  std::string needle = trimmed.toLower().toStdString();
  for (const Node& n : program.nodes) {
    if (containsFolded(n.name, needle) || containsFolded(n.target, needle) ||
        (!n.moduleFrames().empty() && containsFolded(n.moduleFrames().back().path, needle)))
      found.push_back(n.id);
  }
  return found;
}

}  // namespace torchir::ui
