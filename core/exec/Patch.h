#pragma once
// Edit and continue: a user's change to one argument of a node's call.
#include <optional>
#include <string>
#include <vector>

#include "exec/ExecTypes.h"
#include "program/TensorData.h"

namespace torchir {

struct ArgumentPatch {
  enum class Kind : uint8_t {
    Scalar,   // a number argument takes `value` (an int argument its integer, a bool argument value != 0)
    Cast,     // a tensor argument cast to `dtype`
    Fill,     // a tensor argument of the same shape and dtype, every element `value`
    Replace,  // a tensor argument replaced by `tensor` (from a .safetensors file)
    FromValue // a tensor argument taken from another value of the run, `source` (keep in float)
  };
  std::string argument;  // the schema's name for it
  Kind kind = Kind::Scalar;
  double value = 0;
  DType dtype = DType::Unknown;
  TensorData tensor;
  std::string origin;  // Replace: where the tensor came from ("fix.safetensors:input_0")
  ValueId source = kNone;  // FromValue: the value of the same run it is taken from
};

/// "cast to float32", "= 0.5", "filled with 0", "from fix.safetensors:input_0".
std::string describePatch(const ArgumentPatch& patch);

/// The one-click fix of a dtype mismatch: each floating tensor argument of another dtype than the
/// call's weights (else than export recorded for its value) cast to that dtype. Empty when the
/// diagnosis is no dtype mismatch or no argument can be told apart.
std::vector<ArgumentPatch> suggestedCasts(const Program& program, const Diagnosis& diagnosis);

/// What a node's call gives with and without the patches, run on the values it gets now.
struct PatchTrial {
  std::vector<std::optional<TensorData>> before, after;  // the node's outputs; nullopt for a non-tensor
  std::string beforeProblem, afterProblem;  // why the call failed; "" when it ran
  std::vector<ArgumentRecord> arguments;  // the call's arguments, the changes made
};

/// `patches` with `argument` changed as `change` says: the change it had replaced in place, added
/// at the end when it had none; std::nullopt takes its change away. One change per argument, since
/// the engine applies a list in order and a second change to an argument would undo the first.
std::vector<ArgumentPatch> withChange(std::vector<ArgumentPatch> patches, const std::string& argument,
                                               std::optional<ArgumentPatch> change);

/// `patches` with each of `changes` made by withChange: the arguments `changes` names take the new
/// change, every other argument keeps its own.
std::vector<ArgumentPatch> withChanges(std::vector<ArgumentPatch> patches,
                                                const std::vector<ArgumentPatch>& changes);

}  // namespace torchir
