#pragma once
// Lays out a program under a fold state: every expanded module is one small `dot` graph of its
// direct children (expanded children enter as fixed-size boxes), and the levels are composed by
// offsetting each child into its parent's box. Levels are cached by (module, fold state of its
// subtree), so expanding a module re-runs dot only for it and its ancestors.
// Owns Graphviz: use one engine from one thread (LayoutWorker gives the GUI such a thread).
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <utility>

#include "DotLayouter.h"
#include "FoldState.h"
#include "LayoutTypes.h"
#include "ViewGraph.h"

namespace torchir::layout {

class LayoutEngine {
 public:
  explicit LayoutEngine(TextMeasure measure = fixedMetric);
  ~LayoutEngine();

  /// Starts over with another program, or the same drawn otherwise (drops the cache). The program
  /// must outlive its use here.
  void setProgram(const Program& program, ViewOptions options = {});
  /// The same with a graph already built (the studio's own: 120 ms for 100k nodes, not built
  /// twice). `graph` keeps what it points into alive or is outlived by it.
  void setGraph(std::shared_ptr<const ViewGraph> graph);
  const ViewGraph& graph() const { return *m_graph; }

  /// The layout, or nullopt when `cancelled` said so (checked before every dot run).
  std::optional<Layout> layout(const FoldState& fold, const std::function<bool()>& cancelled = {});

  /// How many dot layouts ran since construction (tests and benchmarks watch the cache with it).
  int dotRuns() const { return m_dot.runs(); }
  std::size_t cachedLevels() const { return m_cache.size(); }

 private:
  struct Level;
  using Key = std::pair<int, uint64_t>;  // module, fold signature of its subtree

  std::vector<uint64_t> signatures(const FoldState& fold) const;
  bool ensureLevels(int module, const FoldState& fold, const std::vector<uint64_t>& sig,
                    const std::function<bool()>& cancelled);
  std::shared_ptr<const Level> computeLevel(int module, const FoldState& fold, const std::vector<uint64_t>& sig);
  Size boxSize(const std::vector<std::string>& lines) const;

  struct Composer;

  TextMeasure m_measure;
  DotLayouter m_dot;
  std::shared_ptr<const ViewGraph> m_graph;
  std::map<Key, std::shared_ptr<const Level>> m_cache;
};

}  // namespace torchir::layout
