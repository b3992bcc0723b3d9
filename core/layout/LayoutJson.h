#pragma once
// A layout's geometry as JSON, for tests and tools.
#include <nlohmann/json.hpp>

#include "LayoutTypes.h"

namespace torchir::layout {

nlohmann::ordered_json layoutToJson(const Layout& layout);

}  // namespace torchir::layout
