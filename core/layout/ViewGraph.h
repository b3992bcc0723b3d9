#pragma once
// The program as the layout sees it, independent of the fold state: for every module, the items
// drawn when it is expanded (its own op nodes, its child modules, ports for values that cross its
// border) and the edges between them. Built once per program in O(edges x depth); a layout then
// only picks levels by fold state. Levels are the program's modules (indices below
// programModules()) followed by synthetic sibling groups (SiblingGroups.h), which are module-like:
// collapsed one box, expanded a frame around their members.
#include <compare>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "SiblingGroups.h"
#include "program/Program.h"

namespace torchir::layout {

/// One node of a module's level graph.
struct ItemRef {
  enum Kind : uint8_t { Op, Module, Input, Output, InPort, OutPort };
  Kind kind = Op;
  int32_t index = -1;  // Op: NodeId; Module: level index (module or group); Input/Output: signature index; ports: ValueId
  auto operator<=>(const ItemRef&) const = default;
};

struct LevelEdge {
  ItemRef from, to;
  ValueId value = kNone;
  int port = -1;  // output index when the producer is a multi-output op, else -1
  NodeId quantizedBy = kNone;  // the folded quantize node the value passed through (its label), or kNone
};

/// How the program is drawn, beside the fold state of its modules.
struct ViewOptions {
  /// Quantize / dequantize / choose_qparams / inner-tensor nodes are drawn on the edge they sit on
  /// (a weight's, in the box that uses the weight) instead of as boxes.
  bool foldQuantization = true;
  bool operator==(const ViewOptions&) const = default;
};

/// What one module shows when expanded.
struct ModuleLevel {
  std::vector<ItemRef> items;  // program order: ops, child modules; user inputs/outputs at the root
  std::vector<ValueId> inValues, outValues;  // values entering / leaving the module (its ports)
  std::vector<LevelEdge> edges;              // among items and ports, without duplicates
};

class ViewGraph {
 public:
  explicit ViewGraph(const Program& program, ViewOptions options = {});

  const Program& program() const { return m_program; }
  const ViewOptions& options() const { return m_options; }
  const ModuleLevel& level(int module) const { return m_levels.at(static_cast<std::size_t>(module)); }
  /// Levels: program modules, then groups.
  std::size_t moduleCount() const { return m_levels.size(); }
  std::size_t programModules() const { return m_programModules; }
  bool isGroup(int level) const { return level >= static_cast<int>(m_programModules); }
  const SiblingGroup& group(int level) const { return m_groups.at(static_cast<std::size_t>(level) - m_programModules); }
  /// The level that draws this one (a group for a grouped module), -1 for the root.
  int parent(int level) const { return m_parent[static_cast<std::size_t>(level)]; }
  int depth(int module) const { return m_depth[static_cast<std::size_t>(module)]; }
  /// Op nodes in the module's whole subtree (for collapsed-module labels).
  int subtreeOps(int module) const { return m_subtreeOps[static_cast<std::size_t>(module)]; }
  /// Weights (parameters, buffers, constants) an op node reads: folded into its box. With
  /// quantization folded, a weight read through a dequantize (or a subclass's inner tensor) is the
  /// stored weight, and dequantizedBy names that node.
  std::span<const ValueId> weightsOf(NodeId n) const {
    const auto i = static_cast<std::size_t>(n);
    return {m_weights.data() + m_weightsStart[i], m_weightsStart[i + 1] - m_weightsStart[i]};
  }
  NodeId dequantizedBy(NodeId n, ValueId weight) const;
  /// The op's argument that reads the weight (through its dequantize): "weight", "bias".
  std::string readAs(NodeId n, ValueId weight) const;
  /// Whether the node is quantization folded into an edge or a box (not drawn itself).
  bool isFolded(NodeId n) const { return m_folded[static_cast<std::size_t>(n)]; }
  /// Boxes a level contributes when expanded (its items, ports excluded).
  int boxCount(int module) const { return static_cast<int>(level(module).items.size()); }
  /// Child modules drawn as boxes or frames. A module with at most one op in its subtree is
  /// transparent: its op is drawn directly in the parent (titled with the module's name), since a
  /// frame around one box only costs space and a dot run.
  const std::vector<int>& children(int module) const { return m_children[static_cast<std::size_t>(module)]; }
  /// The module whose level draws the op: its innermost non-transparent module.
  int drawnIn(NodeId n) const { return m_nodeModule[static_cast<std::size_t>(n)]; }
  /// The transparent module an op stands for (its innermost module), or -1.
  int inlinedModule(NodeId n) const { return m_inlined[static_cast<std::size_t>(n)]; }
  /// Whether the node is drawn as a box (call_function, not getitem).
  bool isOpBox(NodeId n) const;
  /// The node's box: drawnOp's answer, kept per node.
  NodeId drawnAs(NodeId n) const { return m_drawnAs[static_cast<std::size_t>(n)]; }
  bool isWeight(ValueId v) const { return m_isWeight[static_cast<std::size_t>(v)]; }
  /// Every dataflow edge between drawn leaves (ops, user inputs, outputs), ignoring modules.
  const std::vector<LevelEdge>& flatEdges() const { return m_flat; }

 private:
  const Program& m_program;
  ViewOptions m_options;
  std::vector<bool> m_folded, m_opBox;
  std::vector<NodeId> m_drawnAs;
  struct WeightVia {
    ValueId weight;
    NodeId dequantize;
    std::string argument;
  };
  std::vector<std::vector<WeightVia>> m_weightVia;  // per op: its weights read through a dequantize
  std::size_t m_programModules = 0;
  std::vector<SiblingGroup> m_groups;
  std::vector<ModuleLevel> m_levels;
  std::vector<int> m_parent, m_depth, m_subtreeOps, m_nodeModule, m_inlined;
  std::vector<std::vector<int>> m_children;
  // Each op's weights, node after node: node n's are [m_weightsStart[n], m_weightsStart[n + 1]).
  // (A list per node was 100k allocations at 100k nodes.)
  std::vector<ValueId> m_weights;
  std::vector<std::size_t> m_weightsStart;
  std::vector<bool> m_isWeight;
  std::vector<LevelEdge> m_flat;
};

/// The node `n` is drawn as: a getitem only names an output of the op before it (a list output's
/// getitem of getitem too), so it is drawn as that op; any other node as itself.
NodeId drawnOp(const Program& p, NodeId n);

}  // namespace torchir::layout
