#include "SmallBlockAllocator.h"

#include <c10/core/Allocator.h>
#include <c10/core/CPUAllocator.h>
#include <c10/util/Exception.h>

#include <array>
#include <cstdlib>
#include <mutex>
#include <vector>

namespace torchir {
namespace {

constexpr std::size_t kAlignment = 64;  // c10::gAlignment: what vectorized kernels expect
constexpr std::size_t kClasses = 64;    // blocks of 64, 128, ... 4096 bytes
constexpr std::size_t kMaxCachedBytes = std::size_t(64) << 20;  // all classes together
constexpr std::size_t kLarge = ~std::size_t(0);  // the size class of a block that is not kept
constexpr std::size_t kMaxBytes = std::size_t(1) << 60;  // beyond any machine: keeps the sums below from wrapping

/// A block is preceded by one aligned header that names its size class, so the deleter,
/// which only gets the block, knows where to return it.
struct alignas(kAlignment) Header {
  std::size_t sizeClass;
};

class SmallBlockAllocator final : public c10::Allocator {
 public:
  c10::DataPtr allocate(std::size_t bytes) override {
    const c10::Device cpu(c10::DeviceType::CPU);
    if (bytes == 0) return {nullptr, nullptr, &release, cpu};
    TORCH_CHECK(bytes <= kMaxBytes, "not enough memory: you tried to allocate ", bytes, " bytes.");
    const bool small = bytes <= kClasses * kAlignment;
    const std::size_t sizeClass = small ? (bytes - 1) / kAlignment : kLarge;  // 0 .. kClasses-1
    void* block = small ? take(sizeClass) : nullptr;
    if (!block) {
      const std::size_t payload = small ? (sizeClass + 1) * kAlignment : roundUp(bytes);
      auto* header = static_cast<Header*>(std::aligned_alloc(kAlignment, sizeof(Header) + payload));
      TORCH_CHECK(header, "not enough memory: you tried to allocate ", bytes, " bytes.");
      header->sizeClass = sizeClass;
      block = header + 1;
    }
    return {block, block, &release, cpu};
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
    m_cachedBytes -= (sizeClass + 1) * kAlignment;
    return block;
  }

  static std::size_t roundUp(std::size_t bytes) { return (bytes + kAlignment - 1) / kAlignment * kAlignment; }

  // Also the raw deleter (oneDNN frees what it got from raw_allocate with it): every block,
  // small or large, carries a header.
  static void release(void* block) {
    if (!block) return;
    Header* header = static_cast<Header*>(block) - 1;
    const std::size_t sizeClass = header->sizeClass;
    if (sizeClass == kLarge) return std::free(header);
    const std::size_t bytes = (sizeClass + 1) * kAlignment;
    {
      std::lock_guard<std::mutex> lock(s_instance->m_mutex);
      if (s_instance->m_cachedBytes + bytes <= kMaxCachedBytes) {
        try {  // a deleter must not throw: a list that cannot grow frees the block instead
          s_instance->m_free[sizeClass].push_back(block);
          s_instance->m_cachedBytes += bytes;
          return;
        } catch (const std::bad_alloc&) {
        }
      }
    }
    std::free(header);
  }

  std::size_t cachedBytes() {
    std::lock_guard<std::mutex> lock(m_mutex);
    return m_cachedBytes;
  }

  std::mutex m_mutex;
  std::array<std::vector<void*>, kClasses> m_free;
  std::size_t m_cachedBytes = 0;  // payload held in m_free

  friend void torchir::installSmallBlockAllocator();
  friend std::size_t torchir::smallBlockCacheBytes();
};

SmallBlockAllocator* SmallBlockAllocator::s_instance = nullptr;

}  // namespace

// Installed when libtorchir_aten is loaded, before anything here calls ATen: oneDNN frees with the
// raw deleter of the allocator installed at that time, so a block must not outlive a switch.
[[maybe_unused]] const bool kInstalledOnLoad = (installSmallBlockAllocator(), true);

void installSmallBlockAllocator() {
  static const bool installed = [] {
    // Never destroyed: tensors made with it may be freed during exit, after static destructors.
    SmallBlockAllocator::s_instance = new SmallBlockAllocator();
    c10::SetCPUAllocator(SmallBlockAllocator::s_instance, /*priority=*/1);
    return true;
  }();
  (void)installed;
}

std::size_t smallBlockCacheBytes() {
  return SmallBlockAllocator::s_instance ? SmallBlockAllocator::s_instance->cachedBytes() : 0;
}

}  // namespace torchir
