#pragma once
// Find in the graph: which nodes a query names.
#include <QString>
#include <vector>

#include "program/Program.h"

namespace torchir::ui {

/// Nodes whose name, target (`aten.conv2d.default`) or innermost module path contains `query`,
/// case-insensitively, in graph order. An empty (or blank) query finds nothing.
std::vector<NodeId> findNodes(const Program& program, const QString& query);

}  // namespace torchir::ui
