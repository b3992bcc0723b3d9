// The engine's CPU allocator: small tensors reuse freed blocks (from any thread), blocks stay
// aligned for vectorized kernels, large ones are not kept, the cache is bounded, and what oneDNN
// takes with raw_allocate comes back through raw_deleter.
#include <ATen/ATen.h>
#include <c10/core/CPUAllocator.h>

#include <QtTest>
#include <set>
#include <thread>
#include <vector>

#include "aten/SmallBlockAllocator.h"

using namespace torchir;

namespace {

bool aligned(const void* p) { return reinterpret_cast<std::uintptr_t>(p) % 64 == 0; }

}  // namespace

class SmallBlockAllocatorTest : public QObject {
  Q_OBJECT
 private Q_SLOTS:
  void initTestCase() {
    // Installed when the library was loaded, before this test made any tensor.
    QVERIFY(c10::GetCPUAllocator() != c10::GetDefaultCPUAllocator());
    installSmallBlockAllocator();  // idempotent
  }

  void smallTensorsReuseFreedBlocks() {
    at::Tensor t = at::empty({8});
    QVERIFY(aligned(t.data_ptr()));
    const void* block = t.data_ptr();
    t.reset();
    at::Tensor again = at::empty({2, 4});  // the same 32 bytes
    QCOMPARE(again.data_ptr(), block);
    at::Tensor other = at::empty({100});  // 400 bytes: another size class, another block
    QVERIFY(other.data_ptr() != block);
    QVERIFY(aligned(other.data_ptr()));
  }

  void largeBlocksAreNotKept() {
    {
      at::Tensor big = at::ones({4097}, at::kByte);
      QVERIFY(aligned(big.data_ptr()));
      QCOMPARE(big.sum().item<int64_t>(), int64_t(4097));
    }
    const std::size_t before = smallBlockCacheBytes();  // after the sum's own small block came back
    { at::Tensor big = at::empty({4097}, at::kByte); }
    QCOMPARE(smallBlockCacheBytes(), before);
    // A 4 KiB block is kept: the cache holds one more, whether it was made or taken from the cache.
    std::vector<at::Tensor> blocks;
    for (int i = 0; i < 3; ++i) blocks.push_back(at::empty({4096}, at::kByte));
    const std::size_t held = smallBlockCacheBytes();
    blocks.pop_back();
    QCOMPARE(smallBlockCacheBytes(), held + 4096);
    QCOMPARE(at::empty({0}).numel(), int64_t(0));
  }

  // oneDNN (convolutions) allocates with raw_allocate and frees with raw_deleter(): every size,
  // the empty one included, must round-trip.
  void rawAllocationsRoundTrip() {
    c10::Allocator* a = c10::GetCPUAllocator();
    for (std::size_t bytes : {std::size_t(0), std::size_t(1), std::size_t(4096), std::size_t(4097), std::size_t(1) << 24}) {
      void* p = a->raw_allocate(bytes);
      QVERIFY(aligned(p));
      if (bytes) static_cast<char*>(p)[bytes - 1] = 1;
      a->raw_deleter()(p);
    }
  }

  void absurdSizesAreAnError() {
    QVERIFY_THROWS_EXCEPTION(c10::Error, c10::GetCPUAllocator()->allocate(~std::size_t(0) - 8));
  }

  void blocksFreedOnAnotherThreadAreReused() {
    std::vector<at::Tensor> made;
    std::set<const void*> blocks;
    for (int i = 0; i < 100; ++i) {
      made.push_back(at::full({16}, i, at::kFloat));
      blocks.insert(made.back().data_ptr());
    }
    QCOMPARE(made[42][3].item<float>(), 42.0f);  // blocks do not overlap
    std::thread([&] { made.clear(); }).join();
    int reused = 0;
    for (int i = 0; i < 100; ++i) reused += blocks.count(at::empty({16}).data_ptr());
    QVERIFY2(reused > 0, "no freed block was reused");
  }

  void theCacheIsBounded() {
    {
      std::vector<at::Tensor> many;
      for (int i = 0; i < 20000; ++i) many.push_back(at::empty({1024}));  // 80 MiB of 4 KiB blocks
    }
    // Full to within one 4 KiB block, and no more.
    const std::size_t cached = smallBlockCacheBytes(), limit = std::size_t(64) << 20;
    QVERIFY2(cached <= limit && cached > limit - 4096, std::to_string(cached).c_str());
  }
};

QTEST_GUILESS_MAIN(SmallBlockAllocatorTest)
#include "SmallBlockAllocatorTest.moc"
