#pragma once
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "Argument.h"
#include "DType.h"
#include "Ids.h"
#include "NodeOrigin.h"
#include "TensorData.h"

namespace torchir {

/// One dimension: a concrete size, or a symbol (`s0`, `s0*2`) with the size it had when exported.
struct Dim {
  int64_t hint = 0;
  std::string expr;  // empty when concrete
  bool isSymbolic() const { return !expr.empty(); }
};

enum class ValueKind : uint8_t { Tensor, SymInt, SymFloat, SymBool, CustomObj, Token, None };

/// A value of the graph: what one node output (or a placeholder) holds. Dense ids.
struct Value {
  ValueId id = kNone;
  std::string name;
  ValueKind kind = ValueKind::Tensor;
  DType dtype = DType::Unknown;
  std::vector<Dim> shape;
  std::vector<int64_t> strides;
  std::string device = "cpu";
  NodeId producer = kNone;
  int outputIndex = 0;  // which output of the producer
  std::vector<NodeId> users;
};

enum class Opcode : uint8_t { Placeholder, CallFunction, GetAttr, Output };
std::string_view opcodeName(Opcode op);

/// One argument as the node passes it: schema name, positional or keyword, the typed argument,
/// and the graph values it names.
struct NodeArgument {
  std::string name;
  bool keyword = false;
  Argument arg;
  std::vector<ValueId> values;  // collectValues(arg): tensors, symbols, graphs, objects, in order
};

/// A frame of the `nn_module_stack`: module path (`layer1.0.conv1`) and its class.
struct ModuleFrame {
  std::string path;
  std::string type;
};
using ModuleStack = std::vector<ModuleFrame>;  // outermost first; the root module is not in it

/// One FX node. Multi-output ops are followed by one `getitem` node per output, as in FX.
struct Node {
  NodeId id = kNone;
  Opcode opcode = Opcode::CallFunction;
  std::string name;
  std::string target;  // "aten.conv2d.default", "<built-in function getitem>", placeholder name
  /// The target as the .pt2 names it ("torch.ops.higher_order.cond", "math.floor"), which `target`
  /// shows as FX does; shared by the nodes of one target. Null for nodes of other origins.
  std::shared_ptr<const std::string> serializedTarget;
  std::vector<NodeArgument> inputs;
  std::vector<ValueId> outputs;
  bool returnsTuple = false;  // outputs are reached through getitem nodes
  /// The op returns one list (`Tensor[]`, as split does), not a tuple: the file's one `as_tensors`
  /// output, which the getitem nodes pick from as they pick a tuple's (the .pt2 writer tells them apart).
  bool returnsList = false;
  /// Where export found the node: shared, as the nodes of one module share them (a 20k-node
  /// program has a few dozen distinct stack traces). Null when the file has none.
  std::shared_ptr<const std::string> stackTrace;
  std::shared_ptr<const ModuleStack> moduleStack;
  /// Its `from_node` ancestor and debug handle; null when the file records neither.
  std::shared_ptr<const NodeOrigin> origin;
  /// A get_attr node of a higher-order op's graph argument: its index in Program::subgraphs.
  int32_t subgraph = kNone;

  const std::string& stackTraceText() const;
  const ModuleStack& moduleFrames() const;

