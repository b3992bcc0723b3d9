#include "windows/MainWindow.h"

#include <algorithm>

#include "session/PythonSettings.h"
#include "windows/PythonPreferencesDialog.h"

#include <QAction>
#include <QCloseEvent>
#include <QCoreApplication>
#include <QShowEvent>
#include <QDockWidget>
#include <QDragEnterEvent>
#include <QDropEvent>
#include <QFileDialog>
#include <QFileInfo>
#include <QKeySequence>
#include <QLabel>
#include <QMenu>
#include <QMenuBar>
#include <QSplitter>
#include <QStatusBar>
#include <QTableView>
#include <QTimer>
#include <QToolBar>
#include <QVBoxLayout>
#include <utility>

#include "controllers/ArgumentsDock.h"
#include "controllers/CaptureService.h"
#include "controllers/EditAndContinue.h"
#include "controllers/ProblemsDock.h"
#include "controllers/PythonImportOffer.h"
#include "controllers/QuantizationTools.h"
#include "controllers/DeviceRunOverlay.h"
#include "controllers/ReproExport.h"
#include "controllers/RunStatus.h"
#include "controllers/StepIntoBody.h"
#include "controllers/TensorDock.h"
#include "graph/FindBar.h"
#include "graph/GoToNodeDialog.h"
#include "graph/GraphPanel.h"
#include "panels/ArgumentsPanel.h"
#include "panels/DiagnosisPanel.h"
#include "panels/FxTableModel.h"
#include "panels/ProblemsPanel.h"
#include "panels/TensorViewer.h"
#include "session/AsyncProgramLoader.h"
#include "session/BackgroundRelease.h"
#include "session/BreakpointStore.h"
#include "session/NextTurn.h"
#include "session/ExecutionActions.h"
#include "session/ProgramFiles.h"
#include "session/Selection.h"
#include "session/SessionController.h"
#include "session/StudioContext.h"
#include "windows/BodyBar.h"
#include "windows/CompareMenu.h"
#include "windows/FxTablePane.h"
#include "windows/LoadBanner.h"
#include "windows/OpenDialogs.h"
#include "windows/ProgramStatusText.h"
#include "windows/RecentFilesMenu.h"
#include "windows/ViewMenu.h"
#include "windows/WindowState.h"

