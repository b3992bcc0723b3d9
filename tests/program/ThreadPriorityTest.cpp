// A background thread gives way to the window's: its own nice value goes to 10, the thread that
// lowered nothing keeps its own, and a thread it starts inherits the lower one.
#include <QtTest>

#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <thread>

#include "exec/ThreadPriority.h"

using namespace torchir;

namespace {

int niceOfThisThread() {
  errno = 0;
  const int nice = getpriority(PRIO_PROCESS, static_cast<id_t>(syscall(SYS_gettid)));
  return errno == 0 ? nice : -100;
}

}  // namespace

class ThreadPriorityTest : public QObject {
  Q_OBJECT

 private Q_SLOTS:
  void lowersOnlyTheCallingThreadAndWhatItStarts() {
    const int before = niceOfThisThread();
    int lowered = -100, child = -100, again = -100;
    std::thread([&] {
      lowerThisThreadPriority();
      lowered = niceOfThisThread();
      std::thread([&] { child = niceOfThisThread(); }).join();
      lowerThisThreadPriority();  // twice: still 10, not 20
      again = niceOfThisThread();
    }).join();
    QCOMPARE(lowered, std::max(before, 10));
    QCOMPARE(child, lowered);
    QCOMPARE(again, lowered);
    QCOMPARE(niceOfThisThread(), before);
  }
};

QTEST_GUILESS_MAIN(ThreadPriorityTest)
#include "ThreadPriorityTest.moc"
