#pragma once
#include <string>

#include "ProgramLoader.h"

namespace torchir {

/// Reads pytorch-ir's op-node IR JSON (as `IR.save` writes it, bare NaN/Infinity included) into
/// the same Program model: a placeholder per weight and input, a call_function per op node, the
/// output node. Constants come from the JSON; weights have no data until supplied.
Program readIrJson(const std::string& path);

}  // namespace torchir
