#pragma once
class QThreadPool;

namespace torchir::ui {

/// The pool the studio's own background work runs on: frees, view graphs, a tensor's statistics,
/// files. Never Qt's global pool: Qt's raster engine splits a large fill over that pool and waits
/// for it inside a paint, so a paint queued behind a 40 ms free there froze the window as long.
/// Work on it lowers its own thread's priority (lowerThisThreadPriority).
QThreadPool* backgroundPool();

/// Gives the memory a freed program leaves back to the system (returnFreedMemory), on the pool,
/// once no call has come for a few seconds: the window has stopped drawing the program that
/// replaced it by then. Callable from any thread: the program's last reference goes on the pool,
/// the engine's thread or the GUI thread, whichever lets go last.
void returnFreedMemoryWhenQuiet();

}  // namespace torchir::ui
