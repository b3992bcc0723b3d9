// The engine's CPU allocator: small tensors reuse freed blocks (from any thread), stay aligned
// for vectorized kernels, large ones go to c10's default allocator, and the cache is bounded.
#include <ATen/ATen.h>
#include <c10/core/CPUAllocator.h>

#include <QtTest>
#include <set>
#include <thread>
#include <vector>

#include "aten/SmallBlockAllocator.h"

using namespace torchir;

namespace {

bool fromDefaultAllocator(const at::Tensor& t) {
  return t.storage().data_ptr().get_deleter() == c10::GetDefaultCPUAllocator()->raw_deleter();
}

}  // namespace

class SmallBlockAllocatorTest : public QObject {
  Q_OBJECT
 private Q_SLOTS:
  void initTestCase() { installSmallBlockAllocator(); }

  void smallTensorsReuseFreedBlocks() {
    at::Tensor t = at::empty({8});
    QVERIFY(!fromDefaultAllocator(t));
    QCOMPARE(reinterpret_cast<std::uintptr_t>(t.data_ptr()) % 64, std::uintptr_t(0));
    const void* block = t.data_ptr();
    t.reset();
    at::Tensor again = at::empty({2, 4});  // the same 32 bytes
    QCOMPARE(again.data_ptr(), block);
    at::Tensor other = at::empty({100});  // 400 bytes: another size class, another block
    QVERIFY(other.data_ptr() != block);
    QCOMPARE(reinterpret_cast<std::uintptr_t>(other.data_ptr()) % 64, std::uintptr_t(0));
  }

  void largeAndEmptyTensorsUseTheDefaultAllocator() {
    QVERIFY(fromDefaultAllocator(at::empty({4097}, at::kByte)));
    QVERIFY(!fromDefaultAllocator(at::empty({4096}, at::kByte)));
    QCOMPARE(at::empty({0}).numel(), int64_t(0));
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
      for (int i = 0; i < 100000; ++i) many.push_back(at::empty({16}));  // 6.4 MB of 64-byte blocks
    }
    const std::size_t cached = smallBlockCacheBytes();
    QVERIFY2(cached >= (std::size_t(4) << 20) && cached <= (std::size_t(5) << 20), std::to_string(cached).c_str());
  }
};

QTEST_GUILESS_MAIN(SmallBlockAllocatorTest)
#include "SmallBlockAllocatorTest.moc"
