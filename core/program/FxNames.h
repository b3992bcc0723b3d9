#pragma once
// How torch.export.load names what it rebuilds: node targets as str() shows them, and the names
// FX gives nodes, so the FX table reads as Python prints it.
#include <string>
#include <unordered_map>
#include <unordered_set>

namespace torchir {

/// str() of the Python object the deserializer resolves a serialized target to:
/// "torch.ops.aten.add.Tensor" -> "aten.add.Tensor", "torch.ops.higher_order.cond" -> "cond",
/// "_operator.getitem" -> "<built-in function getitem>".
std::string displayTarget(const std::string& serialized);

/// The name FX gives a node created without one (Graph._target_to_str, then Namespace.create_name):
/// an op overload's `__name__` ("topk.default"), snake-cased, with illegal characters as `_`:
/// "topk_default", "max_dim"; a higher-order op's name ("cond") as it is. Archives of torch 2.7
/// and 2.8 name no multi-output node, so torch.export.load shows these names.
std::string fxDefaultName(const std::string& target);

/// FX's Graph namespace: a taken name gets `_1`, `_2`, ... Each name remembers the suffix it
/// reached (names are never released), so 30k nodes of one name cost linear time, not quadratic.
class UniqueNames {
 public:
  std::string take(const std::string& name);

 private:
  std::unordered_set<std::string> m_taken;
  std::unordered_map<std::string, std::size_t> m_nextSuffix;
};

}  // namespace torchir
