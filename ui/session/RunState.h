#pragma once
// Where the studio's run stands, as the state machine of SessionController has it.
#include <QMetaType>
#include <QString>

namespace torchir::ui {

/// Where a run stands; every job on the engine thread has one. Starting: the engine thread is
/// creating the session; StartFailed: it could not (sessionFailed says why). Running: a command is
/// on the engine thread (a step, a continue, a run-to, a reset, a comparison with the reference it
/// loads, a change to a call and what runs after it); Exporting: a repro's own run; both stop at
/// stop(). Saving: a capture is written (a CRC of the whole program), which cannot be stopped. Only
/// stop(), breakpoints and tensor requests are taken in those three. Ready, Paused, Finished and
/// Failed follow from the run's marks.
enum class RunState { Empty, Starting, StartFailed, Ready, Running, Exporting, Saving, Paused, Finished, Failed };
QString runStateName(RunState state);
/// No job holds the engine thread: Ready, Paused, Finished or Failed.
bool isResting(RunState state);
/// A run stopped after some of its nodes ran: Paused, Finished or Failed.
bool isStopped(RunState state);
/// The engine holds a session: started, and not cleared since.
bool hasSession(RunState state);

}  // namespace torchir::ui

Q_DECLARE_METATYPE(torchir::ui::RunState)
