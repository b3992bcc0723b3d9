#include "FlatDot.h"

#include <set>

#include "BoxLabels.h"

namespace torchir::layout {

namespace {

std::string quoted(const std::string& s) {
  std::string out = "\"";
  for (char ch : s) {
    if (ch == '"' || ch == '\\') out += '\\';
    out += ch;
  }
  return out + "\"";
}

std::string joined(const std::vector<std::string>& lines) {
  std::string s;
  for (const auto& l : lines) s += (s.empty() ? "" : "\\n") + l;
  return s;
}

}  // namespace

std::string flatDot(const ViewGraph& g, bool weightsAsNodes) {
  const Program& p = g.program();
  std::string s = "digraph program {\n  rankdir=TB;\n  node [shape=box, fontname=\"DejaVu Sans Mono\", fontsize=10];\n";
  if (weightsAsNodes) {
    for (const auto& n : p.nodes) s += "  n" + std::to_string(n.id) + " [label=" + quoted(n.name) + "];\n";
    for (const auto& n : p.nodes) {
      std::set<NodeId> from;
      for (const auto& a : n.inputs)
        for (ValueId v : a.values)
          if (v >= 0 && p.value(v).producer >= 0) from.insert(p.value(v).producer);
      for (NodeId f : from) s += "  n" + std::to_string(f) + " -> n" + std::to_string(n.id) + ";\n";
    }
    return s + "}\n";
  }
  // Boxes as the layout draws them, every module expanded, edges between leaves.
  for (std::size_t m = 0; m < g.moduleCount(); ++m)
    for (const auto& it : g.level(static_cast<int>(m)).items) {
      if (it.kind == ItemRef::Op) s += "  op" + std::to_string(it.index) + " [label=" + quoted(joined(opLabel(g, it.index))) + "];\n";
      if (it.kind == ItemRef::Input) s += "  in" + std::to_string(it.index) + " [label=" + quoted(joined(inputLabel(p, it.index))) + "];\n";
      if (it.kind == ItemRef::Output) s += "  out" + std::to_string(it.index) + " [label=" + quoted(joined(outputLabel(p, it.index))) + "];\n";
    }
  auto name = [](const ItemRef& it) {
    switch (it.kind) {
      case ItemRef::Op: return "op" + std::to_string(it.index);
      case ItemRef::Input: return "in" + std::to_string(it.index);
      case ItemRef::Output: return "out" + std::to_string(it.index);
      default: return std::string();
    }
  };
  for (const auto& e : g.flatEdges()) s += "  " + name(e.from) + " -> " + name(e.to) + ";\n";
  return s + "}\n";
}

}  // namespace torchir::layout
