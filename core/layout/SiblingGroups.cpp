#include "SiblingGroups.h"

#include <algorithm>
#include <optional>

namespace torchir::layout {

namespace {

struct Indexed {
  std::string prefix;
  long index = 0;
};

/// `model.layers.12` -> {`model.layers`, 12}; `3` -> {``, 3}; nullopt without a trailing index.
std::optional<Indexed> splitIndex(const std::string& path) {
  const auto dot = path.rfind('.');
  const std::string tail = dot == std::string::npos ? path : path.substr(dot + 1);
  if (tail.empty() || tail.size() > 9 || !std::all_of(tail.begin(), tail.end(), [](char c) { return c >= '0' && c <= '9'; }))
    return std::nullopt;
  return Indexed{dot == std::string::npos ? std::string() : path.substr(0, dot), std::stol(tail)};
}

/// Splits `run` (modules, or groups of one run) into groups of kGroupSize; a lone leftover member
/// stays ungrouped, since a group of one only adds a frame.
std::vector<int> chunk(const std::vector<int>& run, int parent, int base, const SiblingGroup& proto,
                       const std::vector<long>& firstOf, const std::vector<long>& lastOf,
                       const std::vector<int>& modulesOf, std::vector<SiblingGroup>* groups) {
  std::vector<int> out;
  for (std::size_t i = 0; i < run.size(); i += kGroupSize) {
    const std::size_t end = std::min(run.size(), i + kGroupSize);
    if (end - i == 1) {
      out.push_back(run[i]);
      continue;
    }
    SiblingGroup g = proto;
    g.parent = parent;
    g.members.assign(run.begin() + static_cast<std::ptrdiff_t>(i), run.begin() + static_cast<std::ptrdiff_t>(end));
    g.first = firstOf[i], g.last = lastOf[end - 1];
    g.modules = 0;
    for (std::size_t k = i; k < end; ++k) g.modules += modulesOf[k];
    out.push_back(base + static_cast<int>(groups->size()));
    groups->push_back(std::move(g));
  }
  return out;
}

}  // namespace

std::vector<int> groupSiblings(const Program& p, int parent, const std::vector<int>& items, int base,
                               std::vector<SiblingGroup>* groups) {
  std::vector<int> children;
  std::size_t i = 0;
  while (i < items.size()) {
    if (items[i] < 0) {
      ++i;
      continue;
    }
    // The longest run from i: modules of one class whose paths share the prefix before the index.
    const Module& head = p.modules[static_cast<std::size_t>(items[i])];
    const auto key = splitIndex(head.path);
    std::size_t j = i + 1;
    while (key && j < items.size() && items[j] >= 0) {
      const Module& m = p.modules[static_cast<std::size_t>(items[j])];
      const auto k = splitIndex(m.path);
      if (!k || k->prefix != key->prefix || m.type != head.type) break;
      ++j;
    }
    if (j - i <= static_cast<std::size_t>(kMaxSiblings)) {
      children.insert(children.end(), items.begin() + static_cast<std::ptrdiff_t>(i), items.begin() + static_cast<std::ptrdiff_t>(j));
      i = j;
      continue;
    }
    SiblingGroup proto;
    proto.prefix = key->prefix, proto.type = head.type;
    std::vector<int> run(items.begin() + static_cast<std::ptrdiff_t>(i), items.begin() + static_cast<std::ptrdiff_t>(j));
    std::vector<long> firstOf, lastOf;
    std::vector<int> modulesOf(run.size(), 1);
    for (int m : run) {
      firstOf.push_back(splitIndex(p.modules[static_cast<std::size_t>(m)].path)->index);
      lastOf.push_back(firstOf.back());
    }
    // Group, then group the groups, until the level holds few enough; parents are fixed below.
    const std::size_t firstNew = groups->size();
    run = chunk(run, parent, base, proto, firstOf, lastOf, modulesOf, groups);
    while (run.size() > static_cast<std::size_t>(kMaxSiblings)) {
      firstOf.clear(), lastOf.clear(), modulesOf.clear();
      for (int m : run) {
        const bool isGroup = m >= base;
        const SiblingGroup* g = isGroup ? &(*groups)[static_cast<std::size_t>(m - base)] : nullptr;
        const long idx = isGroup ? 0 : splitIndex(p.modules[static_cast<std::size_t>(m)].path)->index;
        firstOf.push_back(g ? g->first : idx);
        lastOf.push_back(g ? g->last : idx);
        modulesOf.push_back(g ? g->modules : 1);
      }
      run = chunk(run, parent, base, proto, firstOf, lastOf, modulesOf, groups);
    }
    for (std::size_t k = firstNew; k < groups->size(); ++k)
      for (int m : (*groups)[k].members)
        if (m >= base) (*groups)[static_cast<std::size_t>(m - base)].parent = base + static_cast<int>(k);
    children.insert(children.end(), run.begin(), run.end());
    i = j;
  }
  return children;
}

std::string groupRange(const SiblingGroup& g) {
  const std::string at = g.prefix.empty() ? std::string() : g.prefix + ".";
  return at + std::to_string(g.first) + "\u2013" + std::to_string(g.last);
}

}  // namespace torchir::layout
