#include "compare/ComparisonRecord.h"

#include <algorithm>

namespace torchir {

void ComparisonRecord::index(std::size_t programNodes) {
  m_indexOf.assign(programNodes, -1);
  for (std::size_t i = 0; i < nodes.size(); ++i)
    if (nodes[i].a >= 0 && static_cast<std::size_t>(nodes[i].a) < programNodes &&
        m_indexOf[static_cast<std::size_t>(nodes[i].a)] < 0)
      m_indexOf[static_cast<std::size_t>(nodes[i].a)] = static_cast<int32_t>(i);
  m_firstDiverging = static_cast<std::size_t>(
      std::find_if(nodes.begin(), nodes.end(), [](const NodeComparison& c) { return c.startsDivergence || c.makesNonfinite; }) -
      nodes.begin());
}

const NodeComparison* ComparisonRecord::firstDivergingNode() const {
  return m_firstDiverging < nodes.size() ? &nodes[m_firstDiverging] : nullptr;
}

const NodeComparison* ComparisonRecord::of(NodeId node) const {
  if (node < 0 || static_cast<std::size_t>(node) >= m_indexOf.size() || m_indexOf[static_cast<std::size_t>(node)] < 0)
    return nullptr;
  return &nodes[static_cast<std::size_t>(m_indexOf[static_cast<std::size_t>(node)])];
}

bool ComparisonRecord::inNonfiniteSlice(NodeId node) const {
  return std::binary_search(nonfiniteSlice.begin(), nonfiniteSlice.end(), node);
}

}  // namespace torchir
