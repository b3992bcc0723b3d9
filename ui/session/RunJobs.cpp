#include "session/RunJobs.h"

#include <exception>
#include <utility>

#include "exec/AtenBackend.h"
#include "session/OneLine.h"
#include "session/PythonSettings.h"
#include "session/RunRecords.h"

namespace torchir::ui {

void startDebugger(EngineJob& job, const LoadedProgramPtr& loaded, std::size_t call, const StartReplies& replies) {
  job.setDebugger(nullptr);
  try {
    const torchir::AtenBackend& backend = torchir::atenBackend();  // dlopen, ~0.3-1 s the first time
    backend.setPythonHost(effectivePythonHost(loaded->request.path));
    auto debugger = std::make_unique<torchir::Debugger>(debugTarget(loaded, call));
    const QString description = QString::fromStdString(debugger->start(job.abandoned()));
    job.setDebugger(std::move(debugger));
    torchir::DebugOutcome reset;
    reset.command = torchir::DebugCommand::Reset;
    EngineReportPtr report = job.report(std::move(reset));
    report->progress.restart = true;
    job.reply([started = replies.started, report, description] { started(report, description); });
    auto problems = job.debugger().check();
    for (const std::string& warning : backend.preparePythonHost().warnings)  // started already: no wait
      problems.push_back({torchir::Severity::Warning, "python", torchir::kNone, {}, warning});
    job.reply([checked = replies.checked, problems] { checked(problems); });
  } catch (const std::exception& e) {  // a LoadError of the inputs file too
    job.setDebugger(nullptr);
    job.reply([failed = replies.failed, problem = oneLine(QString::fromUtf8(e.what()))] { failed(problem); });
  }
}

torchir::DebugOutcome runCommandOn(torchir::Debugger& debugger, torchir::DebugCommand command, torchir::NodeId target,
                                   const CompareRequest& compare, const torchir::StopConditions& stops,
                                   torchir::RunObserver* observer) {
  if (command == torchir::DebugCommand::CompareOn) return debugger.continueComparison(compare.stop, observer);
  if (command != torchir::DebugCommand::Compare) return debugger.execute(command, target, stops, observer);
  try {
    return debugger.compare(referenceSpec(compare), compare.stop, observer);
  } catch (const std::exception& e) {  // a LoadError of the other file too
    return torchir::failedOutcome(command, "cannot compare: " + oneLine(QString::fromUtf8(e.what())).toStdString());
  }
}

EngineReportPtr endReport(EngineJob& job, torchir::DebugOutcome outcome, bool carryTensor) {
  EngineReportPtr report = job.report(std::move(outcome));
  const torchir::Program& program = job.debugger().program();
  const torchir::Session& session = job.debugger().session();
  const torchir::NodeId node =
      nodeAStopShows(report->outcome, session.finished() ? torchir::kNone : session.position(), program.nodes.size(),
                     [&](torchir::NodeId n) { return session.record(n); });
  if (!carryTensor || node == torchir::kNone || program.node(node).outputs.empty()) return report;
  const torchir::ValueId value = program.node(node).outputs.front();
  if (program.value(value).kind != torchir::ValueKind::Tensor) return report;
  if (torchir::ValueAnswer a = job.debugger().tensor(value); a.tensor) {
    report->shownValue = value;
    report->shownTensor = std::move(a.tensor);
  }
  return report;
}

}  // namespace torchir::ui
