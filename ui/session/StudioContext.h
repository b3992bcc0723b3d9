#pragma once
// What every feature of the window is given: the run, the one selection, the window and its status
// line. A feature takes this and the views it drives, never the window itself, so a new feature
// touches the window only where it is laid out.
class QMainWindow;
class QStatusBar;

namespace torchir::ui {

class Selection;
class SessionController;

struct StudioContext {
  SessionController& session;  // the one door to the engine: the run's state, its records, jobs
  Selection& selection;        // the node every view shows; a feature follows it, never another view
  QMainWindow& window;         // where a feature's actions, docks and dialogs live
  QStatusBar& status;          // where a feature says what it did
};

}  // namespace torchir::ui
