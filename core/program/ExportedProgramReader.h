#pragma once
#include <nlohmann/json.hpp>
#include <string>

#include "Program.h"

namespace torchir {

/// The schema major version this reader understands (torch/_export/serde/schema.py).
constexpr int kSupportedSchemaMajor = 8;

/// Builds the graph, signature and symbol ranges of `program` from an ExportedProgram JSON
/// (`models/model.json`), the way torch.export.load rebuilds its FX graph: one getitem node per
/// output of a multi-output op, placeholders in signature order. `file` names errors.
void readExportedProgram(const nlohmann::json& ep, const std::string& file, Program& program);

}  // namespace torchir
