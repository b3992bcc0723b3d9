// The shared buffers large tensors travel in to and from the Python worker, on their own: which
// buffer a call gets, what the worker must be sent or told to forget, and what a worker's reply
// may claim. PythonOpsTest runs them with a real worker.
#include <fcntl.h>
#include <sys/mman.h>
#include <unistd.h>

#include <QtTest>
#include <cstring>

#include "pyhost/SharedBuffers.h"

using namespace torchir;

namespace {

constexpr std::size_t MiB = std::size_t{1} << 20;

/// A memfd of `bytes` as the worker makes one for a result that fitted no spare, with `seals`.
UniqueFd workersMemfd(std::size_t bytes, int seals) {
  UniqueFd fd(memfd_create("test-result", MFD_CLOEXEC | MFD_ALLOW_SEALING));
  if (!fd || ftruncate(fd.get(), static_cast<off_t>(bytes)) != 0) return UniqueFd();
  if (seals && fcntl(fd.get(), F_ADD_SEALS, seals) != 0) return UniqueFd();
  return fd;
}

bool throws(const std::function<void()>& f) {
  try {
    f();
  } catch (const std::runtime_error&) {
    return true;
  }
  return false;
}

}  // namespace

class SharedBuffersTest : public QObject {
  Q_OBJECT
 private Q_SLOTS:
  void aBufferIsSentOnceAndThenNamed() {
    auto pool = std::make_shared<SharedBuffers>();
    const SharedBuffers::Lent first = pool->borrow(3 * MiB);
    QVERIFY(first.fdToSend >= 0);
    QCOMPARE(first.size, 4 * MiB);  // rounded up to the grain
    pool->sent();
    pool->answered(0);
    pool->endCall();
    const SharedBuffers::Lent again = pool->borrow(3 * MiB + 1);
    QCOMPARE(again.id, first.id);
    QCOMPARE(again.fdToSend, -1);  // the worker has it mapped
    QCOMPARE(again.data, first.data);
    // in the same call, another input gets another buffer
    QVERIFY(pool->borrow(3 * MiB).id != first.id);
  }

  void aRequestNeverSentSendsItsDescriptorsNextTime() {
    auto pool = std::make_shared<SharedBuffers>();
    const auto first = pool->borrow(MiB);
    pool->endCall();  // the request failed before it was sent
    const auto again = pool->borrow(MiB);
    QCOMPARE(again.id, first.id);
    QVERIFY(again.fdToSend >= 0);
  }

  void aRequestTheWorkerRefusedSendsItsDescriptorsAgain() {
    // it may have failed before it mapped them; when such a buffer goes, the worker forgets it
    auto pool = std::make_shared<SharedBuffers>();
    const auto first = pool->borrow(300 * MiB);
    pool->sent();
    pool->endCall();
    QVERIFY(pool->borrow(300 * MiB).fdToSend >= 0);
    pool->borrow(MiB);  // a second buffer: the large one is no longer the only one free
    pool->endCall();
    QCOMPARE(pool->forgotten(), std::vector<std::uint32_t>{first.id});
  }

  void aNewWorkerIsSentEveryBufferAgain() {
    auto pool = std::make_shared<SharedBuffers>();
    pool->borrow(MiB);
    pool->sent();
    pool->answered(0);
    pool->endCall();
    pool->workerStarted();
    QVERIFY(pool->borrow(MiB).fdToSend >= 0);
  }

  void aSmallTensorTakesNoLargeBuffer() {
    auto pool = std::make_shared<SharedBuffers>();
    const auto large = pool->borrow(64 * MiB);
    pool->endCall();
    const auto small = pool->borrow(MiB);
    QVERIFY(small.id != large.id);
    QCOMPARE(small.size, 2 * MiB);
  }

