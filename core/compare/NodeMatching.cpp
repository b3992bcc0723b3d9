#include "NodeMatching.h"

#include <algorithm>
#include <map>
#include <string>
#include <tuple>
#include <unordered_map>

#include "program/QuantOps.h"

namespace torchir {
namespace {

std::string innermostModule(const Node& n) {
  const ModuleStack& stack = n.moduleFrames();
  return stack.empty() ? std::string() : stack.back().path;
}

bool isQuantization(const Node& n) { return quantRole(n.target) != QuantRole::None; }
/// An op node that does the model's work (not quantization): what a comparison pairs.
bool isModelOp(const Node& n) { return isOpNode(n) && !isQuantization(n); }

class Matcher {
 public:
  Matcher(const Program& a, const Program& b) : m_a(a), m_b(b), m_taken(b.nodes.size(), false), m_isPart(a.nodes.size(), false) {
    m_m.bOf.assign(a.nodes.size(), kNone);
  }

  NodeMatching match() {
    byOrigin();
    byDebugHandle();
    byName();
    byPlace();
    foldChains();
    classify();
    return std::move(m_m);
  }

 private:
  std::size_t at(NodeId n) const { return static_cast<std::size_t>(n); }
  bool pairedA(NodeId n) const { return m_m.bOf[at(n)] != kNone; }

  void pair(NodeId a, NodeId b, int& counter) {
    m_m.bOf[at(a)] = b;
    m_taken[at(b)] = true;
    ++counter;
  }

  /// Pairs each key's last node of A (an op decomposed in place leaves its parts before it) with
  /// its node of B; the earlier nodes of A with that key are parts of it.
  template <class Key>
  void pairByKey(const std::map<Key, std::vector<NodeId>>& aByKey, const std::map<Key, NodeId>& bByKey, int& counter) {
    for (const auto& [key, nodes] : aByKey) {
      const auto it = bByKey.find(key);
      if (it == bByKey.end() || m_taken[at(it->second)]) continue;
      pair(nodes.back(), it->second, counter);
      for (std::size_t i = 0; i + 1 < nodes.size(); ++i) m_isPart[at(nodes[i])] = true;
    }
  }

  /// A node of B keyed by its own ancestor where it has one; else (a float program exported
  /// fresh, whose nodes are the originals) by its own name, in the graph of A's ancestors that
  /// names B's nodes most.
  void byOrigin() {
    using Key = std::pair<std::string, int64_t>;
    std::map<Key, NodeId> bByOrigin;
    std::unordered_map<std::string, NodeId> bByOwnName;
    for (const Node& n : m_b.nodes) {
      if (!isModelOp(n)) continue;
      // the last node of a key, as for A (an op decomposed in place ends with the node that stands for it)
      if (n.origin && n.origin->hasAncestor()) bByOrigin.insert_or_assign(Key{n.origin->name, n.origin->graphId}, n.id);
      else bByOwnName.emplace(n.name, n.id);
    }
    std::map<int64_t, int> namesB;  // per graph of A's ancestors: how many B nodes it names
    for (const Node& n : m_a.nodes)
      if (isModelOp(n) && n.origin && n.origin->hasAncestor() && bByOwnName.count(n.origin->name))
        ++namesB[n.origin->graphId];
    const auto best = std::max_element(namesB.begin(), namesB.end(),
                                       [](const auto& x, const auto& y) { return x.second < y.second; });
    if (best != namesB.end())
      for (const auto& [name, id] : bByOwnName) bByOrigin.emplace(Key{name, best->first}, id);
    std::map<Key, std::vector<NodeId>> aByOrigin;
    for (const Node& n : m_a.nodes)
      if (isModelOp(n) && n.origin && n.origin->hasAncestor()) aByOrigin[Key{n.origin->name, n.origin->graphId}].push_back(n.id);
    pairByKey(aByOrigin, bByOrigin, m_m.byOrigin);
  }

  void byDebugHandle() {
    std::map<int64_t, NodeId> bByHandle;
    for (const Node& n : m_b.nodes)
      if (isModelOp(n) && !m_taken[at(n.id)] && n.origin && n.origin->debugHandle)
        bByHandle.insert_or_assign(*n.origin->debugHandle, n.id);
    std::map<int64_t, std::vector<NodeId>> aByHandle;
    for (const Node& n : m_a.nodes)
      if (isModelOp(n) && !pairedA(n.id) && !isPart(n.id) && n.origin && n.origin->debugHandle)
        aByHandle[*n.origin->debugHandle].push_back(n.id);
    pairByKey(aByHandle, bByHandle, m_m.byDebugHandle);
  }

  void byName() {
    std::unordered_map<std::string, NodeId> bByName;
    for (const Node& n : m_b.nodes)
      if (isModelOp(n) && !m_taken[at(n.id)]) bByName.emplace(n.name, n.id);
    for (const Node& n : m_a.nodes) {
      if (!isModelOp(n) || pairedA(n.id) || isPart(n.id)) continue;
      const auto it = bByName.find(n.name);
      if (it == bByName.end() || m_taken[at(it->second)] || m_b.node(it->second).target != n.target) continue;
      pair(n.id, it->second, m_m.byName);
    }
  }

