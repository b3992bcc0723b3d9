#pragma once
// Typed arguments to and from plain JSON: pytorch-ir's attributes are plain JSON in the IR file,
// and custom executors and the IR writer take arguments as `json.dumps` writes the Python values.
#include <functional>
#include <nlohmann/json.hpp>
#include <string>

#include "program/Argument.h"

namespace torchir {

/// A JSON value of the file as the Python literal it was. Integers past int64 become floats.
Literal literalFromJson(const nlohmann::ordered_json& j);
nlohmann::ordered_json literalJson(const Literal& l);

/// The argument as Python holds it after torch.export.load, written as `json.dumps(default=str)`
/// writes it (pytorch-ir's attrs): numbers, bools, strings and lists as they are; a ScalarType as
/// "torch.float32", a Device as "cuda:0", a Layout or MemoryFormat as "torch.strided"; a value of
/// the graph (tensor, symbol, subgraph) as `nameOf(value)`, str() of its FX node.
nlohmann::ordered_json pythonJson(const Argument& a, const std::function<std::string(ValueId)>& nameOf);

}  // namespace torchir
