#pragma once
// A node's list of changes to its call, changed one argument at a time.
#include <optional>
#include <string>
#include <vector>

#include "exec/Patch.h"

namespace torchir::ui {

/// `patches` with `argument` changed as `change` says: the change it had replaced in place, added
/// at the end when it had none; std::nullopt takes its change away. One change per argument, since
/// the engine applies a list in order and a second change to an argument would undo the first.
std::vector<torchir::ArgumentPatch> withChange(std::vector<torchir::ArgumentPatch> patches, const std::string& argument,
                                               std::optional<torchir::ArgumentPatch> change);

/// `patches` with each of `changes` made by withChange: the arguments `changes` names take the new
/// change, every other argument keeps its own.
std::vector<torchir::ArgumentPatch> withChanges(std::vector<torchir::ArgumentPatch> patches,
                                                const std::vector<torchir::ArgumentPatch>& changes);

}  // namespace torchir::ui
