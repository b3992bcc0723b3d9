#pragma once
#include <string>

#include "program/Program.h"

namespace torchir {

/// Writes `program` as a `.pt2` that torch.export.load reads: the PT2 archive of torch 2.9 and
/// later (zip records stored and aligned, schema 8 JSON, raw weight storages with JSON configs),
/// the archive's root folder named after the file. Parameters and persistent buffers go to
/// `data/weights`, lifted constants and other buffers to `data/constants`, each from
/// program.weights by its state_dict key; a higher-order op's graphs (Program::subgraphs) inline,
/// as torch writes them. Static programs only: a symbolic size, a custom object or an IR attribute
/// is refused with std::invalid_argument saying which node has it; a failed write is
/// std::runtime_error.
/// `sampleInputs` is the record `data/sample_inputs/model.pt`, torch.save's bytes of (args, kwargs),
/// which torch.export.load requires (AtenBackend::torchSaveArgs writes it).
void writePt2(const Program& program, const std::string& sampleInputs, const std::string& path);

/// The schema whose fields the writer fills (what torch 2.14 writes); readers accept any minor.
constexpr int kWrittenSchemaMajor = 8;
constexpr int kWrittenSchemaMinor = 20;

}  // namespace torchir
