#pragma once
#include <cstddef>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "program/TensorData.h"

namespace torchir {

/// One value of a restricted pickle: plain data, tensors and the few torch globals that
/// `torch.save` needs. There is no "object" kind, so nothing from the file can run code: a tensor
/// subclass is data too (Subclass: the class by name, the outer view, the state as a dict), and so
/// is an object of any other class (Object: the class by name, its arguments and state), which is
/// accepted only inside a subclass's state (a torchao config field such as a granularity).
struct PickleValue {
  enum class Kind { None, Bool, Int, Float, Str, Tuple, List, Dict, Global, Storage, Tensor, Subclass, Object };
  Kind kind = Kind::None;
  int64_t i = 0;                                    // Bool, Int
  double f = 0;                                     // Float
  std::string s;                                    // Str; Global: "module.name"; Subclass, Object: the class
  bool callable = false;                            // Global: one of the torch functions we rebuild
  std::vector<std::shared_ptr<PickleValue>> items;  // Tuple, List; Object: its arguments
  std::vector<std::pair<std::shared_ptr<PickleValue>, std::shared_ptr<PickleValue>>> entries;  // Dict; Subclass's, Object's state
  std::map<std::string, std::size_t> strIndex;  // Dict: entry of each string key, for SETITEM on large dicts
  DType dtype = DType::Unknown;                 // Global naming a dtype or a typed storage; Storage; Tensor
  std::shared_ptr<const Storage> storage;       // Storage
  TensorData tensor;                            // Tensor; Subclass: the outer view, without storage
  // Containers may only change until they are put into another one. That keeps the value a tree
  // (no cycles from a hostile file) whose depth is known when it is built.
  bool frozen = false;
  int depth = 0;
  std::size_t treeSize = 1;  // values in the tree, shared ones counted each time they are reached
  std::string foreign;       // the first Object in the tree outside a subclass's state: refused at the root
};
using PickleRef = std::shared_ptr<PickleValue>;

/// Turns a persistent id (the tuple torch.save writes for each storage) into a Storage value.
using PersistentLoad = std::function<PickleRef(const PickleValue& pid)>;

/// Runs a pickle (protocols 2 to 5, the opcodes torch.save emits) with a whitelist: the only calls
/// are collections.OrderedDict, torch._utils' tensor rebuild functions, torch._tensor's
/// _rebuild_from_type_v2 of a wrapper subclass (read as a Subclass value), torch.device and
/// torch.serialization._get_layout (read as their names). A call of any other global is read as an
/// Object and refused ("refused global os.system") unless it ends up inside a subclass's state.
/// Anything else, a malformed or truncated pickle included, throws LoadError(file, ...).
/// `name` prefixes problems (e.g. "data.pkl").
PickleRef unpickle(const std::byte* data, std::size_t size, const std::string& file, const std::string& name,
                   const PersistentLoad& persistentLoad);

}  // namespace torchir
