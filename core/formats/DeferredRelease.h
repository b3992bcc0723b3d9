#pragma once
#include <memory>
#include <vector>

namespace torchir {

/// Scratch a reader is done with (the JSON document of a 30k-node program: millions of small
/// blocks, a few hundred ms to free). Freed at once, unless the thread holds a DeferredReleaseScope:
/// then when the scope ends, on the same thread. The studio's loader holds one, so a program
/// reaches the window before its document is freed. Freeing stays on the thread that allocated:
/// freeing from another thread contends for the allocator's arena and was slower.
void releaseLater(std::shared_ptr<void> scratch);

class DeferredReleaseScope {
 public:
  DeferredReleaseScope();
  ~DeferredReleaseScope();  // frees what the readers handed over, newest first
  DeferredReleaseScope(const DeferredReleaseScope&) = delete;
  DeferredReleaseScope& operator=(const DeferredReleaseScope&) = delete;

 private:
  std::vector<std::shared_ptr<void>> m_held;
  std::vector<std::shared_ptr<void>>* m_outer;  // scopes nest; the innermost collects
};

}  // namespace torchir
