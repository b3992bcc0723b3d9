#pragma once
#include <memory>

#include "exec/Session.h"

namespace torchir {

/// The ATen fallback engine: every node through the libtorch dispatcher.
std::unique_ptr<Session> createAtenSession(const Program& program, const SessionOptions& options = {});

}  // namespace torchir
