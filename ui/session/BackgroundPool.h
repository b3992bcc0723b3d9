#pragma once
#include <memory>

class QThreadPool;

namespace torchir::ui {

/// The pool the studio's own background work runs on: frees, view graphs, a tensor's statistics,
/// files. Never Qt's global pool: Qt's raster engine splits a large fill over that pool and waits
/// for it inside a paint, so a paint queued behind a 40 ms free there froze the window as long.
/// Work on it lowers its own thread's priority (lowerThisThreadPriority).
QThreadPool* backgroundPool();

/// Gives the memory a replaced program freed back to the system (returnFreedMemory), on the pool,
/// once no call has come for a few seconds: by then its frees, spread over the pool and the
/// engine's thread, are done, and the window has stopped drawing the new one. Call it on the GUI
/// thread.
void returnFreedMemoryWhenQuiet();

/// Drops `object` on the pool (as releaseInBackground does), then gives its memory back once quiet:
/// the quiet period starts again when its frees are done, however long a loaded machine takes over
/// them. Call it on the GUI thread.
void releaseThenReturnFreedMemory(std::shared_ptr<const void> object);

}  // namespace torchir::ui
