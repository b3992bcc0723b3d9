#include "NodeOrigin.h"

#include <simdjson.h>

namespace torchir {
namespace {

/// simdjson's parser refuses text nested deeper than this; the walk is bounded by it too.
constexpr std::size_t kMaxOriginDepth = simdjson::DEFAULT_MAX_DEPTH;

/// One parser per thread: its buffers are reused from node to node.
simdjson::dom::parser& parser() {
  thread_local simdjson::dom::parser p;
  return p;
}

}  // namespace

std::optional<NodeOrigin> originFromNodeText(std::string_view fromNode) {
  simdjson::dom::element root;
  if (parser().parse(fromNode.data(), fromNode.size()).get(root)) return std::nullopt;
  simdjson::dom::array chain;
  if (root.get_array().get(chain) || chain.size() == 0) return std::nullopt;
  simdjson::dom::element node = chain.at(chain.size() - 1).value_unsafe();
  for (std::size_t depth = 0; depth < kMaxOriginDepth; ++depth) {
    simdjson::dom::array older;
    if (node.at_key("from_node").get_array().get(older) || older.size() == 0) {
      NodeOrigin o;
      std::string_view name;
      int64_t graph = 0;
      if (node.at_key("name").get_string().get(name) || name.empty()) return std::nullopt;
      if (node.at_key("graph_id").get_int64().get(graph)) return std::nullopt;
      o.name = std::string(name);
      o.graphId = graph;
      return o;
    }
    node = older.at(older.size() - 1).value_unsafe();
  }
  return std::nullopt;
}

std::optional<int64_t> debugHandleFromCustomText(std::string_view custom) {
  simdjson::dom::element root;
  if (parser().parse(custom.data(), custom.size()).get(root)) return std::nullopt;
  int64_t handle = 0;
  if (root.at_key("numeric_debug_handle").get_int64().get(handle)) return std::nullopt;
  return handle;
}

std::optional<int64_t> deviceHandleFromText(std::string_view text) {
  // a decimal integer, as ExecuTorch writes it ("12"); anything else is no handle
  if (text.empty() || text.size() > 18) return std::nullopt;
  int64_t v = 0;
  for (char c : text) {
    if (c < '0' || c > '9') return std::nullopt;
    v = v * 10 + (c - '0');
  }
  return v;
}

}  // namespace torchir
