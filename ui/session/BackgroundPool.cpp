#include "session/BackgroundPool.h"

#include <QCoreApplication>
#include <QThreadPool>

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

}  // namespace torchir::ui
