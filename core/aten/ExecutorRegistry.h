#pragma once
// Custom executors, as pytorch-ir's `register_executor`: C++ functions that run an op the
// dispatcher does not hold (or replace one it does). Written against libtorch, compiled into a
// shared library that links libtorchir_aten.so, and loaded with `torchir run --executors LIB.so`
// (AtenBackend::loadExecutors). docs/custom-executors.md shows a whole example.
#include <ATen/Tensor.h>

#include <functional>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace torchir {

/// The node's tensor inputs in order and its other arguments by name (`{"dim": 1}`); returns the
/// node's outputs in order.
using Executor = std::function<std::vector<at::Tensor>(const std::vector<at::Tensor>& inputs, const nlohmann::json& attrs)>;

/// Registers `executor` for an op type as pytorch-ir writes it (`mylib.scale.default`, or without
/// the overload, `mylib.scale`, to cover every overload). Thread-safe; a later registration of
/// the same name replaces the earlier one. `origin` says what runs it, for the argument view.
void registerExecutor(const std::string& opType, Executor executor, std::string origin = "custom executor");

/// Forgets the executor registered under exactly this name (a Python host replaced).
void unregisterExecutor(const std::string& opType);

/// What serves an op type: the origin given when its executor was registered ("" for none).
std::string executorOrigin(const std::string& opType);

/// The executor for an op type: the exact name first, then the name without its overload.
std::optional<Executor> findExecutor(const std::string& opType);

/// The registered names, sorted (pytorch-ir's `list_registered_ops()["execution"]`).
std::vector<std::string> registeredExecutors();

}  // namespace torchir

/// Registers an executor when the library holding this line is loaded.
#define TORCHIR_REGISTER_EXECUTOR(opType, ...) \
  static const bool TORCHIR_CONCAT(torchir_executor_, __LINE__) = (::torchir::registerExecutor(opType, __VA_ARGS__), true)
#define TORCHIR_CONCAT_INNER(a, b) a##b
#define TORCHIR_CONCAT(a, b) TORCHIR_CONCAT_INNER(a, b)
