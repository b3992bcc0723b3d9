#pragma once
#include <QString>
#include <set>

#include "program/Program.h"

namespace torchir::ui {

/// Breakpoints per program file, kept in QSettings by the file's absolute path. They are stored as
/// node names, not ids, so they survive a re-export that adds or removes nodes elsewhere.
class BreakpointStore {
 public:
  /// The saved breakpoints of `path` whose node names `program` still has.
  std::set<torchir::NodeId> load(const QString& path, const torchir::Program& program) const;
  /// Replaces the saved breakpoints of `path`; an empty set removes the entry.
  void save(const QString& path, const torchir::Program& program, const std::set<torchir::NodeId>& nodes) const;
};

}  // namespace torchir::ui
