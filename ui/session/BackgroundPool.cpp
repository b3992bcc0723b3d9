#include "session/BackgroundPool.h"

#include <QThreadPool>

namespace torchir::ui {

Q_GLOBAL_STATIC(QThreadPool, studioBackgroundPool)

QThreadPool* backgroundPool() { return studioBackgroundPool(); }

}  // namespace torchir::ui
