#include "NodeMatching.h"

#include <map>
#include <string>
#include <tuple>
#include <unordered_map>

namespace torchir {
namespace {

std::string innermostModule(const Node& n) {
  const ModuleStack& stack = n.moduleFrames();
  return stack.empty() ? std::string() : stack.back().path;
}

}  // namespace

NodeMatching identityMatching(const Program& p) {
  NodeMatching m;
  m.bOf.resize(p.nodes.size(), kNone);
  for (const Node& n : p.nodes) m.bOf[static_cast<std::size_t>(n.id)] = n.id;
  return m;
}

NodeMatching matchNodes(const Program& a, const Program& b) {
  NodeMatching m;
  m.bOf.assign(a.nodes.size(), kNone);
  std::vector<bool> taken(b.nodes.size(), false);
  std::unordered_map<std::string, NodeId> bByName;
  for (const Node& n : b.nodes)
    if (isOpNode(n)) bByName.emplace(n.name, n.id);
  for (const Node& n : a.nodes) {
    if (!isOpNode(n)) continue;
    const auto it = bByName.find(n.name);
    if (it == bByName.end() || b.node(it->second).target != n.target) continue;
    m.bOf[static_cast<std::size_t>(n.id)] = it->second;
    taken[static_cast<std::size_t>(it->second)] = true;
  }
  // The rest: the k-th node of an op in a module on one side is the k-th on the other.
  using Key = std::tuple<std::string, std::string, int>;
  std::map<std::pair<std::string, std::string>, int> seen;
  std::map<Key, NodeId> bByPlace;
  for (const Node& n : b.nodes) {
    if (!isOpNode(n) || taken[static_cast<std::size_t>(n.id)]) continue;
    const auto place = std::make_pair(innermostModule(n), n.target);
    bByPlace.emplace(Key{place.first, place.second, seen[place]++}, n.id);
  }
  seen.clear();
  for (const Node& n : a.nodes) {
    if (!isOpNode(n) || m.bOf[static_cast<std::size_t>(n.id)] != kNone) continue;
    const auto place = std::make_pair(innermostModule(n), n.target);
    const auto it = bByPlace.find(Key{place.first, place.second, seen[place]++});
    if (it == bByPlace.end()) continue;
    m.bOf[static_cast<std::size_t>(n.id)] = it->second;
    taken[static_cast<std::size_t>(it->second)] = true;
    bByPlace.erase(it);
  }
  for (const Node& n : a.nodes)
    if (isOpNode(n) && m.bOf[static_cast<std::size_t>(n.id)] == kNone) m.unmatchedA.push_back(n.id);
  for (const Node& n : b.nodes)
    if (isOpNode(n) && !taken[static_cast<std::size_t>(n.id)]) m.unmatchedB.push_back(n.id);
  return m;
}

}  // namespace torchir
