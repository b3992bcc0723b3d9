#pragma once
#include "session/OpenRequest.h"

namespace torchir::ui {

/// Completes a request for an IR JSON (`X.ir.json` or `X.json`), which carries no tensors: with no
/// weights given, the first of `X.weights.safetensors`, `X.safetensors`, `X.state_dict.pt`, `X.pt`,
/// `X.pth`, `X.bin` next to it that exists; with no constants given, `X.constants.safetensors` if it
/// exists. Paths the user gave are kept; other programs come back unchanged.
OpenRequest completeRequest(OpenRequest request);

}  // namespace torchir::ui
