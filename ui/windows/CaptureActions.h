#pragma once
// What a user keeps of a run and sends on: captures (File › Save Capture), bookmarks and notes on
// nodes, pinned tensors, and repro files (File › Export Repro).
#include <QObject>
#include <functional>

#include "program/Ids.h"

class QAction;
class QMenu;
class QWidget;

namespace torchir::ui {

class SessionController;

class CaptureActions : public QObject {
  Q_OBJECT

 public:
  /// `selected` is the window's selected node; `select` makes a node the selected one.
  CaptureActions(SessionController* session, QWidget* window, std::function<torchir::NodeId()> selected,
                 std::function<void(torchir::NodeId)> select);

  /// Save Capture, Save Capture with the Program, Export Repro.
  void addFileActions(QMenu* file);
  /// Toggle Bookmark (Ctrl+B), Go to Bookmark 1..9 (Ctrl+1..9), Note, Pin Outputs.
  QMenu* markMenu() const { return m_markMenu; }
  /// The actions that apply to one node, for its context menus.
  QList<QAction*> nodeActions() const;

  void saveCapture(bool embedProgram);
  void toggleBookmark();
  void goToBookmark(int slot);
  void editNote();
  void togglePin();
  void exportRepro();

 Q_SIGNALS:
  /// For the status bar.
  void message(const QString& text);

 private:
  SessionController* m_session;
  QWidget* m_window;
  std::function<torchir::NodeId()> m_selected;
  std::function<void(torchir::NodeId)> m_select;
  QAction* m_saveCapture = nullptr;
  QAction* m_saveCaptureEmbedded = nullptr;
  QAction* m_exportRepro = nullptr;
  QAction* m_bookmark = nullptr;
  QAction* m_note = nullptr;
  QAction* m_pin = nullptr;
  QMenu* m_markMenu = nullptr;
};

}  // namespace torchir::ui
