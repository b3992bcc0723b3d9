#pragma once
#include <QThreadPool>
#include <memory>
#include <utility>

namespace torchir::ui {

/// Drops a reference on a pool thread. The last reference to a 30k-node program (or its view
/// graph) frees millions of blocks, a tenth of a second the GUI thread must not spend.
template <typename T>
void releaseInBackground(std::shared_ptr<T> object) {
  if (object) QThreadPool::globalInstance()->start([held = std::move(object)]() mutable { held.reset(); });
}

}  // namespace torchir::ui
