#include "ExecutorRegistry.h"

#include <map>
#include <mutex>

namespace torchir {
namespace {

struct Registry {
  std::mutex mutex;
  std::map<std::string, Executor> executors;
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

}  // namespace

void registerExecutor(const std::string& opType, Executor executor) {
  auto& r = registry();
  std::lock_guard<std::mutex> lock(r.mutex);
  r.executors[opType] = std::move(executor);
}

std::optional<Executor> findExecutor(const std::string& opType) {
  auto& r = registry();
  std::lock_guard<std::mutex> lock(r.mutex);
  for (const std::string& name : {opType, withoutOverload(opType)}) {
    auto it = r.executors.find(name);
    if (it != r.executors.end()) return it->second;
  }
  return std::nullopt;
}

std::vector<std::string> registeredExecutors() {
  auto& r = registry();
  std::lock_guard<std::mutex> lock(r.mutex);
  std::vector<std::string> names;
  for (const auto& [name, fn] : r.executors) names.push_back(name);
  return names;
}

}  // namespace torchir
