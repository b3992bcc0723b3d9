#pragma once
// Synthetic levels for long runs of sibling modules of one class whose paths differ only by a
// trailing index (`model.layers.0` .. `model.layers.769`, `h.0` .. `h.47`). nn.ModuleList never
// appears on the module stack, so without them the root of a 770-layer model is one level of 770
// boxes: one slow dot run (~0.2 s) that every expansion repeats, and no fold state can keep the first
// view small. Grouping bounds every level to about kMaxSiblings such boxes.
#include <string>
#include <vector>

#include "program/Program.h"

namespace torchir::layout {

/// A run of more siblings than this gets groups; shorter runs (gpt2's h.0, h.1) stay as they are.
constexpr int kMaxSiblings = 64;
/// Members per group, aligned to the trailing index so labels read `layers.0–63`, `layers.64–127`.
constexpr int kGroupSize = 64;

struct SiblingGroup {
  int parent = -1;           // the level drawing the group: a module or an enclosing group
  std::vector<int> members;  // module indices, or group indices for an outer group; program order
  std::string prefix;        // `model.layers` (empty for a root Sequential's `0`, `1`, ...)
  std::string type;          // the members' class, e.g. `torch.nn.modules.container.Sequential`
  long first = 0, last = 0;  // trailing indices of the first and last module inside
  int modules = 0;           // modules inside, through nested groups
};

/// Groups one level's children. `items` are its child modules in program order, with -1 for each op
/// drawn between them (an op ends a run: a group holds modules only). New groups are appended to
/// `groups`, group k having the level index `base + k`; inner groups come before the groups holding
/// them. Returns the level's child list with every grouped run replaced by its outermost groups.
std::vector<int> groupSiblings(const Program& p, int parent, const std::vector<int>& items, int base,
                               std::vector<SiblingGroup>* groups);

/// `model.layers.0–63`, the first line of a collapsed group's box.
std::string groupRange(const SiblingGroup& g);

}  // namespace torchir::layout
