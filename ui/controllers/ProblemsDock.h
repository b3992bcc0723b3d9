#pragma once
// The Problems dock: what would stop a run, found when the engine session started.
#include <QObject>

class QDockWidget;

namespace torchir::ui {

struct StudioContext;
class ProblemsPanel;
class SessionController;

/// Shows the session's problems as they come, the count in the dock's title; a problem that would
/// stop a run brings the dock up, so the user sees it before running into it.
class ProblemsDock : public QObject {
  Q_OBJECT

 public:
  ProblemsDock(const StudioContext& studio, ProblemsPanel* panel, QDockWidget* dock);

 private:
  void showProblems();

  SessionController* m_session;
  ProblemsPanel* m_panel;
  QDockWidget* m_dock;
};

}  // namespace torchir::ui
