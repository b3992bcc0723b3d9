#pragma once
// What a layer sensitivity found (compare/Sensitivity makes it; a comparison record holds it).
#include <cstddef>
#include <string>
#include <vector>

#include "program/Ids.h"

namespace torchir {

struct LayerSensitivity {
  NodeId node = kNone;
  double outputSqnrDb = 0;  // the final output's SQNR against the float run, with this layer in float
  double gainDb = 0;        // over the quantized run's
  std::string problem;      // why it could not be measured
};

struct SensitivityResult {
  double baselineSqnrDb = 0;  // the quantized run's final output against the float run's
  std::vector<LayerSensitivity> layers;  // ranked: the largest gain first; unmeasured ones last
  bool cancelled = false;

  const LayerSensitivity* of(NodeId node) const {
    for (const LayerSensitivity& l : layers)
      if (l.node == node) return &l;
    return nullptr;
  }
};

}  // namespace torchir
