#include "session/ComparisonResult.h"

#include <algorithm>

namespace torchir::ui {

bool ComparisonResult::inNonfiniteSlice(torchir::NodeId node) const {
  return std::binary_search(nonfiniteSlice.begin(), nonfiniteSlice.end(), node);
}

}  // namespace torchir::ui
