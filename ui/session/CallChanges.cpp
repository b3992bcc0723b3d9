#include "session/CallChanges.h"

#include <optional>

#include "session/SessionController.h"

namespace torchir::ui {

void changeCall(SessionController& session, torchir::NodeId node, const std::vector<torchir::ArgumentPatch>& patches,
                bool andContinue) {
  const auto program = session.program();
  if (!session.resting() || !program || node < 0 || static_cast<std::size_t>(node) >= program->program.nodes.size())
    return;
  session.runCommand(
      [&session, node, patches, andContinue, stops = session.stopConditions()](EngineJob& job, torchir::RunObserver* observer) {
        const torchir::CallChange c = job.debugger().changeCall(node, patches);
        const bool goesOn = andContinue && c.problem.empty();
        job.reply([&session, c, goesOn] { session.takeCallChange(c, goesOn); });
        if (!goesOn) return std::optional<torchir::DebugOutcome>();  // takeCallChange ends the job
        return std::optional(job.debugger().execute(torchir::DebugCommand::Continue, torchir::kNone, stops, observer));
      },
      true, /*clearsStop=*/false);
}

}  // namespace torchir::ui
