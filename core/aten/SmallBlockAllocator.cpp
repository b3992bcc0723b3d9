#include "SmallBlockAllocator.h"

#include <c10/core/Allocator.h>
#include <c10/core/CPUAllocator.h>

#include <array>
#include <cstdlib>
#include <mutex>
#include <new>
#include <vector>

namespace torchir {
namespace {

constexpr std::size_t kAlignment = 64;  // c10::gAlignment: what vectorized kernels expect
constexpr std::size_t kClasses = 64;    // blocks of 64, 128, ... 4096 bytes
constexpr std::size_t kMaxCachedBytesPerClass = std::size_t(4) << 20;

/// A block is preceded by one aligned header that names its size class, so the deleter,
/// which only gets the block, knows where to return it.
struct alignas(kAlignment) Header {
  std::size_t sizeClass;
};

class SmallBlockAllocator final : public c10::Allocator {
 public:
  explicit SmallBlockAllocator(c10::Allocator* fallback) : m_fallback(fallback) {}

  c10::DataPtr allocate(std::size_t bytes) override {
    if (bytes == 0 || bytes > kClasses * kAlignment) return m_fallback->allocate(bytes);
    const std::size_t sizeClass = (bytes - 1) / kAlignment;  // 0 .. kClasses-1
    void* block = take(sizeClass);
    if (!block) {
      auto* header = static_cast<Header*>(std::aligned_alloc(kAlignment, sizeof(Header) + (sizeClass + 1) * kAlignment));
      if (!header) throw std::bad_alloc();
      header->sizeClass = sizeClass;
      block = header + 1;
    }
    return {block, block, &release, c10::Device(c10::DeviceType::CPU)};
  }

  c10::DeleterFnPtr raw_deleter() const override { return &release; }

  void copy_data(void* dest, const void* src, std::size_t count) const override { default_copy_data(dest, src, count); }

 private:
  static SmallBlockAllocator* s_instance;

  void* take(std::size_t sizeClass) {
    std::lock_guard<std::mutex> lock(m_mutex);
    auto& list = m_free[sizeClass];
    if (list.empty()) return nullptr;
    void* block = list.back();
    list.pop_back();
    return block;
  }

  static void release(void* block) {
    Header* header = static_cast<Header*>(block) - 1;
    const std::size_t sizeClass = header->sizeClass;
    const std::size_t limit = kMaxCachedBytesPerClass / ((sizeClass + 1) * kAlignment);
    {
      std::lock_guard<std::mutex> lock(s_instance->m_mutex);
      auto& list = s_instance->m_free[sizeClass];
      if (list.size() < limit) {
        list.push_back(block);
        return;
      }
    }
    std::free(header);
  }

  std::size_t cachedBytes() {
    std::lock_guard<std::mutex> lock(m_mutex);
    std::size_t bytes = 0;
    for (std::size_t c = 0; c < kClasses; ++c) bytes += m_free[c].size() * (c + 1) * kAlignment;
    return bytes;
  }

  c10::Allocator* m_fallback;
  std::mutex m_mutex;
  std::array<std::vector<void*>, kClasses> m_free;

  friend void torchir::installSmallBlockAllocator();
  friend std::size_t torchir::smallBlockCacheBytes();
};

SmallBlockAllocator* SmallBlockAllocator::s_instance = nullptr;

}  // namespace

void installSmallBlockAllocator() {
  static const bool installed = [] {
    // Never destroyed: tensors made with it may be freed during exit, after static destructors.
    SmallBlockAllocator::s_instance = new SmallBlockAllocator(c10::GetDefaultCPUAllocator());
    c10::SetCPUAllocator(SmallBlockAllocator::s_instance, /*priority=*/1);
    return true;
  }();
  (void)installed;
}

std::size_t smallBlockCacheBytes() {
  return SmallBlockAllocator::s_instance ? SmallBlockAllocator::s_instance->cachedBytes() : 0;
}

}  // namespace torchir
