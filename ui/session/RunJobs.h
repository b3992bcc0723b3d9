#pragma once
// The engine thread's half of the run's own jobs: the debugger started for a program, and a
// command's last report, with what its stop shows.
#include <QString>
#include <functional>
#include <vector>

#include "session/ComparisonResult.h"
#include "session/EngineWorker.h"
#include "session/LoadedProgram.h"

namespace torchir::ui {

/// What a start tells the GUI thread, each as a reply of the job: `started` with the run's first
/// report (a restart, nothing run) and the words for its inputs, then `checked` with what would
/// stop the run; or `failed` with why there is no run (a one-line message).
struct StartReplies {
  std::function<void(EngineReportPtr report, QString inputs)> started;
  std::function<void(std::vector<torchir::Problem> problems)> checked;
  std::function<void(QString problem)> failed;
};

/// The job's debugger from now on: `loaded`'s (a body's on its call `call`), on the backend with Preferences › Python as they
/// are now, started with its inputs. A Python worker's start gives up when another program is opened.
void startDebugger(EngineJob& job, const LoadedProgramPtr& loaded, std::size_t call, const StartReplies& replies);

/// A run command of the debugger: Step, StepBack, Continue, RunTo `target`, Reset, a comparison
/// with what `compare` names (Compare) or on to its next stop (CompareOn). Never throws: a reference
/// that cannot be made is a Failed outcome that says so.
torchir::DebugOutcome runCommandOn(torchir::Debugger& debugger, torchir::DebugCommand command, torchir::NodeId target,
                                   const CompareRequest& compare, const torchir::StopConditions& stops,
                                   torchir::RunObserver* observer);

/// A command's end: the job's report with `outcome`, carrying the first output of the node its stop
/// shows (nodeAStopShows) when `carryTensor` and the engine holds it as a tensor.
EngineReportPtr endReport(EngineJob& job, torchir::DebugOutcome outcome, bool carryTensor);

}  // namespace torchir::ui
