#pragma once
// What a run writes to files, each a job of the engine thread that holds the run meanwhile: a
// capture of it, a repro cut out of it.
#include <QObject>
#include <QString>
#include <QStringList>
#include <functional>

#include "repro/Repro.h"

namespace torchir::ui {

class SessionController;

/// File › Save Capture: the run as it stands (marks, records, changes, notes, bookmarks, pinned
/// tensors, inputs; the program itself when `embedProgram`) written to `path`. The run is Saving
/// meanwhile. `done(problem)` follows on the GUI thread (problem empty: written) unless `context`
/// is gone; at once when there is nothing to capture.
void saveCapture(SessionController& session, const QString& path, bool embedProgram, QObject* context,
                 std::function<void(const QString& problem)> done);

/// File › Export Repro: `part` cut out by a run of its own (this run's inputs and changes), its
/// files written beside `path`. The run is Exporting meanwhile, and Stop cancels it. `done` follows
/// with what was cut out, the files (the .pt2 first) and the problem (empty: written).
using ReproDone = std::function<void(const QString& description, const QStringList& files, const QString& problem)>;
void exportRepro(SessionController& session, const torchir::ReproPart& part, const QString& path, QObject* context,
                 ReproDone done);

}  // namespace torchir::ui
