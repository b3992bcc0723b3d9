#pragma once
// A higher-order node's body as a program the studio opens in a window of its own: the subgraph
// and the calls of it that the node's run made (Debugger::bodyCalls).
#include "session/LoadedProgram.h"

namespace torchir::ui {

/// The body of `node` (in `parent`'s program) that `calls` ran: the one whose call failed, else
/// the last of its graph arguments that ran (a while_loop's body_fn before its cond_fn, the branch
/// a cond took), with its views derived. Made off the GUI thread. Throws std::runtime_error when no call of it was kept.
LoadedProgramPtr bodyProgram(const torchir::DebugTarget& parent, torchir::NodeId node, torchir::BodyCalls calls);

}  // namespace torchir::ui
