#pragma once
#include <QMainWindow>
#include <QString>

#include "session/LoadedProgram.h"
#include "session/RecentFiles.h"

class QAction;
class QLabel;
class QLineEdit;
class QMenu;
class QSortFilterProxyModel;
class QTableView;

namespace torchir::ui {

class AsyncProgramLoader;
class FxTableModel;

/// The studio window: the FX table of one program, a filter over it, and File actions.
/// Loading never blocks it; a file that fails to load leaves the shown program in place.
class MainWindow : public QMainWindow {
  Q_OBJECT

 public:
  explicit MainWindow(QWidget* parent = nullptr);
  ~MainWindow() override;

  /// Starts reading `path` in the background; programShown() or loadFailed() follows.
  void openFile(const QString& path);
  /// Puts a note in the status bar, e.g. why no program is shown.
  void showHint(const QString& text);

  /// The file of the program on screen; empty before the first successful load.
  QString currentPath() const;
  bool isLoading() const;

 Q_SIGNALS:
  void programShown(const QString& path);
  void loadFailed(const QString& path, const QString& problem);

 protected:
  void closeEvent(QCloseEvent* event) override;

 private:
  void createMenus();
  void createCentralWidget();
  void createStatusBar();
  void restoreWindowGeometry();

  void chooseFileToOpen();
  void rebuildRecentMenu();
  void onLoadStarted(const QString& path);
  void showProgram(const torchir::ui::LoadedProgramPtr& program);
  void showLoadError(const QString& path, const QString& problem);
  void applyFilter(const QString& text);
  void updateFilterCount();
  void sizeColumns();

  AsyncProgramLoader* m_loader = nullptr;
  FxTableModel* m_fxModel = nullptr;
  QSortFilterProxyModel* m_filterModel = nullptr;
  QTableView* m_fxView = nullptr;
  QLineEdit* m_filterEdit = nullptr;
  QLabel* m_filterCountLabel = nullptr;
  QLabel* m_errorLabel = nullptr;
  QLabel* m_programInfoLabel = nullptr;
  QMenu* m_recentMenu = nullptr;
  RecentFiles m_recentFiles;
  LoadedProgramPtr m_program;  // what the views show; replaced only by a successful load
};

}  // namespace torchir::ui
