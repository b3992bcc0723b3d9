#pragma once
// Work that the studio's window waits for (the engine, the loader, the layout, frees) runs below the
// window's own thread, so that on a machine with fewer cores than busy threads the window still gets
// a core when it has a frame to draw. The work is not slowed when the window is idle.

namespace torchir {

/// Makes the calling thread (and threads it starts later, which inherit it) a background thread:
/// nice 10 on Linux, where each thread has its own nice value; nothing elsewhere. Never raises a
/// priority that is already lower.
void lowerThisThreadPriority();

}  // namespace torchir
