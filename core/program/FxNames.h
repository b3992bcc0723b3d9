#pragma once
// How torch.export.load names what it rebuilds: node targets as str() shows them, and the names
// FX gives nodes, so the FX table reads as Python prints it.
#include <cstdint>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "NameIndex.h"

namespace torchir {

/// str() of the Python object the deserializer resolves a serialized target to:
/// "torch.ops.aten.add.Tensor" -> "aten.add.Tensor", "torch.ops.higher_order.cond" -> "cond",
/// "_operator.getitem" -> "<built-in function getitem>"; an ExecuTorch Edge op
/// ("executorch.exir.dialects.edge.ops.aten.linear.default") as the op it is ("aten.linear.default").
std::string displayTarget(const std::string& serialized);

/// The name FX gives a node created without one (Graph._target_to_str, then Namespace.create_name):
/// an op overload's `__name__` ("topk.default"), snake-cased, with illegal characters as `_`:
/// "topk_default", "max_dim"; a higher-order op's name ("cond") as it is. Archives of torch 2.7
/// and 2.8 name no multi-output node, so torch.export.load shows these names.
std::string fxDefaultName(const std::string& target);

/// FX's Graph namespace: a taken name gets `_1`, `_2`, ... Each name remembers the suffix it
/// reached (names are never released), so 30k nodes of one name cost linear time, not quadratic.
/// The names taken are kept end to end in one buffer, found through a NameIndex: no allocation
/// per name (170k of them in a 100k-op program).
class UniqueNames {
 public:
  UniqueNames() = default;
  UniqueNames(const UniqueNames&) = delete;  // the index reads names through `this`
  UniqueNames& operator=(const UniqueNames&) = delete;

  std::string take(const std::string& name);

 private:
  struct Taken {
    const UniqueNames* names;
    std::string_view operator()(int32_t id) const { return names->nameOf(id); }
  };
  std::string_view nameOf(int32_t id) const;
  bool taken(std::string_view name) const { return m_index.find(name) >= 0; }

  std::string m_text;                                    // every name taken, end to end
  std::vector<std::pair<std::size_t, std::size_t>> m_spans;  // by id: offset and length in m_text
  NameIndex<Taken> m_index{Taken{this}};
  std::unordered_map<std::string, std::size_t> m_nextSuffix;
};

}  // namespace torchir
