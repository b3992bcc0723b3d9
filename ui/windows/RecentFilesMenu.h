#pragma once
#include <QMenu>

#include "session/RecentFiles.h"

namespace torchir::ui {

/// File › Open Recent: the programs opened last, newest first, each with its folder to tell apart
/// files of the same name; Clear Recent Files empties the list.
class RecentFilesMenu : public QMenu {
  Q_OBJECT

 public:
  explicit RecentFilesMenu(QWidget* parent);

  /// A program was opened: it goes first.
  void add(const QString& path);

 Q_SIGNALS:
  void fileChosen(const QString& path);

 private:
  void rebuild();

  RecentFiles m_files;
};

}  // namespace torchir::ui
