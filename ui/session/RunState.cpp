#include "session/RunState.h"

namespace torchir::ui {

QString runStateName(RunState state) {
  switch (state) {
    case RunState::Empty: return QStringLiteral("Empty");
    case RunState::Starting: return QStringLiteral("Starting");
    case RunState::StartFailed: return QStringLiteral("Cannot start");
    case RunState::Exporting: return QStringLiteral("Exporting");
    case RunState::Saving: return QStringLiteral("Saving");
    case RunState::Ready: return QStringLiteral("Ready");
    case RunState::Running: return QStringLiteral("Running");
    case RunState::Paused: return QStringLiteral("Paused");
    case RunState::Finished: return QStringLiteral("Finished");
    case RunState::Failed: return QStringLiteral("Failed");
  }
  return {};
}

bool isResting(RunState state) { return state == RunState::Ready || isStopped(state); }

bool isStopped(RunState state) {
  return state == RunState::Paused || state == RunState::Finished || state == RunState::Failed;
}

bool hasSession(RunState state) {
  return state != RunState::Empty && state != RunState::Starting && state != RunState::StartFailed;
}

}  // namespace torchir::ui
