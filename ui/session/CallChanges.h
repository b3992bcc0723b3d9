#pragma once
// Edit and continue's one command: a change to a node's call, and the run on from it.
#include <vector>

#include "exec/Patch.h"

namespace torchir::ui {

class SessionController;

/// Every later run of `node` takes `patches`, its whole list (empty: as exported); then, when
/// `andContinue`, the run goes on, from a failure too (the failed node runs again, changed). One
/// command: Running until the run's report, or until the session takes the change or says why it
/// was refused (SessionController::takeCallChange). Ignored unless the session is resting.
void changeCall(SessionController& session, torchir::NodeId node, const std::vector<torchir::ArgumentPatch>& patches,
                bool andContinue);

}  // namespace torchir::ui
