#pragma once
#include <QMainWindow>
#include <QString>
#include <QStringList>
#include <cstdint>
#include <set>

#include "program/Program.h"
#include "session/LoadedProgram.h"
#include "session/OpenRequest.h"

class QDockWidget;
class QLabel;
class QMenu;
class QSplitter;

namespace torchir {
enum class StopReason : uint8_t;
}  // namespace torchir

namespace torchir::ui {

class ArgumentsDock;
class ArgumentsPanel;
class AsyncProgramLoader;
class BodyBar;
class CaptureService;
class DiagnosisPanel;
class EditAndContinue;
class ExecutionActions;
class FindBar;
class FxTablePane;
class GraphPanel;
class LoadBanner;
class ProblemsPanel;
class RecentFilesMenu;
class QuantizationTools;
class ReproExport;
class DeviceRunOverlay;
class Selection;
class SessionController;
class StepIntoBody;
class TensorDock;
class TensorViewer;

/// The studio window: the graph next to the FX table, the run controls, and docks for the
/// arguments of the selected node, tensor values, the diagnosis of a failure and the program's
/// problems. Loading, layout and execution each run on their own thread; a file that fails to load
/// leaves the shown program, and its run, in place. The window lays the views out and follows the
/// run with them; each feature (captures, repros, edit and continue, the tensor dock) is a
/// controller of its own that owns its actions and connections.
class MainWindow : public QMainWindow {
  Q_OBJECT

 public:
  explicit MainWindow(QWidget* parent = nullptr);
  ~MainWindow() override;

  /// Starts reading the program in the background; programShown() or loadFailed() follows.
  void openFile(const QString& path);
  void open(const OpenRequest& request);
  /// Shows a higher-order node's body (bodyProgram), run on its first call (the failed one, if any).
  void showBody(const LoadedProgramPtr& body);
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
  Selection* selection() const { return m_selection; }
  ExecutionActions* executionActions() const { return m_actions; }
  EditAndContinue* editAndContinue() const { return m_editAndContinue; }
  DeviceRunOverlay* deviceRunOverlay() const { return m_device; }
  GraphPanel* graphPanel() const { return m_graph; }
  TensorViewer* tensorViewer() const { return m_tensor; }

 Q_SIGNALS:
  void programShown(const QString& path);
  void loadFailed(const QString& path, const QString& problem);
  /// The graph view shows the program's first layout.
  void firstViewShown(const QString& path);

 protected:
  void showEvent(QShowEvent* event) override;
  void closeEvent(QCloseEvent* event) override;
  void dragEnterEvent(QDragEnterEvent* event) override;
  void dropEvent(QDropEvent* event) override;

 private:
  void createCentralWidget();
  void createDocks();
  void createControllers();
  void createMenus();
  void connectSession();

  void chooseFileToOpen();
  void chooseWeightsFile();
  void editPythonPreferences();
  void goToNode();
  void showProgram(const torchir::ui::LoadedProgramPtr& program);
  /// The title, status bar, banner and recent files for the program shown; then programShown.
  void showProgramTitles(const LoadedProgram& program);
  void showLoadError(const QString& path, const QString& problem);

  /// The graph and the table show the selection unless they made it; the arguments panel follows.
  void onSelectionChanged(torchir::NodeId node, QObject* origin);
  /// The session's comparison in the table's metric columns and the status bar; the node where
  /// the first divergence starts selected.
  void showComparison();
  void onMarksChanged();
  void onStopped(torchir::StopReason reason);
  void onRunStateChanged();
  void saveBreakpoints();
  void startSession();

  AsyncProgramLoader* m_loader = nullptr;
  SessionController* m_session = nullptr;
  Selection* m_selection = nullptr;
  ExecutionActions* m_actions = nullptr;
  GraphPanel* m_graph = nullptr;
  FindBar* m_findBar = nullptr;
  FxTablePane* m_table = nullptr;
  ArgumentsPanel* m_arguments = nullptr;
  ArgumentsDock* m_argumentsShown = nullptr;  // what the arguments panel shows
  DiagnosisPanel* m_diagnosis = nullptr;
  ProblemsPanel* m_problems = nullptr;
  TensorViewer* m_tensor = nullptr;
  QDockWidget* m_argumentsDock = nullptr;
  QDockWidget* m_tensorDock = nullptr;
  QDockWidget* m_diagnosisDock = nullptr;
  QDockWidget* m_problemsDock = nullptr;
  TensorDock* m_tensors = nullptr;
  CaptureService* m_captures = nullptr;
  ReproExport* m_repro = nullptr;
  DeviceRunOverlay* m_device = nullptr;
  QuantizationTools* m_quantization = nullptr;
  EditAndContinue* m_editAndContinue = nullptr;
  StepIntoBody* m_stepInto = nullptr;
  BodyBar* m_bodyBar = nullptr;  // shown in a body's window
  QSplitter* m_splitter = nullptr;
  LoadBanner* m_banner = nullptr;
  QStringList m_pendingLoadNotes;  // notes of the read under way, shown with its program
  QLabel* m_programInfoLabel = nullptr;
  RecentFilesMenu* m_recentMenu = nullptr;
  QMenu* m_nodeMenu = nullptr;  // right-click on a graph node
  LoadedProgramPtr m_program;   // what the views show; replaced only by a successful load
  std::set<torchir::NodeId> m_savedBreakpoints;
  bool m_firstViewPending = false;
};

}  // namespace torchir::ui