namespace torchir::ui {

namespace {

const QString kAppTitle = QStringLiteral("torchir studio");
// Starts the engine even if the first layout is slow to come (or never comes).
constexpr int kSessionStartFallbackMs = 3000;

}  // namespace

MainWindow::MainWindow(QWidget* parent)
    : QMainWindow(parent),
      m_loader(new AsyncProgramLoader(this)),
      m_session(new SessionController(this)),
      m_selection(new Selection(this)) {
  setWindowTitle(kAppTitle);
  setAcceptDrops(true);
  m_loader->startAfterFirstFrameOf(this);
  setDockOptions(dockOptions() | QMainWindow::AllowTabbedDocks);
  m_actions = new ExecutionActions(m_session, m_selection, this);
  createCentralWidget();
  createDocks();
  createControllers();
  createMenus();
  connectSession();
  restoreWindowState(this, m_splitter, m_argumentsDock, m_tensorDock);
}

MainWindow::~MainWindow() = default;

void MainWindow::createCentralWidget() {
  auto* central = new QWidget(this);
  auto* layout = new QVBoxLayout(central);
  layout->setContentsMargins(6, 6, 6, 0);
  layout->setSpacing(4);
  m_banner = new LoadBanner(central);
  connect(m_banner, &QLabel::linkActivated, this, [this](const QString& link) {
    if (link == QStringLiteral("weights")) chooseWeightsFile();
    if (link == QStringLiteral("cast") && m_program) {
      OpenRequest request = m_program->request;
      request.castWeights = true;
      open(request);
    }
  });
  layout->addWidget(m_banner);

  m_splitter = new QSplitter(Qt::Horizontal, central);
  m_splitter->setObjectName(QStringLiteral("mainSplitter"));
  auto* graphSide = new QWidget(m_splitter);
  auto* graphLayout = new QVBoxLayout(graphSide);
  graphLayout->setContentsMargins(0, 0, 0, 0);
  graphLayout->setSpacing(2);
  m_findBar = new FindBar(graphSide);
  m_graph = new GraphPanel(graphSide);
  graphLayout->addWidget(m_findBar);
  graphLayout->addWidget(m_graph, 1);
  m_table = new FxTablePane(m_splitter);
  m_splitter->addWidget(graphSide);
  m_splitter->addWidget(m_table);
  m_splitter->setStretchFactor(0, 3);
  m_splitter->setStretchFactor(1, 2);
  layout->addWidget(m_splitter, 1);
  setCentralWidget(central);

  m_selection->takeFrom(m_graph, &GraphPanel::nodeSelected);
  m_selection->takeFrom(m_table, &FxTablePane::nodeSelected);
  m_selection->takeFrom(m_findBar, &FindBar::nodeFound);
  connect(m_graph, &GraphPanel::nodeContextMenuRequested, this, [this](torchir::NodeId, const QPoint& globalPos) {
    m_nodeMenu->popup(globalPos);  // the node is already selected: the actions apply to it
  });
  connect(m_graph, &GraphPanel::layoutStarted, this, [this] { statusBar()->showMessage(tr("Laying out the graph…")); });
  connect(m_graph, &GraphPanel::layoutFinished, this, [this](int boxes, double seconds) {
    statusBar()->showMessage(tr("Graph: %1 boxes laid out in %2 s").arg(boxes).arg(seconds, 0, 'f', 2), 4000);
    if (m_firstViewPending && m_program) {
      m_firstViewPending = false;
      startSession();
      Q_EMIT firstViewShown(m_program->request.path);
    }
  });
}

void MainWindow::createDocks() {
  static constexpr int kDockMinimumWidth = 200;
  m_arguments = new ArgumentsPanel(this);
  m_tensor = new TensorViewer(this);
  m_diagnosis = new DiagnosisPanel(this);
  m_problems = new ProblemsPanel(this);

  auto makeDock = [this](const QString& title, const QString& name, QWidget* widget, Qt::DockWidgetArea area) {
    auto* dock = new QDockWidget(title, this);
    dock->setObjectName(name);  // saveState() restores docks by object name
    // A width of its own below which the panel squeezes its content: without it, a panel's
    // minimum follows what it shows (a compared tensor's side box, a 4-D tensor's index boxes), and
    // each step that widened it moved the docks' edge, resizing and repainting the whole window.
    widget->setMinimumWidth(std::max(kDockMinimumWidth, widget->minimumWidth()));
    dock->setWidget(widget);
    addDockWidget(area, dock);
    return dock;
  };
  // One column at the right, so the graph and the table keep the window's full height.
  m_argumentsDock = makeDock(tr("Arguments"), QStringLiteral("argumentsDock"), m_arguments, Qt::RightDockWidgetArea);
  m_tensorDock = makeDock(tr("Tensor"), QStringLiteral("tensorDock"), m_tensor, Qt::RightDockWidgetArea);
  m_diagnosisDock = makeDock(tr("Diagnosis"), QStringLiteral("diagnosisDock"), m_diagnosis, Qt::RightDockWidgetArea);
  splitDockWidget(m_argumentsDock, m_tensorDock, Qt::Vertical);
  m_problemsDock = makeDock(tr("Problems"), QStringLiteral("problemsDock"), m_problems, Qt::RightDockWidgetArea);
  tabifyDockWidget(m_tensorDock, m_diagnosisDock);
  tabifyDockWidget(m_diagnosisDock, m_problemsDock);
  m_tensorDock->raise();
  m_selection->takeFrom(m_diagnosis, &DiagnosisPanel::nodeActivated);
  m_selection->takeFrom(m_problems, &ProblemsPanel::nodeActivated);
}

void MainWindow::createControllers() {
  const StudioContext studio{*m_session, *m_selection, *this, *statusBar()};
  new RunStatus(studio, m_loader);
  m_programInfoLabel = new QLabel(this);
  m_programInfoLabel->setObjectName(QStringLiteral("programInfoLabel"));
  statusBar()->addPermanentWidget(m_programInfoLabel);  // after the run's: what is open, rightmost
  m_argumentsShown = new ArgumentsDock(studio, m_arguments);
  m_tensors = new TensorDock(studio, m_arguments, m_tensor, m_tensorDock);
  new ProblemsDock(studio, m_problems, m_problemsDock);
  m_editAndContinue = new EditAndContinue(studio, m_diagnosis, m_tensors);
  new PythonImportOffer(studio, m_diagnosis);  // the window owns it
  m_captures = new CaptureService(studio);
  m_repro = new ReproExport(studio);
  m_device = new DeviceRunOverlay(studio);
  m_quantization = new QuantizationTools(studio, m_graph);
  m_stepInto = new StepIntoBody(studio);
  // each body in a window of its own, which runs it as any program
  connect(m_stepInto, &StepIntoBody::bodyReady, this, [](const LoadedProgramPtr& body) {
    auto* window = new MainWindow;
    window->setAttribute(Qt::WA_DeleteOnClose);
    window->showBody(body);
    window->show();
  });
}

void MainWindow::createMenus() {
  // What applies to one node, in the table's and the graph's context menus: a right-click selects
  // the node first (the table moves its current row), so they act on it.
  const QList<QAction*> runOnNode{m_actions->runToSelected(), m_actions->toggleBreakpoint(), m_stepInto->action(),
                                  m_editAndContinue->editCallAction(), m_quantization->keepInFloatAction()};
  const QList<QAction*> keepOfNode = m_captures->nodeActions() << m_repro->action();
  QTableView* table = m_table->view();
  table->setContextMenuPolicy(Qt::ActionsContextMenu);
  table->addActions(runOnNode + keepOfNode);
  m_nodeMenu = new QMenu(this);
  m_nodeMenu->addActions(runOnNode);
  m_nodeMenu->addSeparator();
  m_nodeMenu->addActions(keepOfNode);
  auto* runToolBar = addToolBar(tr("Run"));
  runToolBar->setObjectName(QStringLiteral("runToolBar"));
  runToolBar->setToolButtonStyle(Qt::ToolButtonTextBesideIcon);
  runToolBar->addActions(m_actions->runActions());
  m_bodyBar = new BodyBar(m_session, this);
  addToolBarBreak();
  addToolBar(m_bodyBar);

  auto* compare = new CompareMenu(m_session, m_quantization->sensitivityAction(), this);
  compare->addSeparator();
  compare->addAction(m_device->runToDivergenceAction());
  auto* view = new ViewMenu(
      m_graph, m_findBar, {m_argumentsDock, m_tensorDock, m_diagnosisDock, m_problemsDock, m_quantization->dock()},
      [this] { goToNode(); },
      [this] { return m_program ? std::optional(QFileInfo(m_program->request.path).completeBaseName()) : std::nullopt; },
      statusBar(), this);
  connect(compare, &CompareMenu::reportExported, this,
          [this](const QString& path) { statusBar()->showMessage(tr("Report written to %1").arg(path)); });
  QMenu* fileMenu = menuBar()->addMenu(tr("&File"));
  QAction* openAction = fileMenu->addAction(tr("&Open…"), this, &MainWindow::chooseFileToOpen);
  openAction->setShortcut(QKeySequence::Open);
  openAction->setStatusTip(tr("Open an exported program (.pt2 or pytorch-ir JSON)"));
  m_recentMenu = new RecentFilesMenu(this);
  fileMenu->addMenu(m_recentMenu);
  connect(m_recentMenu, &RecentFilesMenu::fileChosen, this, &MainWindow::openFile);
  fileMenu->addAction(tr("Supply &Weights…"), this, &MainWindow::chooseWeightsFile)
      ->setStatusTip(tr("Reopen the program with weights from a .safetensors or torch.save file"));
  fileMenu->addAction(m_device->attachAction());
  fileMenu->addSeparator();
  m_captures->addFileActions(fileMenu);
  fileMenu->addAction(m_repro->action());
  fileMenu->addSeparator();
  fileMenu->addActions({view->exportSvgAction(), view->exportPngAction()});
  fileMenu->addAction(compare->reportAction());
  fileMenu->addSeparator();
  QAction* preferences = fileMenu->addAction(tr("&Preferences › Python…"), this, &MainWindow::editPythonPreferences);
  preferences->setObjectName(QStringLiteral("pythonPreferencesAction"));
  preferences->setMenuRole(QAction::PreferencesRole);
  preferences->setStatusTip(tr("The Python that runs ops defined in Python, and the modules it imports"));
  fileMenu->addSeparator();
  QAction* quitAction = fileMenu->addAction(tr("&Quit"), this, &QWidget::close);
  quitAction->setShortcut(QKeySequence::Quit);
  quitAction->setMenuRole(QAction::QuitRole);

  menuBar()->addMenu(view);

  QMenu* runMenu = menuBar()->addMenu(tr("&Run"));
  runMenu->addActions(m_actions->runActions());
  runMenu->addAction(m_stepInto->action());
  runMenu->addSeparator();
  runMenu->addAction(m_editAndContinue->editCallAction());
  runMenu->addAction(m_editAndContinue->applyFixAction());
  runMenu->addActions({m_quantization->keepInFloatAction(), m_quantization->keepModuleInFloatAction()});
  runMenu->addSeparator();
  runMenu->addActions({m_actions->stopOnNan(), m_actions->stopOnDtype(), m_actions->stopOnShape()});
  menuBar()->addMenu(m_captures->markMenu());
  menuBar()->addMenu(compare);
  connect(compare, &CompareMenu::worstNodesRequested, m_table, &FxTablePane::sortByWorst);
}

void MainWindow::connectSession() {
  connect(m_loader, &AsyncProgramLoader::loaded, this, &MainWindow::showProgram);
  connect(m_loader, &AsyncProgramLoader::failed, this, &MainWindow::showLoadError);
  // A note from reading comes before the program it is about, whose showing resets the banner:
  // kept until then. One from writing the entry later is shown as it comes.
  connect(m_loader, &AsyncProgramLoader::cacheNoted, this, [this](const QString& note) {
    if (m_loader->isLoading()) m_pendingLoadNotes << note;
    else m_banner->showNote(note);
  });
  connect(m_selection, &Selection::changed, this, &MainWindow::onSelectionChanged);
  connect(m_session, &SessionController::marksChanged, this, &MainWindow::onMarksChanged);
  connect(m_session, &SessionController::stateChanged, this, &MainWindow::onRunStateChanged);
  connect(m_session, &SessionController::stopped, this, &MainWindow::onStopped);
  connect(m_session, &SessionController::comparisonChanged, this, &MainWindow::showComparison);
}

void MainWindow::showEvent(QShowEvent* event) {
  QMainWindow::showEvent(event);
  // show() sends this before the window is mapped (a spontaneous show, such as un-minimizing, finds
  // the panels laid out already). The window system's first expose is handled before the layout
  // requests that building the window posted, so the first frame was painted with the panels'
  // geometry not yet laid out, then laid out and painted whole again. Laid out here, the first
  // frame shows them where they are. A panel's layout asks its parent's again: a few rounds.
  if (event->spontaneous()) return;
  for (int round = 0; round < 8; ++round) QCoreApplication::sendPostedEvents(nullptr, QEvent::LayoutRequest);
}

void MainWindow::closeEvent(QCloseEvent* event) {
  if (!m_program || !m_program->body) saveWindowState(this, m_splitter);  // a body's window is the program's one's
  m_session->stop();
  QMainWindow::closeEvent(event);
}

void MainWindow::dragEnterEvent(QDragEnterEvent* event) {
  if (!droppedProgramPath(event->mimeData()).isEmpty()) event->acceptProposedAction();
}

void MainWindow::dropEvent(QDropEvent* event) {
  if (const QString path = droppedProgramPath(event->mimeData()); !path.isEmpty()) {
    openFile(path);
    event->acceptProposedAction();
  }
}

void MainWindow::openFile(const QString& path) {
  OpenRequest request;
  request.path = path;
  open(request);
}

void MainWindow::open(const OpenRequest& given) {
  OpenRequest request = given;
  if (request.capturePath.isEmpty() && isCaptureFile(request.path))
    request.capturePath = std::exchange(request.path, {});
  // a capture's program is known once the loader has read the capture
  m_loader->load(request.capturePath.isEmpty() ? completeRequest(request) : request);
}

void MainWindow::showBody(const LoadedProgramPtr& body) { showProgram(body); }

void MainWindow::showHint(const QString& text) { statusBar()->showMessage(text); }

QString MainWindow::currentPath() const { return m_program ? m_program->request.path : QString(); }

bool MainWindow::isLoading() const { return m_loader->isLoading(); }

torchir::NodeId MainWindow::selectedNode() const { return m_selection->node(); }

void MainWindow::chooseFileToOpen() {
  if (const QString path = askProgramPath(this, currentPath()); !path.isEmpty()) openFile(path);
}

void MainWindow::chooseWeightsFile() {
  if (!m_program) return;
  if (m_program->body) {  // its weights are the program's around it, whose file is not this window's
    statusBar()->showMessage(tr("A body takes the weights of the program around it: supply them there"), 6000);
    return;
  }
  const QString path = askWeightsPath(this, m_program->request.path);
  if (path.isEmpty()) return;
  OpenRequest request = m_program->request;
  request.weightsPath = path;
  open(request);
}

void MainWindow::editPythonPreferences() {
  PythonPreferencesDialog dialog(savedPythonHost(), this);
  if (dialog.exec() != QDialog::Accepted) return;
  if (dialog.options() == savedPythonHost()) return;
  savePythonHost(dialog.options());
  // the open program's session starts again with the Python named now (a body's, on its call)
  if (m_program && m_program->body) {
    const std::set<torchir::NodeId> breakpoints = m_session->marks().breakpoints;
    m_session->setProgram(m_program, breakpoints, m_session->call());
  } else if (m_program) {
    open(m_program->request);
  }
}

void MainWindow::goToNode() {
  if (!m_program) return;
  if (const auto node = GoToNodeDialog::ask(this, m_program->program)) m_selection->select(*node);
}

void MainWindow::showProgram(const torchir::ui::LoadedProgramPtr& program) {
  LoadedProgramPtr previous = std::exchange(m_program, program);
  m_selection->reset(program->program.nodes.size());  // the ids selected were the old program's
  m_table->setRows(std::shared_ptr<const FxCells>(program, &program->fxCells));
  m_table->model()->setExported(std::shared_ptr<const torchir::Program>(program, &program->program));
  m_findBar->setProgram(program);
  m_firstViewPending = true;
  m_graph->setProgram(program);
  m_argumentsShown->setProgram(program);
  m_diagnosis->clear();
  m_tensors->clear();
  // a body's breakpoints are its window's (the file's are of the program around it)
  m_savedBreakpoints = program->body ? std::set<torchir::NodeId>{}
                                     : BreakpointStore().load(program->request.path, program->program);
  m_bodyBar->setProgram(program);
  // The engine starts once the first view is on screen: loading libtorch and resolving every
  // node's kernel take both cores for a moment, and the graph is what the user waits for.
  m_session->clear();
  // Weak: a program replaced within the wait must not be kept, and freed, by this timer.
  QTimer::singleShot(kSessionStartFallbackMs, this, [this, shown = std::weak_ptr<const LoadedProgram>(program)] {
    if (m_program == shown.lock()) startSession();
  });
  // Every view has let go of the previous program by now: this is the last reference here.
  releaseInBackground(std::move(previous));
  // The window's own texts a turn later: the title alone costs 4–8 ms (Xlib converts it), on top
  // of a turn that has reset a 170k-row table.
  inNextTurn(this, [this, shown = std::weak_ptr<const LoadedProgram>(program)] {
    if (const LoadedProgramPtr program = shown.lock(); program && program == m_program) showProgramTitles(*program);
  });
}

void MainWindow::showProgramTitles(const LoadedProgram& program) {
  const QFileInfo info(program.request.path);
  statusBar()->clearMessage();
  m_programInfoLabel->setText(programStatusText(program.program));
  if (program.body) {
    setWindowTitle(QStringLiteral("%1 of %2 — %3 — %4").arg(program.body->graph, program.body->node, info.fileName(), kAppTitle));
    Q_EMIT programShown(program.request.path);
    return;
  }
  setWindowTitle(QStringLiteral("%1 — %2").arg(info.fileName(), kAppTitle));
  setWindowFilePath(info.absoluteFilePath());
  m_recentMenu->add(program.request.path);
  if (const QString note = m_banner->showDataProblems(program); !note.isEmpty()) statusBar()->showMessage(note, 8000);
  if (!m_pendingLoadNotes.isEmpty()) m_banner->showNote(m_pendingLoadNotes.join(QLatin1Char(' ')));
  m_pendingLoadNotes.clear();
  Q_EMIT programShown(program.request.path);
}

void MainWindow::startSession() {
  if (!m_program || m_session->program() == m_program) return;  // none shown, or started already
  m_session->setProgram(m_program, m_savedBreakpoints, m_program->body ? BodyBar::firstCall(*m_program->body) : 0);
}

void MainWindow::showLoadError(const QString& path, const QString& problem) {
  statusBar()->showMessage(tr("Could not open %1: %2").arg(QFileInfo(path).fileName(), problem));
  m_pendingLoadNotes.clear();
  m_banner->showLoadError(path, problem);
  Q_EMIT loadFailed(path, problem);
}

void MainWindow::onSelectionChanged(torchir::NodeId node, QObject* origin) {
  if (node == torchir::kNone) return;  // another program: every view was given it afresh
  if (origin != m_graph) m_graph->selectNode(node);
  if (origin != m_table) m_table->selectNode(node);
}

void MainWindow::onMarksChanged() {
  const ExecutionMarks& marks = m_session->marks();
  m_graph->setMarks(marks);
  m_table->model()->updateExecution(marks, [this](torchir::NodeId n) { return m_session->sharedRecord(n); },
                                    m_session->changedRecords());
  // Only the user changes breakpoints of the session's program; a program being replaced or not
  // yet started has empty marks, which are nobody's change.
  if (m_session->program() == m_program && marks.breakpoints != m_savedBreakpoints && !m_program->body) saveBreakpoints();
}

void MainWindow::onStopped(torchir::StopReason reason) {
  if (reason == torchir::StopReason::Failed || reason == torchir::StopReason::StopCondition) {
    m_diagnosis->setDiagnosis(m_session->diagnosis());
    m_diagnosisDock->show();
    m_diagnosisDock->raise();
  }
  // where it failed, its breakpoint, or what the step just did (its arguments as the call got them)
  m_selection->select(m_session->shownNode());
}

void MainWindow::showComparison() {
  const ComparisonPtr c = m_session->comparison();
  m_table->setComparison(c);
  m_graph->setComparison(c);
  if (!c || !m_program) return;
  statusBar()->showMessage(comparisonStatusText(*c, m_program->program));
  if (const torchir::NodeComparison* first = c->firstDivergingNode()) return m_selection->select(first->a);
  m_selection->showAgain();  // the docks show the selected node's comparison now
}

void MainWindow::onRunStateChanged() {
  if (m_session->state() != RunState::Ready) return;
  // A new run: what the selected node's docks showed was of the last one.
  m_diagnosis->clear();
  m_selection->showAgain();
  // Where the run starts: past the placeholders, which fill the top of a big program's table.
  if (selectedNode() == torchir::kNone) m_table->showNode(m_session->marks().current);
}

void MainWindow::saveBreakpoints() {
  if (!m_program) return;
  m_savedBreakpoints = m_session->marks().breakpoints;
  BreakpointStore().save(m_program->request.path, m_program->program, m_savedBreakpoints);
}

}  // namespace torchir::ui
