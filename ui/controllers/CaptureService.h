#pragma once
// What a user keeps of a run: captures (File › Save Capture), bookmarks and notes on nodes, and
// pinned tensors, which captures carry.
#include <QList>
#include <QObject>

#include "program/Ids.h"

class QAction;
class QMenu;
class QStatusBar;
class QWidget;

namespace torchir::ui {

struct StudioContext;
class Selection;
class SessionController;

/// The actions that keep a run, on the selected node. The marks themselves, and the mapping of
/// node ids to the names a capture file keeps them by, are the SessionController's: a capture
/// reopened shows them on the program's own ids.
class CaptureService : public QObject {
  Q_OBJECT

 public:
  explicit CaptureService(const StudioContext& studio);

  /// Save Capture, Save Capture with the Program.
  void addFileActions(QMenu* file);
  /// Toggle Bookmark (Ctrl+B), Go to Bookmark 1..9 (Ctrl+1..9), Note, Pin Outputs.
  QMenu* markMenu() const { return m_markMenu; }
  /// The actions that apply to one node, for its context menus.
  QList<QAction*> nodeActions() const { return {m_bookmark, m_note, m_pin}; }

  void saveCapture(bool embedProgram);
  void toggleBookmark();
  void goToBookmark(int slot);
  void editNote();
  void togglePin();

 private:
  /// A node with a note says it in the status bar when it is selected.
  void showNoteOf(torchir::NodeId node);

  SessionController* m_session;
  Selection* m_selection;
  QStatusBar* m_status;
  QWidget* m_window;
  QAction* m_saveCapture = nullptr;
  QAction* m_saveCaptureEmbedded = nullptr;
  QAction* m_bookmark = nullptr;
  QAction* m_note = nullptr;
  QAction* m_pin = nullptr;
  QMenu* m_markMenu = nullptr;
};

}  // namespace torchir::ui
