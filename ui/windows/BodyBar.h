#pragma once
// The bar of a body's window: which of the body's calls the run is of (its iteration), the calls
// before and after it, and a run on through the later calls to the first breakpoint.
#include <QToolBar>
#include <cstddef>

#include "session/LoadedProgram.h"

class QLabel;
class QSpinBox;

namespace torchir {
enum class StopReason : uint8_t;
}  // namespace torchir

namespace torchir::ui {

class SessionController;
enum class RunState;

class BodyBar : public QToolBar {
  Q_OBJECT

 public:
  BodyBar(SessionController* session, QWidget* parent);

  /// Shown for a body, hidden for any other program.
  void setProgram(const LoadedProgramPtr& program);
  /// The call a body's run starts on: the one that failed, else the first.
  static std::size_t firstCall(const BodyOrigin& body);

  /// The run starts again on call `call`, with the window's breakpoints.
  void showCall(std::size_t call);
  /// Runs on from where the run stands, and through each later call, until a breakpoint, a
  /// failure, a stop condition or Stop; the run stays on that call.
  void continueThroughCalls();

 private:
  void onStopped(torchir::StopReason reason);
  void onStateChanged(torchir::ui::RunState state);
  void updateControls();

  SessionController* m_session;
  LoadedProgramPtr m_program;
  QLabel* m_origin = nullptr;
  QSpinBox* m_iteration = nullptr;
  QLabel* m_count = nullptr;
  QAction* m_previous = nullptr;
  QAction* m_next = nullptr;
  QAction* m_through = nullptr;
  bool m_runningThrough = false;  // continueThroughCalls is under way
  bool m_continueWhenReady = false;  // the next call's run has been asked for: continue it once started
};

}  // namespace torchir::ui
