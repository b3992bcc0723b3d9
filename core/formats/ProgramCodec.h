#pragma once
// The binary form of what the ExportedProgram JSON reader builds (the graph, its values, modules,
// signature and subgraphs; not the weights), for the program cache. Reading it is ~5x faster than
// reading the JSON, and it is a file like any other: every count, index and enum in it is checked.
#include <optional>
#include <string>
#include <string_view>

#include "program/Program.h"

namespace torchir {

/// The program's graph in the codec's form; nullopt for a program it does not keep (a subgraph
/// with weights of its own).
std::optional<std::string> encodeProgramGraph(const Program& program);

/// Fills `program`'s graph from `bytes`, leaving its source path and layout, weights and sample
/// inputs as they are. What JSON's reader derives (each value's users, each argument's values) is
/// derived again, not read. Throws LoadError naming `file` when the bytes are not a graph this
/// codec wrote: short, a count past what remains, an index out of range, an unknown kind.
void decodeProgramGraph(std::string_view bytes, const std::string& file, Program& program);

}  // namespace torchir
