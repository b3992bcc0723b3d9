#pragma once
// The status bar's account of loading and running.
#include <QObject>

class QLabel;
class QProgressBar;
class QStatusBar;

namespace torchir::ui {

struct StudioContext;
class AsyncProgramLoader;
class SessionController;

/// A progress bar while a file loads or a command runs (busy, or nodes done of all), the run's
/// state beside it, and the messages that go with them: the file being loaded, the inputs a
/// ready run has, why the engine could not start.
class RunStatus : public QObject {
  Q_OBJECT

 public:
  /// Adds its widgets to `status` as permanent ones: temporary messages must not hide them.
  RunStatus(const StudioContext& studio, AsyncProgramLoader* loader);

 private:
  void showBusy();
  void showProgress(int done, int total);
  void onStateChanged();

  SessionController* m_session;
  QStatusBar* m_status;
  QProgressBar* m_progress = nullptr;
  QLabel* m_state = nullptr;
};

}  // namespace torchir::ui
