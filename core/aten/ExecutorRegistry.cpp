#include "ExecutorRegistry.h"

#include <map>
#include <mutex>

namespace torchir {
namespace {

struct Registered {
  Executor executor;
  std::string origin;
};

struct Registry {
  std::mutex mutex;
  std::map<std::string, Registered> executors;
};

Registry& registry() {
  static Registry r;  // constructed on first use: registrations can run from any library's initialisers
  return r;
}

/// "aten.add.Tensor" -> "aten.add"; names with fewer than three parts have no overload.
std::string withoutOverload(const std::string& opType) {
  const auto first = opType.find('.');
  const auto last = opType.rfind('.');
  return first == std::string::npos || first == last ? opType : opType.substr(0, last);
}

/// The executor for an op type: the exact name first, then the name without its overload.
const Registered* lookup(const Registry& r, const std::string& opType) {
  for (const std::string& name : {opType, withoutOverload(opType)}) {
    auto it = r.executors.find(name);
    if (it != r.executors.end()) return &it->second;
  }
  return nullptr;
}

}  // namespace

void registerExecutor(const std::string& opType, Executor executor, std::string origin) {
  auto& r = registry();
  std::lock_guard<std::mutex> lock(r.mutex);
  r.executors[opType] = {std::move(executor), std::move(origin)};
}

void unregisterExecutor(const std::string& opType) {
  auto& r = registry();
  std::lock_guard<std::mutex> lock(r.mutex);
  r.executors.erase(opType);
}

std::optional<Executor> findExecutor(const std::string& opType) {
  auto& r = registry();
  std::lock_guard<std::mutex> lock(r.mutex);
  if (const Registered* e = lookup(r, opType)) return e->executor;
  return std::nullopt;
}

std::string executorOrigin(const std::string& opType) {
  auto& r = registry();
  std::lock_guard<std::mutex> lock(r.mutex);
  const Registered* e = lookup(r, opType);
  return e ? e->origin : std::string();
}

std::vector<std::string> registeredExecutors() {
  auto& r = registry();
  std::lock_guard<std::mutex> lock(r.mutex);
  std::vector<std::string> names;
  for (const auto& [name, fn] : r.executors) names.push_back(name);
  return names;
}

}  // namespace torchir
