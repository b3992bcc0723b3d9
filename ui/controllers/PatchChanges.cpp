#include "controllers/PatchChanges.h"

#include <algorithm>
#include <utility>

namespace torchir::ui {

std::vector<torchir::ArgumentPatch> withChange(std::vector<torchir::ArgumentPatch> patches, const std::string& argument,
                                               std::optional<torchir::ArgumentPatch> change) {
  const auto it = std::find_if(patches.begin(), patches.end(),
                               [&](const torchir::ArgumentPatch& p) { return p.argument == argument; });
  if (!change) {
    if (it != patches.end()) patches.erase(it);
  } else if (it != patches.end()) {
    *it = std::move(*change);
  } else {
    patches.push_back(std::move(*change));
  }
  return patches;
}

std::vector<torchir::ArgumentPatch> withChanges(std::vector<torchir::ArgumentPatch> patches,
                                                const std::vector<torchir::ArgumentPatch>& changes) {
  for (const torchir::ArgumentPatch& change : changes)
    patches = withChange(std::move(patches), change.argument, change);
  return patches;
}

}  // namespace torchir::ui
