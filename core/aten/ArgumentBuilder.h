#pragma once
// Rebuilds a node's boxed call from its op schema and the serialized .pt2 arguments.
#include <ATen/core/dispatch/Dispatcher.h>

#include <stdexcept>
#include <vector>

#include "exec/ExecTypes.h"

namespace torchir {

/// A value the node needs that the run does not have (a weight without data, a released value).
struct MissingValue : std::runtime_error {
  explicit MissingValue(ValueId v) : std::runtime_error("missing value"), value(v) {}
  ValueId value;
};

/// The frame's values, by value id.
using FrameValues = std::vector<c10::IValue>;

/// How one schema argument is filled, decided once per node: constants (attributes, defaults)
/// are converted once; a plain tensor is one frame lookup; the rest converts per call.
/// FrameList / OptionalFrameList gather a Tensor[] / Tensor?[] from several frame values (IR JSON
/// lists its tensors flat); kNone in `values` is a None entry. A WrappedNumber is a constant
/// float (`x * 0.5`) that an elementwise op would first cast to its float32 peer's dtype: `asFloat`
/// is that cast, made once (see markWrappedNumbers).
struct ArgPlan {
  enum Kind : uint8_t { Constant, FrameValue, Converted, FrameList, OptionalFrameList, WrappedNumber } kind = Constant;
  c10::IValue constant;
  c10::IValue asFloat;            // WrappedNumber: `constant` cast to float32, still a wrapped number
  std::size_t peer = 0;           // WrappedNumber: the plan index of the tensor it meets
  ValueId value = kNone;
  std::vector<ValueId> values;
  const NodeArgument* given = nullptr;
  c10::TypePtr type;
};

/// A node's call: one plan per schema argument (kwarg-only ones too), in schema order, and what
/// the argument view shows of each, apart from the runtime value.
struct CallPlan {
  std::vector<ArgPlan> args;
  std::vector<ArgumentRecord> records;  // name, declared type, source; value for constants
};

/// An argument's type as the schema spells it, alias annotation included: `Tensor(a!)` says the op
/// writes it, `SymInt[2]`, `ScalarType?`.
std::string declaredTypeOf(const c10::Argument& a);

/// Plans the call: the node's argument by name, else the schema default. Throws
/// std::runtime_error for an argument that is neither or cannot be converted.
CallPlan planCall(const Program& program, const Node& node, const c10::FunctionSchema& schema);

/// Marks a float constant in a Tensor slot of an elementwise binary op (add, mul, lt, ...) whose
/// other operand comes from the frame. TensorIterator casts such a number to the common dtype on
/// every call (a whole `to()`: an allocation and a copy kernel, often more than the op itself);
/// for a float32 peer the cast is done once here instead. Only float32: there every listed op reads
/// the cast value, so results are bit-identical. Half and bfloat16 mul/div read the number itself
/// (as float, not rounded to half first), so a cast made for them would change results.
void markWrappedNumbers(CallPlan& plan, const c10::FunctionSchema& schema);

/// For a shadow run at another floating dtype (SessionOptions::floatingAs): floating dtypes the
/// call names (`_to_copy(dtype=float32)`, `_assert_tensor_metadata(dtype=float32)`) become `to`, so
/// the shadow stays at its dtype where the program casts.
void shadowFloatingDtypes(CallPlan& plan, DType to);

/// Whether the argument's value is the plan's (shown from the plan), not the run's.
inline bool isPlanConstant(const ArgPlan& p) { return p.kind == ArgPlan::Constant || p.kind == ArgPlan::WrappedNumber; }

/// Pushes the arguments onto `stack`. Throws MissingValue for a value the run does not have.
void pushArguments(const CallPlan& plan, const FrameValues& frame, torch::jit::Stack& stack);

/// Serialized ScalarType / MemoryFormat / Layout numbers to c10's.
int64_t c10MemoryFormat(int serialized);
int64_t c10Layout(int serialized);

}  // namespace torchir
