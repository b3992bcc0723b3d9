// A library of custom executors, loaded by CustomExecutorTest the way users load theirs.
#include <atomic>

#include "aten/ExecutorRegistry.h"

namespace {
std::atomic<int> reluCalls{0};
}  // namespace

// Registered without the overload: it serves aten.relu.default and every other relu overload.
TORCHIR_REGISTER_EXECUTOR("aten.relu", [](const std::vector<at::Tensor>& inputs, const nlohmann::json&) {
  ++reluCalls;
  return std::vector<at::Tensor>{inputs.at(0).clamp_min(0)};
});

extern "C" __attribute__((visibility("default"))) int torchir_test_relu_calls() { return reluCalls.load(); }
