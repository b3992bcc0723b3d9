#pragma once
// Where a node came from, as torch records it: the oldest ancestor of its `from_node` chain (the
// node of the first graph it was made from, which a quantized program's node shares with its
// float export's) and pt2e's older `numeric_debug_handle`. What pairs a quantized program with
// its float twin.
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

namespace torchir {

struct NodeOrigin {
  std::string name;     // the oldest ancestor's node name ("conv2d"); empty when the file has none
  int64_t graphId = 0;  // the id of that ancestor's graph (Python's id() when it was made)
  std::optional<int64_t> debugHandle;  // metadata.custom's numeric_debug_handle
  /// metadata.debug_handle: ExecuTorch's key from a .pte's instructions (through an ETRecord's
  /// debug handle map) to the Edge program's nodes. Not pt2e's handle above.
  std::optional<int64_t> deviceHandle;
  bool hasAncestor() const { return !name.empty(); }
};

/// The oldest ancestor of a `from_node` metadata text (a JSON list of
/// `{name, graph_id, from_node: [...]}`: the last entry, then its last, until one has none).
/// nullopt when the text is not such a list; nesting is walked without recursion, and past
/// simdjson's depth limit (1024 levels) the text is refused.
std::optional<NodeOrigin> originFromNodeText(std::string_view fromNode);

/// `numeric_debug_handle` of a `custom` metadata text (a JSON object), when it holds an integer.
std::optional<int64_t> debugHandleFromCustomText(std::string_view custom);

/// ExecuTorch's `debug_handle` metadata text ("12") as a number; nullopt for anything else.
std::optional<int64_t> deviceHandleFromText(std::string_view text);

}  // namespace torchir
