#pragma once
#include "session/OpenRequest.h"

namespace torchir::ui {

/// Completes a request for an IR JSON with the weights and constants files next to it, by the core's
/// rule (torchir::withCompanionFiles), which the command line follows too. Paths the user gave are
/// kept; other programs come back unchanged.
OpenRequest completeRequest(OpenRequest request);

}  // namespace torchir::ui
