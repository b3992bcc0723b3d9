#include "session/BackgroundPool.h"

#include <QCoreApplication>
#include <QPointer>
#include <QThreadPool>
#include <QTimer>

#include "formats/AllocatorTuning.h"
#include "exec/ThreadPriority.h"

namespace torchir::ui {
namespace {

/// Joined when the application object goes, as Qt joins its global pool: no work of ours is left
/// running while the process winds down.
struct JoinedPool : QThreadPool {
  JoinedPool() {
    qAddPostRoutine([] { torchir::ui::backgroundPool()->waitForDone(); });
  }
};

}  // namespace

Q_GLOBAL_STATIC(JoinedPool, studioBackgroundPool)

QThreadPool* backgroundPool() { return studioBackgroundPool(); }

void returnFreedMemoryWhenQuiet() {
  // Long enough for a 100k-op program's frees (about a second on a loaded machine) and its new
  // program's first view; a second program opened meanwhile puts it off again.
  constexpr int kQuietMs = 3000;
  static QPointer<QTimer> timer;  // goes with the application it belongs to
  if (!timer) {
    timer = new QTimer(QCoreApplication::instance());
    timer->setSingleShot(true);
    QObject::connect(timer, &QTimer::timeout, [] {
      backgroundPool()->start([] {
        torchir::lowerThisThreadPriority();
        torchir::returnFreedMemory();
      });
    });
  }
  timer->start(kQuietMs);
}

void releaseThenReturnFreedMemory(std::shared_ptr<const void> object) {
  if (!object) return;
  returnFreedMemoryWhenQuiet();
  backgroundPool()->start([held = std::move(object)]() mutable {
    torchir::lowerThisThreadPriority();
    held.reset();
    // The timer lives on the GUI thread: restarted there, from the end of the frees.
    QMetaObject::invokeMethod(QCoreApplication::instance(), &returnFreedMemoryWhenQuiet, Qt::QueuedConnection);
  });
}

}  // namespace torchir::ui
