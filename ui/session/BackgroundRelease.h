#pragma once
#include <QThreadPool>
#include <memory>
#include <type_traits>
#include <utility>

#include "exec/ThreadPriority.h"
#include "session/BackgroundPool.h"

namespace torchir::ui {

/// Drops a reference on a thread of the background pool. The last reference to a 30k-node program (or its view
/// graph) frees millions of blocks, a tenth of a second the GUI thread must not spend.
template <typename T>
void releaseInBackground(std::shared_ptr<T> object) {
  if (object) backgroundPool()->start([held = std::move(object)]() mutable {
    torchir::lowerThisThreadPriority();
    held.reset();
  });
}

/// The same for a container the GUI thread lets go of: moved to a pool thread and destroyed there.
template <typename T>
void destroyInBackground(T&& value) {
  releaseInBackground(std::make_shared<std::decay_t<T>>(std::forward<T>(value)));
}

}  // namespace torchir::ui
