#pragma once
// The quantization debugger's part in a comparison (PairedRun): integer codes compared as the
// numbers they stand for, a quantized value's tolerance a few steps of its scale, and a quantized
// layer's own error measured with its inputs taken before their quantization (KeepInFloat).
// A no-op on a program without quantization.
#include <memory>

#include "compare/ComparisonExtension.h"

namespace torchir {

/// The one instance, shared by every comparison.
std::shared_ptr<const ComparisonExtension> quantComparison();

}  // namespace torchir
