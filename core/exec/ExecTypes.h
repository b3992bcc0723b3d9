#pragma once
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "program/Program.h"

namespace torchir {

/// Where the engine took an argument's value from: the reconstructed schema arguments show it.
enum class ArgSource : uint8_t { Input, Attribute, Default, Inferred, Patched /* a user's change */ };
std::string_view argSourceName(ArgSource s);

/// A runtime value as the UI and the command line show it (no tensor data).
struct ValueSummary {
  std::string kind;  // "Tensor", "int", "float", "bool", "None", "Tensor[]", "ScalarType", ...
  DType dtype = DType::Unknown;
  std::vector<int64_t> sizes, strides;
  std::string device;
  std::string text;  // the scalar or list as text; a tensor's one-line summary
};

/// One argument of one call, as the schema saw it.
struct ArgumentRecord {
  std::string name;
  std::string declaredType;  // schema type, e.g. "Tensor", "int[2]", "Tensor?"
  ArgSource source = ArgSource::Input;
  std::string sourceDetail;  // "input x", "default", "attrs['dim']", ...
  ValueSummary value;
};

/// Why a node failed or why the run stopped there.
enum class DiagnosisClass : uint8_t {
  None, DtypeMismatch, ShapeMismatch, DeviceMismatch, MissingData, OpNotFound, UnsupportedHigherOrderOp,
  SymbolOutOfRange, NanOrInf, DtypeDiffersFromExport, ShapeDiffersFromExport, RuntimeError,
  Divergence,  // a comparison: the node's output is farther from the reference run's than the tolerance
  PythonError  // an op run in the user's Python raised, or its worker died or hung
};
std::string_view diagnosisClassName(DiagnosisClass c);

struct Diagnosis {
  DiagnosisClass kind = DiagnosisClass::None;
  NodeId node = kNone;
  std::string nodeName, opType, schema;
  std::string message;      // libtorch's words, first line, no backtrace
  std::string explanation;  // one or two sentences: what happened and what to change
  std::vector<ArgumentRecord> arguments;
  std::string stackTrace;   // the user's source line, from export
  std::string traceback;    // where an op run in Python raised: the worker's Python traceback
  /// An op the dispatcher lacks: the modules the program points to whose source defines it (in the
  /// named Python's path, nearest first), for the user to import (--python-import).
  std::vector<std::string> pythonImports;
  bool ok() const { return kind == DiagnosisClass::None; }
};

struct InnerRecord;

/// What one step did.
struct NodeRecord {
  NodeId node = kNone;
  bool executed = false;
  /// An op ran (not a placeholder, a getitem or a size the engine keeps): what "the last op that
  /// ran" means everywhere (step back, the studio's selection after a step).
  bool doesWork = false;
  std::string schema;
  /// The schema arguments the op writes, by index, from its schema's alias info (`Tensor(a!)`).
  std::vector<std::size_t> writtenArguments;
  std::vector<ArgumentRecord> arguments;
  std::vector<ValueSummary> outputs;
  double microseconds = 0;  // the op's own call, without the engine's work around it
  /// Every input is a constant of the program (a weight's dequantize, a transposed weight): the
  /// results were computed at an earlier run of the session and reused, the op not called again.
  bool cached = false;
  // A higher-order node (cond, while_loop, ...): the nodes its subgraphs ran, in order (for a
  // loop, its last iteration).
  std::vector<InnerRecord> inner;
};

/// A node inside a higher-order node's subgraph, as it last ran.
struct InnerRecord {
  std::string graph;   // the subgraph's name, e.g. "true_graph_0"
  std::string name;    // the node's name in it
  std::string target;  // its op
  NodeRecord record;
};

/// The autocast region a body ran in (`with torch.autocast(...)`): what running it again as a
/// program of its own must set to give the same bits.
struct AutocastRegion {
  std::string device = "cpu";  // the device type it applies to
  DType dtype = DType::Unknown;
  bool cache = true;
};

/// One call of a higher-order node's body: a map's row, a scan's step, a while_loop's iteration
/// (its cond_fn's too), the branch a cond took. Its operands are copies, so it can run again as a
/// program of its own (Subgraph::graph) with them as its inputs and give the same results.
struct BodyCall {
  std::size_t subgraph = 0;  // in Program::subgraphs of the program the node is in
  std::size_t iteration = 0;  // among the node's calls of this subgraph, from 0
  std::vector<TensorData> operands;  // in placeholder order; numbers as 0-d tensors
  std::vector<TensorData> results;   // in output order (empty when the call failed)
  /// Per operand: the result of the same subgraph's previous call it is (a value carried from one
  /// iteration to the next), else -1.
  std::vector<int> carriedFrom;
  std::optional<AutocastRegion> autocast;
};

/// The calls of a higher-order node's bodies in one run of it, in the order they ran.
struct BodyCalls {
  std::vector<BodyCall> calls;
  /// Per subgraph, its calls run after the memory allowed was reached, not kept (a subgraph's
  /// kept calls are its first).
  std::map<std::size_t, std::size_t> notKept;
  /// Why the node's run stopped (it failed inside a body), else empty.
  std::string failure;
};

/// Conditions that stop a run after the node that meets them.
struct StopConditions {
  bool nanOrInf = false;
  bool dtypeDiffers = false;  // an output's dtype differs from what export recorded
  bool shapeDiffers = false;
};

}  // namespace torchir
