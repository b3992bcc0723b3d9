#pragma once
#include <QMenu>
#include <QThreadPool>

#include "session/RecentFiles.h"

namespace torchir::ui {

/// File › Open Recent: the programs opened last, newest first, each with its folder to tell apart
/// files of the same name; Clear Recent Files empties the list.
class RecentFilesMenu : public QMenu {
  Q_OBJECT

 public:
  explicit RecentFilesMenu(QWidget* parent);

  /// A program was opened: it goes first, in the settings a moment later (written on a thread of
  /// the menu's own) and in the menu when it is next shown.
  void add(const QString& path);

 Q_SIGNALS:
  void fileChosen(const QString& path);

 private:
  void rebuild();

  RecentFiles m_files;
  QThreadPool m_writer;  // one thread: the settings see the adds in the order they were made
};

}  // namespace torchir::ui
