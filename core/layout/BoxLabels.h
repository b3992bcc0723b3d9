#pragma once
// The text inside each box. Kept short on purpose: boxes are sized by it and dot's time grows with
// the drawing's width.
#include <string>
#include <vector>

#include "ViewGraph.h"

namespace torchir::layout {

/// `aten.conv2d.default` -> `conv2d`, `aten.add.Tensor` -> `add.Tensor`.
std::string shortOpName(const std::string& target);
/// A SymInt, SymFloat or SymBool operation as people write it, with the graph's own names:
/// `item <= 5`, `-sym_size_int`, `sym_max(a, 2)`; empty for any other node.
std::string symbolicExpression(const Program& p, const Node& n);
/// `1x64x56x56 f32`, `s0x8 f32`, `scalar i64`, `SymInt`.
std::string valueText(const Value& v);

/// The label of an edge that carries a folded quantize node's output: `uint8 s=0.0123 zp=-3`,
/// `int8 dynamic`, `int8 per-token`.
std::string quantizedEdgeLabel(const Program& p, NodeId quantize);

std::vector<std::string> opLabel(const ViewGraph& g, NodeId n);
std::vector<std::string> inputLabel(const Program& p, int inputIndex);
std::vector<std::string> outputLabel(const Program& p, int outputIndex);
std::vector<std::string> moduleLabel(const ViewGraph& g, int module);
/// The frame title of an expanded module: `layer1.0 (BasicBlock)`, or of a group:
/// `model.layers.0–63 (64 × LlamaDecoderLayer)`.
std::string frameLabel(const ViewGraph& g, int module);

}  // namespace torchir::layout
