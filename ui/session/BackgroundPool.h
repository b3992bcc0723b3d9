#pragma once
class QThreadPool;

namespace torchir::ui {

/// The pool the studio's own background work runs on: frees, view graphs, a tensor's statistics,
/// files. Never Qt's global pool: Qt's raster engine splits a large fill over that pool and waits
/// for it inside a paint, so a paint queued behind a 40 ms free there froze the window as long.
/// Work on it lowers its own thread's priority (lowerThisThreadPriority).
QThreadPool* backgroundPool();

}  // namespace torchir::ui
