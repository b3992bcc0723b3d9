// Makes a deep program from a shallow one: a template `.pt2` whose repeated block has two
// layers (modules PREFIX.0 and PREFIX.1, the same nodes in the same order) becomes a program of
// LAYERS layers, written with torchir's own .pt2 writer. Layer 1's nodes, weight placeholders
// and weights are repeated; each copy reads the copy before it where layer 1 reads layer 0, and
// what came after layer 1 reads the last copy. The copies' weights share layer 1's bytes, which
// the template maps from its file: a program of any parameter count is written without holding
// its weights in memory (each record is streamed from the page cache).
//
//   replicate_layers TEMPLATE.pt2 OUT.pt2 LAYERS [PREFIX]     (PREFIX: "layers")
//
// bench/make_big_program.py exports the template with torch and checks the result with
// torch.export.load.
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <unordered_map>
#include <unordered_set>
#include <variant>
#include <vector>

#include "exec/AtenBackend.h"
#include "program/LoadError.h"
#include "program/ModuleTree.h"
#include "formats/ProgramLoader.h"
#include "formats/Pt2Writer.h"

using namespace torchir;

namespace {

bool startsWith(const std::string& s, const std::string& head) { return s.compare(0, head.size(), head) == 0; }

/// `text` with its first `from` replaced by `to` (unchanged when absent).
std::string replaced(std::string text, const std::string& from, const std::string& to) {
  if (const auto at = text.find(from); at != std::string::npos) text.replace(at, from.size(), to);
  return text;
}

/// Whether node `n` belongs to the module at `path` (its own or a submodule's).
bool inModule(const Node& n, const std::string& path) {
  for (const ModuleFrame& f : n.moduleFrames())
    if (f.path == path || startsWith(f.path, path + ".")) return true;
  return false;
}

struct Range {
  std::size_t begin = 0, end = 0;  // node positions, end past the last
  std::size_t size() const { return end - begin; }
};

/// The nodes from the first to the last of the module at `path` (getitems and nodes without a
/// stack in between go with it).
Range layerNodes(const Program& p, const std::string& path) {
  Range r{p.nodes.size(), 0};
  for (std::size_t i = 0; i < p.nodes.size(); ++i)
    if (p.nodes[i].opcode == Opcode::CallFunction && inModule(p.nodes[i], path)) {
      r.begin = std::min(r.begin, i);
      r.end = i + 1;
    }
  if (r.end == 0) throw std::runtime_error("the template has no nodes in the module " + path);
  return r;
}

class Replicator {
 public:
  Replicator(const Program& t, std::string prefix, int layers)
      : m_t(t), m_prefix(std::move(prefix)), m_layers(layers),
        m_l0(layerNodes(t, m_prefix + ".0")), m_l1(layerNodes(t, m_prefix + ".1")) {
    if (m_l0.size() != m_l1.size() || m_l0.end > m_l1.begin)
      throw std::runtime_error("the template's layers " + m_prefix + ".0 and " + m_prefix +
                               ".1 do not have the same nodes, one after the other");
    for (const OutputSpec& s : t.outputs)
      if (s.kind != OutputKind::UserOutput) throw std::runtime_error("the template's outputs must all be user outputs");
  }

