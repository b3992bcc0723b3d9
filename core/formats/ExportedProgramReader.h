#pragma once
#include <string>
#include <string_view>

#include "program/Program.h"

namespace torchir {

/// The schema major version this reader understands (torch/_export/serde/schema.py).
constexpr int kSupportedSchemaMajor = 8;
/// The schema major version of ExecuTorch's serializer (executorch/exir/serde), read in ETRecords.
constexpr int kExecuTorchSchemaMajor = 5;

/// Builds the graph, signature and symbol ranges of `program` from an ExportedProgram JSON's text
/// (`record`, `models/model.json`), the way torch.export.load rebuilds its FX graph: one getitem
/// node per output of a multi-output op, placeholders in signature order. The program model is
/// built as the JSON is read (simdjson On-Demand): no tree of the JSON is made. Errors are
/// LoadErrors naming `file`.
/// `readable` is how many bytes from the text's start may be read (see json::parseObject).
void readExportedProgram(std::string_view text, std::size_t readable, const std::string& file,
                         const std::string& record, Program& program);

}  // namespace torchir
