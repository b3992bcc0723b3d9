#pragma once
// The binary form of what the ExportedProgram JSON reader builds (the graph, its values, modules,
// signature and subgraphs; not the weights), for the program cache: a 100k-node program opens from
// it in under half the time its JSON takes. An entry is a file like any other: every count, index
// and kind in it is checked, and so is what the JSON reader guarantees.
#include <optional>
#include <string>
#include <string_view>

#include "program/Program.h"

namespace torchir {

/// The program's graph in the codec's form; nullopt for a program it does not keep (a subgraph
/// with weights of its own).
std::optional<std::string> encodeProgramGraph(const Program& program);

/// The program's graph in `bytes`, with no source path or layout, weights or sample inputs. What
/// the JSON reader derives (each value's users, each argument's values) is derived again, not
/// read. Throws LoadError naming `file` when the bytes are not a graph this codec wrote: short, a
/// count past what remains, an index out of range, an unknown kind, a value used before it is made.
Program decodeProgramGraph(std::string_view bytes, const std::string& file);

}  // namespace torchir