  Program run() {
    m_out.source = m_t.source;
    m_out.symbolRanges = m_t.symbolRanges;
    m_out.sampleInputs = m_t.sampleInputs;
    m_out.subgraphs = m_t.subgraphs;
    Map base;  // the template's nodes as they are: filled as they are emitted
    m_copies.assign(static_cast<std::size_t>(m_layers), {});
    for (Map& copy : m_copies) copy.fallback = &base;  // what a copy does not make itself, it shares
    // placeholders (weights first, as export orders them); layer 1's weights are repeated in place
    std::vector<std::size_t> layerWeights;
    for (std::size_t i = 0; i < m_t.nodes.size(); ++i)
      if (m_t.nodes[i].opcode == Opcode::Placeholder && isLayerWeight(i, 1)) layerWeights.push_back(i);
    for (std::size_t i = 0; i < m_t.nodes.size(); ++i) {
      if (m_t.nodes[i].opcode != Opcode::Placeholder) continue;
      emitPlaceholder(i, 1, base);
      if (!layerWeights.empty() && i == layerWeights.back())
        for (int k = 2; k < m_layers; ++k)
          for (std::size_t w : layerWeights) emitPlaceholder(w, k, m_copies[static_cast<std::size_t>(k)]);
    }
    for (std::size_t i = 0; i < m_l1.begin; ++i)
      if (m_t.nodes[i].opcode != Opcode::Placeholder) emitNode(i, 1, base);
    for (std::size_t i = m_l1.begin; i < m_l1.end; ++i) emitNode(i, 1, base);
    for (int k = 2; k < m_layers; ++k) {
      Map& copy = m_copies[static_cast<std::size_t>(k)];
      const Map& before = k == 2 ? base : m_copies[static_cast<std::size_t>(k - 1)];
      // layer 1 reads layer 0's outputs; copy k reads the same outputs of copy k - 1
      for (std::size_t i = m_l0.begin; i < m_l0.end; ++i) {
        const std::size_t twin = i - m_l0.begin + m_l1.begin;
        for (std::size_t o = 0; o < m_t.nodes[i].outputs.size(); ++o)
          copy.values[m_t.nodes[i].outputs[o]] = before.valueOf(m_t.nodes[twin].outputs[o]);
        copy.nodes[static_cast<NodeId>(i)] = before.nodeOf(static_cast<NodeId>(twin));
      }
      for (std::size_t i = m_l1.begin; i < m_l1.end; ++i) emitNode(i, k, copy);
    }
    // what follows layer 1 reads the last copy
    Map after = base;
    if (m_layers > 2)
      for (const auto& [from, to] : m_copies[static_cast<std::size_t>(m_layers - 1)].values)
        if (producedByLayer1(from)) after.values[from] = to;
    if (m_layers > 2)
      for (const auto& [from, to] : m_copies[static_cast<std::size_t>(m_layers - 1)].nodes)
        if (static_cast<std::size_t>(from) >= m_l1.begin && static_cast<std::size_t>(from) < m_l1.end) after.nodes[from] = to;
    for (std::size_t i = m_l1.end; i < m_t.nodes.size(); ++i)
      if (m_t.nodes[i].opcode != Opcode::Placeholder) emitNode(i, 1, after);
    for (const OutputSpec& s : m_t.outputs) {
      OutputSpec o = s;
      if (s.value != kNone) o.value = after.valueOf(s.value);
      m_out.outputs.push_back(std::move(o));
    }
    buildModuleTree(m_out);
    return std::move(m_out);
  }

 private:
  /// Template ids to the output's, for one copy of layer 1 (missing: as `fallback` maps them).
  struct Map {
    std::unordered_map<ValueId, ValueId> values;
    std::unordered_map<NodeId, NodeId> nodes;
    const Map* fallback = nullptr;
    ValueId valueOf(ValueId v) const {
      if (auto it = values.find(v); it != values.end()) return it->second;
      if (fallback) return fallback->valueOf(v);
      throw std::runtime_error("value " + std::to_string(v) + " is used before it is made");
    }
    NodeId nodeOf(NodeId n) const {
      if (auto it = nodes.find(n); it != nodes.end()) return it->second;
      if (fallback) return fallback->nodeOf(n);
      throw std::runtime_error("node " + std::to_string(n) + " is used before it is made");
    }
  };

  bool isLayerWeight(std::size_t node, int layer) const {
    const InputSpec* s = m_t.inputSpecFor(m_t.nodes[node].outputs.front());
    return s && s->kind != InputKind::UserInput && startsWith(s->target, m_prefix + "." + std::to_string(layer) + ".");
  }

  bool producedByLayer1(ValueId v) const {
    const NodeId p = m_t.value(v).producer;
    return p != kNone && static_cast<std::size_t>(p) >= m_l1.begin && static_cast<std::size_t>(p) < m_l1.end;
  }

  /// Layer 1's names as copy k's: "layers.1." → "layers.k.", "layers_1_" → "layers_k_".
  std::string renamed(const std::string& s, int k) const {
    if (k == 1) return s;
    const std::string dotted = m_prefix + ".1", flat = replaced(m_prefix, ".", "_") + "_1";
    if (s == dotted) return m_prefix + "." + std::to_string(k);  // the layer's own frame, not only its submodules'
    std::string r = replaced(replaced(s, dotted + ".", m_prefix + "." + std::to_string(k) + "."), flat + "_",
                             replaced(m_prefix, ".", "_") + "_" + std::to_string(k) + "_");
    return r;
  }

  /// A node or value name not taken yet: `want`, else `want_2`, `want_3`, ... (each name's next
  /// number kept, so a name asked for by every copy costs the same at the last as at the first)
  std::string unique(const std::string& want) {
    if (m_names.insert(want).second) return want;
    int& next = m_nextSuffix[want];
    next = std::max(next, 2);
    std::string name;
    do name = want + "_" + std::to_string(next++);
    while (!m_names.insert(name).second);
    return name;
  }

  std::shared_ptr<const ModuleStack> stackOf(const Node& n, int k) {
    if (k == 1 || !n.moduleStack) return n.moduleStack;
    auto& cached = m_stacks[{n.moduleStack.get(), k}];
    if (!cached) {
      ModuleStack s = *n.moduleStack;
      for (ModuleFrame& f : s) f.path = renamed(f.path, k);
      cached = std::make_shared<const ModuleStack>(std::move(s));
    }
    return cached;
  }

  void remap(TensorRef& r, const Map& m) {
    r.value = m.valueOf(r.value);
    r.name = m_out.values[static_cast<std::size_t>(r.value)].name;
  }

