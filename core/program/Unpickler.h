#pragma once
#include <cstddef>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "TensorData.h"

namespace torchir {

/// One value of a restricted pickle: plain data, tensors and the few torch globals that
/// `torch.save` needs. There is no "object" kind, so nothing from the file can run code.
struct PickleValue {
  enum class Kind { None, Bool, Int, Float, Str, Tuple, List, Dict, Global, Storage, Tensor };
  Kind kind = Kind::None;
  int64_t i = 0;                                    // Bool, Int
  double f = 0;                                     // Float
  std::string s;                                    // Str; Global: "module.name"
  std::vector<std::shared_ptr<PickleValue>> items;  // Tuple, List
  std::vector<std::pair<std::shared_ptr<PickleValue>, std::shared_ptr<PickleValue>>> entries;  // Dict, in order
  std::map<std::string, std::size_t> strIndex;  // Dict: entry of each string key, for SETITEM on large dicts
  DType dtype = DType::Unknown;                 // Global naming a dtype or a typed storage; Storage; Tensor
  std::shared_ptr<const Storage> storage;       // Storage
  TensorData tensor;                            // Tensor
  // Containers may only change until they are put into another one. That keeps the value a tree
  // (no cycles from a hostile file) whose depth is known when it is built.
  bool frozen = false;
  int depth = 0;
  std::size_t treeSize = 1;  // values in the tree, shared ones counted each time they are reached
};
using PickleRef = std::shared_ptr<PickleValue>;

/// Turns a persistent id (the tuple torch.save writes for each storage) into a Storage value.
using PersistentLoad = std::function<PickleRef(const PickleValue& pid)>;

/// Runs a pickle (protocols 2 to 5, the opcodes torch.save emits) with a whitelist: globals are only
/// collections.OrderedDict, torch dtypes and storage classes, and torch._utils' tensor rebuild
/// functions. Anything else, a malformed or truncated pickle included, throws LoadError(file, ...).
/// `name` prefixes problems (e.g. "data.pkl").
PickleRef unpickle(const std::byte* data, std::size_t size, const std::string& file, const std::string& name,
                   const PersistentLoad& persistentLoad);

}  // namespace torchir