  /// For a .pt2 getitem node, the multi-output node and the output it picks; null otherwise.
  const arg::OutputOf* picks() const { return inputs.empty() ? nullptr : inputs.front().arg.as<arg::OutputOf>(); }
};

/// FX's target of getitem nodes: the .pt2's (which pick an output of the node before them) and
/// pytorch-ir's (an op of its own, on the producer's outputs).
constexpr std::string_view kGetItemTarget = "<built-in function getitem>";
inline bool isGetItem(const Node& n) { return n.opcode == Opcode::CallFunction && n.target == kGetItemTarget; }
/// A node that does an op (not a placeholder, getitem, get_attr or the output): what the graph
/// draws as a box and a comparison matches.
inline bool isOpNode(const Node& n) { return n.opcode == Opcode::CallFunction && !isGetItem(n); }
/// The values a node's arguments name, argument after argument (NodeArgument::values in order).
std::vector<ValueId> valuesNamedBy(const Node& n);

struct Program;
/// The subgraphs a higher-order node's graph arguments name (Program::subgraphs indices), in
/// argument order; empty for any other node.
std::vector<std::size_t> subgraphsOf(const Program& p, const Node& n);

/// One module of the `nn_module_stack` hierarchy; index 0 is the root (path "").
struct Module {
  std::string path;  // "layer1.0.conv1"
  std::string type;  // "torch.nn.modules.conv.Conv2d"
  int parent = -1;
  std::vector<int> children;
  std::vector<NodeId> nodes;  // nodes whose innermost module this is
};

enum class InputKind : uint8_t { UserInput, Parameter, Buffer, TensorConstant, CustomObj, Token, ConstantInput };
enum class OutputKind : uint8_t {
  UserOutput, LossOutput, BufferMutation, GradientToParameter, GradientToUserInput, UserInputMutation, Token,
  ParameterMutation
};
std::string_view inputKindName(InputKind k);
std::string_view outputKindName(OutputKind k);

struct InputSpec {
  InputKind kind = InputKind::UserInput;
  ValueId value = kNone;
  std::string target;  // state_dict key / constant name for weights
  bool persistent = true;
};

struct OutputSpec {
  OutputKind kind = OutputKind::UserOutput;
  ValueId value = kNone;  // kNone when the output is a constant
  Argument constant;      // the constant, then
  std::string target;
};

struct SymbolRange {
  std::optional<int64_t> min, max;  // nullopt: unbounded
};

/// Which file format a program came from, and which layout inside it.
struct SourceInfo {
  std::string path;
  std::string format;  // "pt2" or "ir-json"
  std::string layout;  // "pt2-archive", "pt2-archive (pickled weights, torch 2.8)", "flat zip (torch 2.6/2.7)"
  std::string torchVersion;
  std::string schemaVersion;  // "8.13"
  /// The dialects the graph keeps to ("TRAINING" allows in-place ops), as the file names them
  /// (`verifiers`, or an older file's `dialect`); a written program keeps them.
  std::vector<std::string> verifiers;
  std::string modelName;
};

struct Program;

/// A graph argument of a higher-order op (cond's branches, while_loop's cond_fn and body_fn, the
/// body of wrap_with_set_grad_enabled): a program of its own whose placeholders are the op's
/// operands (all user inputs) and whose outputs are the op's results, so it runs on a child frame
/// through the same kernels. Not part of the FX table: the parent shows only its get_attr node.
struct Subgraph {
  std::string name;  // "true_graph_0", as the get_attr node names it
  std::shared_ptr<const Program> graph;
};

/// An exported program, immutable after load. Node ids equal their position in `nodes`.
struct Program {
  SourceInfo source;
  std::vector<Node> nodes;
  std::vector<Value> values;
  std::vector<InputSpec> inputs;    // one per placeholder, in order
  std::vector<OutputSpec> outputs;  // one per output of the output node
  std::map<std::string, SymbolRange> symbolRanges;
  /// A number a placeholder takes at run time (an int exported with Dim.DYNAMIC): the symbol it
  /// is (`s86`), whose range symbolRanges holds.
  std::map<ValueId, std::string> inputSymbols;
  std::vector<Module> modules;  // the module hierarchy, root first
  /// Weights, buffers and lifted constants by state_dict key / constant name.
  std::map<std::string, TensorData> weights;
  /// Sample inputs stored with the program (user inputs, in order), if any.
  std::vector<TensorData> sampleInputs;
  /// Graph arguments of higher-order ops, referenced by Node::subgraph.
  std::vector<Subgraph> subgraphs;

  const Value& value(ValueId id) const { return values.at(static_cast<std::size_t>(id)); }
  const Node& node(NodeId id) const { return nodes.at(static_cast<std::size_t>(id)); }
  std::optional<ValueId> findValue(const std::string& name) const;
  std::optional<NodeId> findNode(const std::string& name) const;
  bool isDynamic() const;
  /// State_dict keys whose tensors have no bytes (meta export, missing file).
  std::vector<std::string> missingData() const;
  /// Why the sizes recorded for the graph's values cannot be right, or "" when they can: a
  /// negative dimension (or hint), more dimensions than a tensor may have, an element count past
  /// int64, or weights whose element counts add up past it. Readers call it before the program is
  /// used, so summaries and layouts count without overflow.
  std::string sizeProblem() const;
  /// The placeholder's weight key, when the placeholder is a parameter/buffer/constant.
  const InputSpec* inputSpecFor(ValueId v) const;
};

}  // namespace torchir
