#pragma once
#include <QList>
#include <QObject>

#include "program/Program.h"

class QAction;

namespace torchir::ui {

class Selection;
class SessionController;

/// The run commands as QActions (menu, toolbar, shortcuts), enabled from the controller's state so
/// every place that shows them agrees on what can be done now. Run to Selected and Toggle
/// Breakpoint act on the selection's node, and are off while there is none.
class ExecutionActions : public QObject {
  Q_OBJECT

 public:
  ExecutionActions(SessionController* controller, Selection* selection, QObject* parent);

  QAction* step() const { return m_step; }                          // F10
  QAction* stepBack() const { return m_stepBack; }                  // Shift+F10
  QAction* continueRun() const { return m_continue; }               // F5
  QAction* runToSelected() const { return m_runTo; }                // Ctrl+F10
  QAction* toggleBreakpoint() const { return m_toggleBreakpoint; }  // F9
  QAction* reset() const { return m_reset; }                        // Shift+F5
  QAction* stop() const { return m_stop; }                          // Ctrl+Break, Ctrl+Shift+F5
  // Checkable; forwarded to SessionController::setStopConditions.
  QAction* stopOnNan() const { return m_stopOnNan; }
  QAction* stopOnDtype() const { return m_stopOnDtype; }
  QAction* stopOnShape() const { return m_stopOnShape; }

  /// The commands in toolbar order: Continue, Step, Step Back, Run to Selected, Stop, Reset, Toggle
  /// Breakpoint.
  QList<QAction*> runActions() const;

 private:
  QAction* makeAction(const QString& objectName, const QString& text, const QString& tip);
  void updateEnabled();
  void applyStopConditions();

  SessionController* m_controller;
  Selection* m_selection;
  QAction* m_step = nullptr;
  QAction* m_stepBack = nullptr;
  QAction* m_continue = nullptr;
  QAction* m_runTo = nullptr;
  QAction* m_toggleBreakpoint = nullptr;
  QAction* m_reset = nullptr;
  QAction* m_stop = nullptr;
  QAction* m_stopOnNan = nullptr;
  QAction* m_stopOnDtype = nullptr;
  QAction* m_stopOnShape = nullptr;
};

}  // namespace torchir::ui
