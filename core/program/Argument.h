#pragma once
// A node's arguments, typed: torch's serialized argument union (torch/_export/serde/schema.py's
// Argument) and pytorch-ir's attributes, read once by the readers. Nothing after the readers
// knows the union's JSON keys; the table, the engine, the IR writer and the panels read these.
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <variant>
#include <vector>

#include "Ids.h"

namespace torchir {

/// A pytorch-ir attribute as the Python value it was (JSON's kinds; NaN and infinities kept).
struct Literal {
  using List = std::vector<Literal>;
  /// Keys and their values, in the file's order (two lists: Literal is incomplete here).
  struct Dict {
    std::vector<std::string> keys;
    List values;
  };
  std::variant<std::monostate, bool, int64_t, double, std::string, List, Dict> value;

  bool isNone() const { return std::holds_alternative<std::monostate>(value); }
  const bool* asBool() const { return std::get_if<bool>(&value); }
  const int64_t* asInt() const { return std::get_if<int64_t>(&value); }
  const double* asFloat() const { return std::get_if<double>(&value); }
  const std::string* asString() const { return std::get_if<std::string>(&value); }
  const List* asList() const { return std::get_if<List>(&value); }
  const Dict* asDict() const { return std::get_if<Dict>(&value); }
};

/// Python's repr of a literal: `None`, `True`, `1e-05`, `'same'`, `[1, 2]`, `{'a': 1}`.
std::string pythonLiteral(const Literal& l);

/// A tensor the node takes: the graph value, and the name the file gives it.
struct TensorRef {
  ValueId value = kNone;
  std::string name;
};

/// A SymInt, SymFloat or SymBool: a value of the graph (a symbol, sym_size's result) or a constant.
template <class T>
struct Symbolic {
  ValueId value = kNone;
  T constant{};
  bool isValue() const { return value != kNone; }
};

struct Argument;

namespace arg {
struct None {};
struct Tensor { TensorRef tensor; };
struct OptionalTensor { std::optional<TensorRef> tensor; };
struct Tensors { std::vector<TensorRef> tensors; };
struct OptionalTensors { std::vector<std::optional<TensorRef>> tensors; };  // None holes kept
struct Int { int64_t value = 0; };
struct Ints { std::vector<int64_t> values; };
struct IntLists { std::vector<std::vector<int64_t>> values; };
struct Float { double value = 0; };
struct Floats { std::vector<double> values; };
struct Bool { bool value = false; };
struct Bools { std::vector<bool> values; };
struct String { std::string value; };
struct Strings { std::vector<std::string> values; };
struct SymInt { Symbolic<int64_t> sym; };
struct SymInts { std::vector<Symbolic<int64_t>> values; };
struct SymFloat { Symbolic<double> sym; };
struct SymFloats { std::vector<Symbolic<double>> values; };
struct SymBool { Symbolic<bool> sym; };
struct SymBools { std::vector<Symbolic<bool>> values; };
/// torch's serialized enum numbers (schema.py's ScalarType, Layout, MemoryFormat), as written.
struct ScalarType { int code = 0; };
struct Layout { int code = 0; };
struct MemoryFormat { int code = 0; };
struct Device {
  std::string type;
  std::optional<int> index;
};
struct Complex { double real = 0, imag = 0; };
/// An operator passed as an argument (auto_functionalized's first): "torch.ops.aten.relu_.default".
struct Operator { std::string name; };
/// A higher-order op's subgraph: the get_attr node's value, whose node holds Program::subgraphs' index.
struct Graph {
  ValueId value = kNone;
  std::string name;
};
struct CustomObject {
  ValueId value = kNone;
  std::string name;
};
struct StringToArgument { std::vector<std::pair<std::string, Argument>> entries; };
/// getitem's argument in a .pt2: output `index` of the multi-output node `producer`.
struct OutputOf {
  NodeId producer = kNone;
  int index = 0;
};
/// A pytorch-ir attribute (`attrs` of an IR node), as the Python value the framework wrote.
struct Attribute { Literal value; };
/// A kind this build does not know (a newer schema): its key and its JSON text, shown as they are.
struct Unknown {
  std::string kind;
  std::string text;
};
}  // namespace arg

using ArgumentVariant =
    std::variant<arg::None, arg::Tensor, arg::OptionalTensor, arg::Tensors, arg::OptionalTensors, arg::Int, arg::Ints,
                 arg::IntLists, arg::Float, arg::Floats, arg::Bool, arg::Bools, arg::String, arg::Strings, arg::SymInt,
                 arg::SymInts, arg::SymFloat, arg::SymFloats, arg::SymBool, arg::SymBools, arg::ScalarType, arg::Layout,
                 arg::MemoryFormat, arg::Device, arg::Complex, arg::Operator, arg::Graph, arg::CustomObject,
                 arg::StringToArgument, arg::OutputOf, arg::Attribute, arg::Unknown>;

struct Argument : ArgumentVariant {
  using ArgumentVariant::ArgumentVariant;
  Argument() : ArgumentVariant(arg::None{}) {}
  template <class T>
  const T* as() const { return std::get_if<T>(static_cast<const ArgumentVariant*>(this)); }
  template <class T>
  bool is() const { return std::holds_alternative<T>(*this); }
};

/// str() of the torch objects behind the serialized enum codes: "torch.strided", "torch.channels_last".
const char* layoutPythonName(int code);
const char* memoryFormatPythonName(int code);

/// The kind of an argument as an op schema spells it: "Tensor", "int[]", "SymInt", "Tensor?[]".
std::string_view argumentTypeName(const Argument& a);

/// The graph values an argument names (tensors, symbols, graphs, objects), in order.
void collectValues(const Argument& a, std::vector<ValueId>& out);

/// The helper for std::visit with one lambda per alternative.
template <class... F>
struct Overloaded : F... {
  using F::operator()...;
};
template <class... F>
Overloaded(F...) -> Overloaded<F...>;

}  // namespace torchir