  void aReplyMayNameOnlyASpareOfItsCall() {
    auto pool = std::make_shared<SharedBuffers>();
    const auto input = pool->borrow(4 * MiB);
    QVERIFY(throws([&] { pool->lease(input.id, MiB); }));  // an input of the call
    QVERIFY(throws([&] { pool->lease(999, MiB); }));       // no buffer at all
    pool->endCall();
    const auto spares = pool->spares(8);
    QCOMPARE(spares.size(), std::size_t{1});
    QVERIFY(throws([&] { pool->lease(spares[0].id, spares[0].size + 1); }));  // more bytes than it has
    auto result = pool->lease(spares[0].id, MiB);
    QCOMPARE(result->data, input.data);
    QVERIFY(throws([&] { pool->lease(spares[0].id, MiB); }));  // taken once
    pool->endCall();
    // while the result lives its buffer is no spare and no input's
    QVERIFY(pool->spares(8).empty());
    QVERIFY(pool->borrow(4 * MiB).id != spares[0].id);
    pool->endCall();
    result.reset();
    QCOMPARE(pool->spares(8).size(), std::size_t{2});
  }

  void aBufferLargerThanTheBoundIsKeptForTheNextCall() {
    auto pool = std::make_shared<SharedBuffers>();
    const auto first = pool->borrow(300 * MiB);
    pool->endCall();
    QCOMPARE(pool->borrow(300 * MiB).id, first.id);
  }

  void sparesSendAtMostTheDescriptorsLeft() {
    auto pool = std::make_shared<SharedBuffers>();
    for (int i = 0; i < 3; ++i) pool->borrow(MiB);
    pool->endCall();  // three free buffers, none mapped by the worker
    const auto spares = pool->spares(2);
    QCOMPARE(spares.size(), std::size_t{2});
    for (const auto& s : spares) QVERIFY(s.fdToSend >= 0);
  }

  void aWorkersResultMustBeSealedAtItsSize() {
    auto pool = std::make_shared<SharedBuffers>();
    QVERIFY(throws([&] { pool->adopt(workersMemfd(MiB, 0), MiB); }));
    QVERIFY(throws([&] { pool->adopt(workersMemfd(MiB, F_SEAL_GROW | F_SEAL_SEAL), MiB); }));
    QVERIFY(throws([&] { pool->adopt(workersMemfd(MiB, F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_SEAL), MiB + 1); }));
    // sealed against writes: it cannot be a buffer later calls write into, so it is refused
    QVERIFY(throws([&] { pool->adopt(workersMemfd(MiB, F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_WRITE | F_SEAL_SEAL), MiB); }));
    QVERIFY(throws([&] { pool->adopt(UniqueFd(), MiB); }));
    auto result = pool->adopt(workersMemfd(MiB, F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_SEAL), MiB);
    std::memset(result->data, 7, MiB);
    result.reset();
    // kept for later calls: the worker closed its own, so it is sent again with a descriptor
    const auto spares = pool->spares(8);
    QCOMPARE(spares.size(), std::size_t{1});
    QVERIFY(spares[0].fdToSend >= 0);
  }

  void freeMemoryPastTheBoundGoesAndTheWorkerIsToldToForget() {
    auto pool = std::make_shared<SharedBuffers>();
    std::vector<std::uint32_t> ids;
    for (int i = 0; i < 5; ++i) ids.push_back(pool->borrow(64 * MiB).id);  // 320 MiB, not touched
    pool->sent();
    pool->answered(0);
    pool->endCall();
    const std::vector<std::uint32_t> forgotten = pool->forgotten();
    QCOMPARE(forgotten, std::vector<std::uint32_t>{ids.front()});  // 256 MiB are kept, the oldest goes
    pool->sent();
    QCOMPARE(pool->forgotten(), forgotten);  // told once the worker answers
    pool->answered(forgotten.size());
    QVERIFY(pool->forgotten().empty());
    QCOMPARE(pool->spares(8).size(), std::size_t{4});
  }

  void aResultOutlivesItsPool() {
    auto pool = std::make_shared<SharedBuffers>();
    pool->borrow(MiB);
    pool->endCall();
    const auto spare = pool->spares(1).at(0);
    auto result = pool->lease(spare.id, MiB);
    pool.reset();  // the worker was replaced and its pool went first
    std::memset(result->data, 1, MiB);
    result.reset();
  }
};

QTEST_APPLESS_MAIN(SharedBuffersTest)
#include "SharedBuffersTest.moc"
