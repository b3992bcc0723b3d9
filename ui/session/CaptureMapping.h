#pragma once
// The one mapping between a capture, which names nodes and values (names are what two loads of a
// program agree on), and the studio's run, which holds them by the program's ids: what Save
// Capture writes of the GUI side, and how an opened capture's run is shown without running.
#include <QString>
#include <map>
#include <memory>
#include <set>
#include <vector>

#include "capture/CaptureFile.h"
#include "session/ComparisonResult.h"
#include "session/ExecutionMarks.h"

namespace torchir::ui {

/// The GUI side of a run, by ids: the parts a capture holds.
struct CapturedRun {
  ExecutionMarks& marks;
  std::vector<std::shared_ptr<const torchir::NodeRecord>>& records;  // by NodeId
  std::map<torchir::NodeId, QString>& notes;
  std::set<torchir::ValueId>& pinned;
  std::map<torchir::NodeId, std::vector<torchir::ArgumentPatch>>& patches;
  torchir::Diagnosis& diagnosis;
  ComparisonPtr& comparison;
};

/// The capture of `run` (everything but what the engine adds: inputs, pinned tensors, the program's
/// identity).
std::shared_ptr<torchir::Capture> captureOf(const CapturedRun& run, const torchir::Program& program);

/// `capture`'s run shown in `run` (whose marks and records are sized for the program): records,
/// position, breakpoints, bookmarks, notes, pins, changes, the comparison and the stop's diagnosis.
/// Names the program lacks are passed by. `program` is kept by the comparison.
void showCaptured(const torchir::Capture& capture, std::shared_ptr<const torchir::Program> program, CapturedRun& run);

}  // namespace torchir::ui
