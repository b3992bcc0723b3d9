#pragma once
#include <QMainWindow>
#include <QString>
#include <set>
#include <vector>

#include "exec/Patch.h"
#include "program/Program.h"
#include "session/LoadedProgram.h"
#include "session/OpenRequest.h"
#include "session/RecentFiles.h"

class QAction;
class QDockWidget;
class QLabel;
class QMenu;
class QProgressBar;
class QSplitter;

namespace torchir::ui {

class CaptureActions;

class ArgumentsPanel;
class AsyncProgramLoader;
class DiagnosisPanel;
class ProblemsPanel;
class ExecutionActions;
class FindBar;
class FxTablePane;
class GraphPanel;
class SessionController;
class TensorViewer;

/// The studio window: the graph next to the FX table, the run controls, and docks for the
/// arguments of the selected node, tensor values and the diagnosis of a failure. Loading, layout
/// and execution each run on their own thread; a file that fails to load leaves the shown program,
/// and its run, in place.
class MainWindow : public QMainWindow {
  Q_OBJECT

 public:
  explicit MainWindow(QWidget* parent = nullptr);
  ~MainWindow() override;

  /// Starts reading the program in the background; programShown() or loadFailed() follows.
  void openFile(const QString& path);
  void open(const OpenRequest& request);
  /// Puts a note in the status bar, e.g. why no program is shown.
  void showHint(const QString& text);

  /// The file of the program on screen; empty before the first successful load.
  QString currentPath() const;
  /// The program on screen (its engine session may still be starting).
  LoadedProgramPtr program() const { return m_program; }
  bool isLoading() const;
  torchir::NodeId selectedNode() const;  // the run actions' node: one selection for every view
  /// The shown program's graph has been laid out at least once.
  bool hasFirstView() const { return m_program && !m_firstViewPending; }

  SessionController* session() const { return m_session; }
  ExecutionActions* executionActions() const { return m_actions; }
  GraphPanel* graphPanel() const { return m_graph; }
  TensorViewer* tensorViewer() const { return m_tensor; }

 Q_SIGNALS:
  void programShown(const QString& path);
  void loadFailed(const QString& path, const QString& problem);
  /// The graph view shows the program's first layout.
  void firstViewShown(const QString& path);

 protected:
  void closeEvent(QCloseEvent* event) override;
  void dragEnterEvent(QDragEnterEvent* event) override;
  void dropEvent(QDropEvent* event) override;

 private:
  void createActions();
  void createMenus();
  void createCentralWidget();
  void createDocks();
  void createStatusBar();
  void connectSession();
  void restoreWindowState();

  void chooseFileToOpen();
  void chooseWeightsFile();
  void exportGraph(const QString& format);
  void goToNode();
  void rebuildRecentMenu();
  void onLoadStarted(const QString& path);
  void showProgram(const torchir::ui::LoadedProgramPtr& program);
  void showLoadError(const QString& path, const QString& problem);
  void showMissingData(const torchir::Program& program);
  /// Weights of another dtype than the export's: which, and a link that reopens the program with
  /// them cast to the export's dtypes.
  void showWeightsOfOtherDtype(const torchir::Program& program);

  /// One place makes a node the selected one, so the graph, the table, the arguments panel and
  /// the run actions never disagree.
  void selectNode(torchir::NodeId node, QObject* origin);
  /// Edit and continue: the dialog for the next node's call, and the diagnosis's fix applied.
  void editCall();
  void applySuggestedFix();
  /// The session's comparison in the table's metric columns and the status bar; the node where
  /// the first divergence starts selected.
  void showComparison();
  void refreshArguments();
  void onMarksChanged();
  void onStopped(int reason);
  void onRunStateChanged();
  void saveBreakpoints();
  void startSession();

  AsyncProgramLoader* m_loader = nullptr;
  SessionController* m_session = nullptr;
  ExecutionActions* m_actions = nullptr;
  GraphPanel* m_graph = nullptr;
  FindBar* m_findBar = nullptr;
  FxTablePane* m_table = nullptr;
  ArgumentsPanel* m_arguments = nullptr;
  DiagnosisPanel* m_diagnosis = nullptr;
  ProblemsPanel* m_problems = nullptr;
  TensorViewer* m_tensor = nullptr;
  QDockWidget* m_argumentsDock = nullptr;
  QDockWidget* m_tensorDock = nullptr;
  QDockWidget* m_diagnosisDock = nullptr;
  QDockWidget* m_problemsDock = nullptr;
  CaptureActions* m_captureActions = nullptr;
  QAction* m_editCall = nullptr;
  QAction* m_applyFix = nullptr;
  std::vector<torchir::ArgumentPatch> m_suggestedFix;  // of the diagnosis shown
  QSplitter* m_splitter = nullptr;
  QLabel* m_errorLabel = nullptr;
  QLabel* m_programInfoLabel = nullptr;
  QLabel* m_runStateLabel = nullptr;
  QProgressBar* m_progress = nullptr;
  QMenu* m_recentMenu = nullptr;
  QMenu* m_nodeMenu = nullptr;  // right-click on a graph node
  RecentFiles m_recentFiles;
  LoadedProgramPtr m_program;  // what the views show; replaced only by a successful load
  std::set<torchir::NodeId> m_savedBreakpoints;
  torchir::ValueId m_requestedTensor = torchir::kNone;
  torchir::NodeId m_requestedCompared = torchir::kNone;  // the compared node whose tensors the viewer waits for
  QString m_requestedTensorTitle;
  bool m_firstViewPending = false;
};

}  // namespace torchir::ui