  void remap(Argument& a, const Map& m) {
    std::visit(
        [&](auto& x) {
          using T = std::decay_t<decltype(x)>;
          if constexpr (std::is_same_v<T, arg::Tensor>) remap(x.tensor, m);
          else if constexpr (std::is_same_v<T, arg::OptionalTensor>) {
            if (x.tensor) remap(*x.tensor, m);
          } else if constexpr (std::is_same_v<T, arg::Tensors>) {
            for (TensorRef& r : x.tensors) remap(r, m);
          } else if constexpr (std::is_same_v<T, arg::OptionalTensors>) {
            for (auto& r : x.tensors)
              if (r) remap(*r, m);
          } else if constexpr (std::is_same_v<T, arg::OutputOf>) {
            x.producer = m.nodeOf(x.producer);
          } else if constexpr (std::is_same_v<T, arg::StringToArgument>) {
            for (auto& [key, value] : x.entries) remap(value, m);
          } else if constexpr (std::is_same_v<T, arg::SymInt> || std::is_same_v<T, arg::SymFloat> ||
                               std::is_same_v<T, arg::SymBool>) {
            if (x.sym.isValue()) throw std::runtime_error("the template has symbolic sizes: export it with static shapes");
          } else if constexpr (std::is_same_v<T, arg::Graph> || std::is_same_v<T, arg::CustomObject>) {
            if (x.value != kNone) x.value = m.valueOf(x.value);
          }
        },
        static_cast<ArgumentVariant&>(a));
  }

  NodeId copyNode(std::size_t i, int k, Map& m) {
    const Node& from = m_t.nodes[i];
    Node n = from;
    n.id = static_cast<NodeId>(m_out.nodes.size());
    n.name = unique(renamed(from.name, k));
    n.moduleStack = stackOf(from, k);
    if (k != 1) n.origin = nullptr;  // a copy has no ancestor of its own
    for (NodeArgument& a : n.inputs) {
      remap(a.arg, m);
      a.values.clear();
      collectValues(a.arg, a.values);
      for (ValueId v : a.values) m_out.values[static_cast<std::size_t>(v)].users.push_back(n.id);
    }
    n.outputs.clear();
    for (ValueId v : from.outputs) {
      Value out = m_t.value(v);
      out.id = static_cast<ValueId>(m_out.values.size());
      out.producer = n.id;
      out.users.clear();
      out.name = out.name == from.name ? n.name : unique(renamed(out.name, k));
      m.values[v] = out.id;
      n.outputs.push_back(out.id);
      m_out.values.push_back(std::move(out));
    }
    m.nodes[static_cast<NodeId>(i)] = n.id;
    m_out.nodes.push_back(std::move(n));
    return m_out.nodes.back().id;
  }

  void emitNode(std::size_t i, int k, Map& m) { copyNode(i, k, m); }

  void emitPlaceholder(std::size_t i, int k, Map& m) {
    const NodeId id = copyNode(i, k, m);
    const ValueId v = m_out.nodes[static_cast<std::size_t>(id)].outputs.front();
    InputSpec s = *m_t.inputSpecFor(m_t.nodes[i].outputs.front());
    s.value = v;
    if (s.kind != InputKind::UserInput) {
      const std::string key = renamed(s.target, k);
      m_out.weights[key] = m_t.weights.at(s.target);  // the same bytes: mapped, shared, not copied
      s.target = key;
    }
    m_out.inputs.push_back(std::move(s));
  }

  const Program& m_t;
  std::string m_prefix;
  int m_layers;
  Range m_l0, m_l1;
  Program m_out;
  std::vector<Map> m_copies;  // by layer; [0] and [1] unused
  std::unordered_set<std::string> m_names;
  std::unordered_map<std::string, int> m_nextSuffix;
  std::map<std::pair<const ModuleStack*, int>, std::shared_ptr<const ModuleStack>> m_stacks;
};

}  // namespace

int main(int argc, char** argv) {
  if (argc < 4) {
    std::fprintf(stderr, "usage: replicate_layers TEMPLATE.pt2 OUT.pt2 LAYERS [PREFIX]\n");
    return 2;
  }
  const int layers = std::atoi(argv[3]);
  if (layers < 2 || layers > 100000) {
    std::fprintf(stderr, "error: LAYERS must be 2 to 100000, not '%s'\n", argv[3]);
    return 2;
  }
  try {
    const Program t = loadProgram(argv[1]);
    Program out = Replicator(t, argc > 4 ? argv[4] : "layers", layers).run();
    writePt2(out, atenBackend().torchSaveArgs(out.sampleInputs), argv[2]);
    std::printf("%zu nodes, %zu weights\n", out.nodes.size(), out.weights.size());
  } catch (const std::exception& e) {
    std::fprintf(stderr, "error: %s\n", e.what());
    return 2;
  }
  return 0;
}
