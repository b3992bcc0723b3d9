// The process's malloc settings: memory freed between blocks still in use goes back to the system
// when asked (returnFreedMemory), as after a big program is replaced.
#include <QtTest>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <string>
#include <thread>
#include <vector>

#include "formats/AllocatorTuning.h"

using namespace torchir;

namespace {

/// The process's resident anonymous memory, from /proc/self/status; -1 where it cannot be read.
long long residentAnonymousKiB() {
  std::ifstream status("/proc/self/status");
  for (std::string line; std::getline(status, line);)
    if (line.rfind("RssAnon:", 0) == 0) return std::atoll(line.c_str() + 8);
  return -1;
}

}  // namespace

class AllocatorTuningTest : public QObject {
  Q_OBJECT
 private Q_SLOTS:
  void initTestCase() {
#if defined(__SANITIZE_ADDRESS__)
    QSKIP("a sanitizer's allocator keeps freed memory in quarantine, whatever malloc is asked");
#elif !defined(__GLIBC__)
    QSKIP("returnFreedMemory asks glibc's malloc");
#endif
    if (residentAnonymousKiB() < 0) QSKIP("no /proc/self/status to read resident memory from");
    tuneAllocator();  // as each executable does first
  }

  void freedPagesBetweenLiveBlocksGoBack() {
    // 256 MiB in 4 KiB blocks, made on a thread of its own as the loader's are, then all freed but
    // every sixteenth: the blocks left pin every heap, so nothing can be trimmed from a heap's top.
    constexpr std::size_t kBlock = 4096, kBlocks = (std::size_t{256} << 20) / kBlock, kKeepEvery = 16;
    std::vector<char*> kept;
    bool allocated = true;
    std::thread([&] {
      std::vector<char*> blocks(kBlocks);
      for (char*& block : blocks) {
        block = static_cast<char*>(std::malloc(kBlock));
        if (!block) return void(allocated = false);
        std::memset(block, 1, kBlock);  // resident
      }
      for (std::size_t i = 0; i < kBlocks; ++i) {
        if (i % kKeepEvery == 0) kept.push_back(blocks[i]);
        else std::free(blocks[i]);
      }
    }).join();
    QVERIFY(allocated);
    const long long held = residentAnonymousKiB();

    returnFreedMemory();
    const long long after = residentAnonymousKiB();
    // Fifteen of every sixteen blocks were freed: 240 MiB, most of it whole pages between the kept ones.
    QVERIFY2(held - after > 160 * 1024, qPrintable(QStringLiteral("resident %1 KiB before, %2 KiB after").arg(held).arg(after)));
    for (char* block : kept) {
      QCOMPARE(block[kBlock - 1], char{1});  // what is still in use is untouched
      std::free(block);
    }
  }
};

QTEST_GUILESS_MAIN(AllocatorTuningTest)
#include "AllocatorTuningTest.moc"
