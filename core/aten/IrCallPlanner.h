#pragma once
// Rebuilds the call of a node read from pytorch-ir's IR JSON: the op schema decides where each of
// the node's flat tensor inputs and each attribute goes (the seed's "ATen fallback").
#include "ArgumentBuilder.h"

namespace torchir {

/// Plans the call the way seed-ir.md describes, without the seed executor's weak spots:
/// - the IR drops a None optional tensor, so when fewer tensors than optional slots arrive the
///   inputs are placed by their names (`p_bn_bias` fills `bias`), else by position as the seed
///   does; either way those arguments are ArgSource::Inferred and their sourceDetail says why;
/// - none masks pair with the Tensor?[] list whose size they fit, not with the k-th list;
/// - every argument is looked up by name, so a missing default drops nothing after it.
/// Throws std::runtime_error when the inputs and attrs cannot fill the schema.
CallPlan planIrCall(const Program& program, const Node& node, const c10::FunctionSchema& schema);

/// The IR's getitem node: (Tensor[] outputs of the producer, int index), from its inputs and
/// attrs['index']. Unlike a .pt2 getitem it has an output value of its own, so it does work.
CallPlan planIrGetItem(const Program& program, const Node& node);

}  // namespace torchir
