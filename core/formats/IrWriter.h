#pragma once
#include <functional>
#include <nlohmann/json.hpp>
#include <stdexcept>
#include <string>

#include "program/Program.h"
#include "program/OpSchema.h"

namespace torchir {

/// pytorch-ir refuses a program; the message is the one its ConversionError carries.
class ConversionError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

/// Why pytorch-ir refuses to convert `program` (its ConversionError's message: a dynamic shape),
/// or "" when it converts it. toIrJson throws it.
std::string conversionRefusal(const Program& program);

/// The op-node IR JSON that pytorch-ir's `convert_exported_program` + `IR.to_dict` writes for
/// the same program (its `_default_conversion` of every call_function node), with dtype/device
/// attributes stringified as `json.dumps(default=str)` does. Throws ConversionError for
/// dynamic shapes, as pytorch-ir does. `schemas` gives each op's schema arguments (the
/// dispatcher's, through AtenBackend), which decide attrs and tensor-list sizes.
using SchemaLookup = std::function<std::vector<SchemaArgSpec>(const std::string& opType)>;
nlohmann::ordered_json toIrJson(const Program& program, const std::string& pytorchVersion, const SchemaLookup& schemas);

}  // namespace torchir
