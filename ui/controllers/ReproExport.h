#pragma once
// File › Export Repro: the selected node, or a module around it, as a program of its own.
#include <QObject>

class QAction;
class QStatusBar;
class QWidget;

namespace torchir::ui {

struct StudioContext;
class Selection;
class SessionController;

/// Export Repro (Ctrl+Shift+R) cuts the selected node, or one of the modules around it, out of the
/// run as a .pt2 that torch.export.load runs, with the inputs it got; the status bar says what was
/// written.
class ReproExport : public QObject {
  Q_OBJECT

 public:
  explicit ReproExport(const StudioContext& studio);

  QAction* action() const { return m_action; }
  void exportRepro();

 private:
  SessionController* m_session;
  Selection* m_selection;
  QStatusBar* m_status;
  QWidget* m_window;
  QAction* m_action = nullptr;
};

}  // namespace torchir::ui
