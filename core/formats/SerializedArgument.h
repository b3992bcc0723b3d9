#pragma once
// torch's serialized argument union (schema.py's Argument, `{"as_tensor": {"name": "x"}}`) read
// into the typed Argument, straight from the file's JSON: the one place that knows its keys.
#include <functional>
#include <optional>
#include <string>
#include <string_view>

#include "program/Argument.h"
#include "OnDemandJson.h"

namespace torchir {

/// The graph value a name in an argument stands for; throws LoadError when no earlier node made it.
using ValueLookup = std::function<ValueId(std::string_view name)>;

/// The typed argument, or nullopt when the union does not have the shape torch's schema gives its
/// kind. A kind this reader does not know is kept with its JSON text, shown as it is.
std::optional<Argument> readSerializedArgument(const json::Reader& r, json::od::value v, const ValueLookup& lookup);
/// The same for a union whose key (`kind`) has been read already and whose value is `body`.
std::optional<Argument> readSerializedArgument(const json::Reader& r, std::string_view kind, json::od::value body,
                                               const ValueLookup& lookup);

}  // namespace torchir
