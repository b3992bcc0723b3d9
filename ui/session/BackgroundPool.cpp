#include "session/BackgroundPool.h"

#include <QCoreApplication>
#include <QPointer>
#include <QThread>
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
  QCoreApplication* app = QCoreApplication::instance();
  if (!app) return;  // after the application: nothing left to draw, or to time
  if (QThread::currentThread() != app->thread()) {  // the timer is the GUI thread's
    QMetaObject::invokeMethod(app, &returnFreedMemoryWhenQuiet, Qt::QueuedConnection);
    return;
  }
  // Long enough for the new program's first view and the rest of the old one's frees (its run's,
  // on the engine's thread); a second program freed meanwhile puts it off again.
  constexpr int kQuietMs = 3000;
  static QPointer<QTimer> timer;  // goes with the application it belongs to
  if (!timer) {
    timer = new QTimer(app);
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

}  // namespace torchir::ui
