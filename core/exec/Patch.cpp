#include "exec/Patch.h"

#include <algorithm>
#include <map>
#include <sstream>

#include "program/DType.h"

namespace torchir {

std::string describePatch(const ArgumentPatch& patch) {
  std::ostringstream value;
  value << patch.value;
  switch (patch.kind) {
    case ArgumentPatch::Kind::Scalar: return "= " + value.str();
    case ArgumentPatch::Kind::Cast: return "cast to " + std::string(dtypeName(patch.dtype));
    case ArgumentPatch::Kind::Fill: return "filled with " + value.str();
    case ArgumentPatch::Kind::Replace: return "from " + (patch.origin.empty() ? std::string("a file") : patch.origin);
    case ArgumentPatch::Kind::FromValue:
      return patch.origin.empty() ? "from value " + std::to_string(patch.source) : patch.origin;
  }
  return {};
}

std::vector<ArgumentPatch> suggestedCasts(const Program& program, const Diagnosis& diagnosis) {
  if (diagnosis.kind != DiagnosisClass::DtypeMismatch) return {};
  // The dtype the call should have: its weights' (a parameter or buffer is what the user did not
  // mean to change), else the one the export recorded for most of its tensors.
  std::map<DType, int> weights, exported;
  for (const ArgumentRecord& a : diagnosis.arguments) {
    if (a.value.kind != "Tensor" || !isFloating(a.value.dtype)) continue;
    const auto id = program.findValue(a.sourceDetail);
    if (!id) continue;
    const InputSpec* spec = program.inputSpecFor(*id);
    if (spec && spec->kind != InputKind::UserInput) ++weights[a.value.dtype];
    if (isFloating(program.value(*id).dtype)) ++exported[program.value(*id).dtype];
  }
  const auto& votes = weights.empty() ? exported : weights;
  DType target = DType::Unknown;
  int most = 0;
  for (const auto& [dtype, count] : votes)
    if (count > most) target = dtype, most = count;
  if (target == DType::Unknown) return {};
  std::vector<ArgumentPatch> casts;
  for (const ArgumentRecord& a : diagnosis.arguments)
    if (a.value.kind == "Tensor" && isFloating(a.value.dtype) && a.value.dtype != target) {
      ArgumentPatch p;
      p.argument = a.name;
      p.kind = ArgumentPatch::Kind::Cast;
      p.dtype = target;
      casts.push_back(std::move(p));
    }
  return casts;
}

std::vector<ArgumentPatch> withChange(std::vector<ArgumentPatch> patches, const std::string& argument,
                                               std::optional<ArgumentPatch> change) {
  const auto it = std::find_if(patches.begin(), patches.end(),
                               [&](const ArgumentPatch& p) { return p.argument == argument; });
  if (!change) {
    if (it != patches.end()) patches.erase(it);
  } else if (it != patches.end()) {
    *it = std::move(*change);
  } else {
    patches.push_back(std::move(*change));
  }
  return patches;
}

std::vector<ArgumentPatch> withChanges(std::vector<ArgumentPatch> patches,
                                                const std::vector<ArgumentPatch>& changes) {
  for (const ArgumentPatch& change : changes)
    patches = withChange(std::move(patches), change.argument, change);
  return patches;
}

}  // namespace torchir
