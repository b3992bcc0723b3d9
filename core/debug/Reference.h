#pragma once
// What a run is compared against, and the reference run made from it: the same program at
// another dtype or device (its shadow), another file, or the same program with other weights.
#include <memory>
#include <optional>
#include <string>

#include "compare/PairedRun.h"
#include "debug/RunInputs.h"
#include "quant/LayerSensitivity.h"

namespace torchir {

struct ReferenceSpec {
  enum class Kind : uint8_t { Shadow, File, Weights } kind = Kind::Shadow;
  std::string path;                         // File: the other program; Weights: the other weights file
  std::shared_ptr<const Program> program;   // File, Weights: read already; null: read from `path`
  DType floatingAs = DType::Unknown;        // its floating dtype; Unknown: as exported
  std::string device = "cpu";
  bool castWeights = false;                 // weights of another dtype cast to the export's
  std::optional<InputsChoice> inputs;       // its own; none: the run's
  CompareOptions options;
  bool requireTwins = false;                // refuse two programs that are not exports of one model
  /// What the reference is, in words ("other.pt2", "weights w.safetensors"); empty: its file's
  /// name. Reports name it so, with its dtype and device after ("... at float64 on cuda").
  std::string name;
  /// The autocast region the run's program runs in (a body run on its own): a shadow runs in it too.
  std::optional<AutocastRegion> autocast;
};

/// A reference run, paired with the run it is compared with.
struct Reference {
  std::string description;
  std::shared_ptr<const Program> program;  // the run's own program for a shadow
  std::unique_ptr<Session> session;
  std::unique_ptr<PairedRun> run;
  CompareOptions options;
  std::shared_ptr<const SensitivityResult> sensitivity;  // of this paired run, once measured
};

/// The reference `spec` names for a run of `a` (read from `aPath` with `aConstants`) with `inputs`,
/// paired with `session` (reset: the comparison runs from the start). Throws LoadError for a file
/// that cannot be read, std::runtime_error for a reference that cannot run or pair.
std::unique_ptr<Reference> makeReference(const ReferenceSpec& spec, const std::shared_ptr<const Program>& a,
                                         const std::string& aPath, const std::string& aConstants,
                                         const RunInputs& inputs, Session& session);

}  // namespace torchir