  /// The k-th node of an op in a module on one side is the k-th on the other.
  void byPlace() {
    using Key = std::tuple<std::string, std::string, int>;
    std::map<std::pair<std::string, std::string>, int> seen;
    std::map<Key, NodeId> bByPlace;
    for (const Node& n : m_b.nodes) {
      if (!isModelOp(n) || m_taken[at(n.id)]) continue;
      const auto place = std::make_pair(innermostModule(n), n.target);
      bByPlace.emplace(Key{place.first, place.second, seen[place]++}, n.id);
    }
    seen.clear();
    for (const Node& n : m_a.nodes) {
      if (!isModelOp(n) || pairedA(n.id) || isPart(n.id)) continue;
      const auto place = std::make_pair(innermostModule(n), n.target);
      const auto it = bByPlace.find(Key{place.first, place.second, seen[place]++});
      if (it == bByPlace.end()) continue;
      pair(n.id, it->second, m_m.byPlace);
      bByPlace.erase(it);
    }
  }

  /// A chain of B's batch norms that A has folded into the node before it (conv2d -> batch_norm
  /// in B, one conv2d with the norm in its weights in A, as pt2e's prepare does): the first of the chain is paired with A's node, the rest with nothing,
  /// and the nodes that use the chain's end in B are paired with nodes that use A's node. A's
  /// node then stands for the end of the chain.
  void foldChains() {
    for (const Node& na : m_a.nodes) {
      if (!isModelOp(na) || !pairedA(na.id)) continue;
      const NodeId first = m_m.bOf[at(na.id)];
      std::vector<NodeId> chain;  // B's unpaired nodes after `first`, each using the one before
      NodeId end = first;
      for (;;) {
        const NodeId next = soleUnpairedUser(end);
        if (next == kNone || chain.size() >= m_b.nodes.size()) break;
        chain.push_back(next);
        end = next;
      }
      if (chain.empty() || !usersPairWithUsersOf(na.id, end)) continue;
      m_m.bOf[at(na.id)] = end;
      m_m.foldedB.emplace_back(first, na.id);
      for (NodeId b : chain) m_m.foldedB.emplace_back(b, na.id);
      for (NodeId b : chain) m_taken[at(b)] = true;
      m_taken[at(first)] = true;
    }
  }

  /// The one op of B that uses `node`'s first output, when it is an unpaired batch norm; else kNone.
  NodeId soleUnpairedUser(NodeId node) const {
    const Node& n = m_b.node(node);
    if (n.outputs.empty()) return kNone;
    NodeId user = kNone;
    for (NodeId u : m_b.value(n.outputs[0]).users) {
      const Node& un = m_b.node(u);
      if (!isOpNode(un)) continue;
      if (user != kNone && user != u) return kNone;
      user = u;
    }
    if (user == kNone || m_taken[at(user)] || m_b.node(user).target.find("batch_norm") == std::string::npos) return kNone;
    return user;
  }

  /// Some user of B's `end` is paired with a node of A that uses `a`'s outputs (through A's
  /// quantize/dequantize nodes).
  bool usersPairWithUsersOf(NodeId a, NodeId end) const {
    std::vector<bool> usesEnd(m_b.nodes.size(), false);
    for (ValueId v : m_b.node(end).outputs)
      for (NodeId u : m_b.value(v).users) usesEnd[at(u)] = true;
    std::vector<bool> seen(m_a.nodes.size(), false);
    std::vector<NodeId> work{a};
    while (!work.empty()) {
      const Node& n = m_a.node(work.back());
      work.pop_back();
      for (ValueId v : n.outputs)
        for (NodeId u : m_a.value(v).users) {
          if (seen[at(u)]) continue;
          seen[at(u)] = true;
          const Node& un = m_a.node(u);
          if (isModelOp(un)) {
            if (pairedA(u) && usesEnd[at(m_m.bOf[at(u)])]) return true;
          } else {
            work.push_back(u);  // through quantization and getitem nodes
          }
        }
    }
    return false;
  }

  bool isPart(NodeId n) const { return m_isPart[at(n)]; }

  void classify() {
    for (const Node& n : m_a.nodes) {
      if (!isOpNode(n)) continue;
      if (isQuantization(n)) {
        if (!pairedA(n.id)) m_m.quantizationA.push_back(n.id);
        continue;
      }
      ++m_m.opNodesA;
      if (isPart(n.id)) m_m.partsA.push_back(n.id);
      else if (!pairedA(n.id)) m_m.unmatchedA.push_back(n.id);
    }
    for (const Node& n : m_b.nodes) {
      if (!isOpNode(n)) continue;
      if (isQuantization(n)) {
        if (!m_taken[at(n.id)]) m_m.quantizationB.push_back(n.id);
        continue;
      }
      ++m_m.opNodesB;
      if (!m_taken[at(n.id)]) m_m.unmatchedB.push_back(n.id);
    }
  }

  const Program& m_a;
  const Program& m_b;
  NodeMatching m_m;
  std::vector<bool> m_taken;
  std::vector<bool> m_isPart;  // per node of A: made from the same original as a later paired node
};

}  // namespace

bool NodeMatching::twins() const {
  const int smaller = std::min(opNodesA, opNodesB);
  return smaller == 0 || 2 * paired() >= smaller;
}

NodeMatching identityMatching(const Program& p) {
  NodeMatching m;
  m.bOf.resize(p.nodes.size(), kNone);
  for (const Node& n : p.nodes) {
    m.bOf[static_cast<std::size_t>(n.id)] = n.id;
    if (isOpNode(n)) ++m.opNodesA, ++m.opNodesB, ++m.byName;
  }
  return m;
}

NodeMatching matchNodes(const Program& a, const Program& b) { return Matcher(a, b).match(); }

}  // namespace torchir
