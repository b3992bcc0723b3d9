#include "windows/MainWindow.h"

#include <QAction>
#include <QCloseEvent>
#include <QDockWidget>
#include <QDragEnterEvent>
#include <QDropEvent>
#include <QFileDialog>
#include <QFileInfo>
#include <QKeySequence>
#include <QLabel>
#include <QMenu>
#include <QMenuBar>
#include <QMimeData>
#include <QProgressBar>
#include <QScreen>
#include <QSettings>
#include <QSplitter>
#include <QStatusBar>
#include <QTimer>
#include <QTableView>
#include <QToolBar>
#include <QVBoxLayout>
#include <utility>

#include "graph/FindBar.h"
#include "graph/GoToNodeDialog.h"
#include "graph/GraphPanel.h"
#include "panels/ArgumentsPanel.h"
#include "panels/DiagnosisPanel.h"
#include "panels/ProblemsPanel.h"
#include "compare/TensorMetrics.h"
#include "exec/Patch.h"
#include "windows/EditCallDialog.h"
#include "panels/FxTableModel.h"
#include "panels/TensorViewer.h"
#include "session/AsyncProgramLoader.h"
#include "windows/CaptureActions.h"
#include "session/BackgroundRelease.h"
#include "session/BreakpointStore.h"
#include "session/ExecutionActions.h"
#include "session/ProgramFiles.h"
#include "session/SessionController.h"
#include "windows/CompareMenu.h"
#include "windows/FxTablePane.h"
#include "windows/ProgramStatusText.h"
#include "program/QuantOps.h"
#include "program/WeightsFile.h"

namespace torchir::ui {

namespace {

const QString kGeometryKey = QStringLiteral("mainWindow/geometry");
const QString kStateKey = QStringLiteral("mainWindow/state");
const QString kSplitterKey = QStringLiteral("mainWindow/splitter");
const QString kLastDirectoryKey = QStringLiteral("mainWindow/lastDirectory");
const QString kAppTitle = QStringLiteral("torchir studio");
// Starts the engine even if the first layout is slow to come (or never comes).
constexpr int kSessionStartFallbackMs = 3000;

bool isCaptureFile(const QString& path) { return path.endsWith(QStringLiteral(".capture"), Qt::CaseInsensitive); }

bool isProgramFile(const QString& path) {
  return path.endsWith(QStringLiteral(".pt2"), Qt::CaseInsensitive) ||
         path.endsWith(QStringLiteral(".json"), Qt::CaseInsensitive) || isCaptureFile(path);
}

/// The node that did work last before `position` (what a step just did): not the placeholders,
/// getitems and output a step passes on the way, which have records without a schema.
torchir::NodeId lastWorkBefore(const SessionController& session, torchir::NodeId position) {
  const ExecutionMarks& marks = session.marks();
  auto n = position == torchir::kNone ? static_cast<torchir::NodeId>(marks.executed.size()) : position;
  for (--n; n >= 0; --n) {
    const torchir::NodeRecord* record = marks.executed[static_cast<std::size_t>(n)] ? session.record(n) : nullptr;
    if (record && !record->schema.empty()) return n;
  }
  return torchir::kNone;
}

}  // namespace

MainWindow::MainWindow(QWidget* parent)
    : QMainWindow(parent), m_loader(new AsyncProgramLoader(this)), m_session(new SessionController(this)) {
  setWindowTitle(kAppTitle);
  setAcceptDrops(true);
  setDockOptions(dockOptions() | QMainWindow::AllowTabbedDocks);
  m_actions = new ExecutionActions(m_session, this);
  createCentralWidget();
  createDocks();
  createActions();
  createMenus();
  createStatusBar();
  connectSession();
  restoreWindowState();

  connect(m_loader, &AsyncProgramLoader::started, this, &MainWindow::onLoadStarted);
  connect(m_loader, &AsyncProgramLoader::loaded, this, &MainWindow::showProgram);
  connect(m_loader, &AsyncProgramLoader::failed, this, &MainWindow::showLoadError);
}

MainWindow::~MainWindow() = default;

void MainWindow::createCentralWidget() {
  auto* central = new QWidget(this);
  auto* layout = new QVBoxLayout(central);
  layout->setContentsMargins(6, 6, 6, 0);
  layout->setSpacing(4);

  // Inline rather than a message box: a bad file must not interrupt whoever is reading the graph.
  m_errorLabel = new QLabel(central);
  m_errorLabel->setObjectName(QStringLiteral("loadErrorLabel"));
  m_errorLabel->setTextFormat(Qt::RichText);
  m_errorLabel->setWordWrap(true);  // shown whole: a long message wraps at the window's width
  m_errorLabel->setStyleSheet(QStringLiteral(
      "QLabel { background: #fdecea; color: #8a1c14; border: 1px solid #f5c2bd; border-radius: 3px;"
      " padding: 4px 8px; }"));
  // Ignored across: a long message must wrap, not widen the window to fit itself; its height is
  // what the wrapped text needs at the window's width.
  m_errorLabel->setSizePolicy(QSizePolicy::Ignored, QSizePolicy::Preferred);
  m_errorLabel->hide();
  connect(m_errorLabel, &QLabel::linkActivated, this, [this](const QString& link) {
    if (link == QStringLiteral("weights")) chooseWeightsFile();
    if (link == QStringLiteral("cast") && m_program) {
      OpenRequest request = m_program->request;
      request.castWeights = true;
      open(request);
    }
    m_errorLabel->hide();
  });
  layout->addWidget(m_errorLabel);

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

  connect(m_graph, &GraphPanel::nodeSelected, this, [this](torchir::NodeId n) { selectNode(n, m_graph); });
  connect(m_graph, &GraphPanel::nodeContextMenuRequested, this, [this](torchir::NodeId, const QPoint& globalPos) {
    m_nodeMenu->popup(globalPos);  // the node is already selected: the actions apply to it
  });
  connect(m_table, &FxTablePane::nodeSelected, this, [this](torchir::NodeId n) { selectNode(n, m_table); });
  connect(m_findBar, &FindBar::nodeFound, this, [this](torchir::NodeId n) { selectNode(n, m_findBar); });
  connect(m_graph, &GraphPanel::layoutStarted, this, [this] {
    statusBar()->showMessage(tr("Laying out the graph…"));
  });
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
  m_arguments = new ArgumentsPanel(this);
  m_tensor = new TensorViewer(this);
  m_diagnosis = new DiagnosisPanel(this);
  m_problems = new ProblemsPanel(this);

  auto makeDock = [this](const QString& title, const QString& name, QWidget* widget, Qt::DockWidgetArea area) {
    auto* dock = new QDockWidget(title, this);
    dock->setObjectName(name);  // saveState() restores docks by object name
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

  connect(m_arguments, &ArgumentsPanel::tensorRequested, this, [this](torchir::ValueId value, const QString& title) {
    m_requestedCompared = torchir::kNone;
    m_requestedTensor = value;
    m_requestedTensorTitle = title;
    m_tensor->setUnavailable(tr("Reading %1…").arg(title));
    m_tensorDock->raise();
    m_session->requestTensor(value);
  });
  connect(m_diagnosis, &DiagnosisPanel::nodeActivated, this, [this](torchir::NodeId n) { selectNode(n, nullptr); });
  connect(m_problems, &ProblemsPanel::nodeActivated, this, [this](torchir::NodeId n) { selectNode(n, nullptr); });
  connect(m_diagnosis, &DiagnosisPanel::fixRequested, this, &MainWindow::applySuggestedFix);
}

void MainWindow::createActions() {
  // Right-click on a row selects it (the view moves the current row first), then offers what
  // applies to one node.
  QTableView* table = m_table->view();
  table->setContextMenuPolicy(Qt::ActionsContextMenu);
  table->addAction(m_actions->runToSelected());
  table->addAction(m_actions->toggleBreakpoint());
  m_nodeMenu = new QMenu(this);
  m_nodeMenu->addAction(m_actions->runToSelected());
  m_nodeMenu->addAction(m_actions->toggleBreakpoint());
  m_editCall = new QAction(tr("&Edit Call…"), this);
  m_editCall->setObjectName(QStringLiteral("actionEditCall"));
  m_editCall->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_E));
  m_editCall->setStatusTip(tr("Change the next node's arguments, try the call, and continue with the change"));
  connect(m_editCall, &QAction::triggered, this, &MainWindow::editCall);
  m_applyFix = new QAction(tr("Apply the Diagnosis's &Fix"), this);
  m_applyFix->setObjectName(QStringLiteral("actionApplyFix"));
  m_applyFix->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_Period));
  m_applyFix->setEnabled(false);
  connect(m_applyFix, &QAction::triggered, this, &MainWindow::applySuggestedFix);
  addAction(m_applyFix);  // its shortcut works wherever the focus is
  table->addAction(m_editCall);
  m_nodeMenu->addAction(m_editCall);
  m_captureActions = new CaptureActions(
      m_session, this, [this] { return selectedNode(); }, [this](torchir::NodeId n) { selectNode(n, nullptr); });
  connect(m_captureActions, &CaptureActions::message, this, [this](const QString& text) { statusBar()->showMessage(text, 6000); });
  table->addActions(m_captureActions->nodeActions());
  m_nodeMenu->addSeparator();
  m_nodeMenu->addActions(m_captureActions->nodeActions());
  auto* runToolBar = addToolBar(tr("Run"));
  runToolBar->setObjectName(QStringLiteral("runToolBar"));
  runToolBar->setToolButtonStyle(Qt::ToolButtonTextBesideIcon);
  runToolBar->addActions(m_actions->runActions());
}

void MainWindow::createMenus() {
  QMenu* fileMenu = menuBar()->addMenu(tr("&File"));
  QAction* openAction = fileMenu->addAction(tr("&Open…"), this, &MainWindow::chooseFileToOpen);
  openAction->setShortcut(QKeySequence::Open);
  openAction->setStatusTip(tr("Open an exported program (.pt2 or pytorch-ir JSON)"));
  m_recentMenu = fileMenu->addMenu(tr("Open &Recent"));
  // Rebuilt on show: another studio window may have changed the list in QSettings since.
  connect(m_recentMenu, &QMenu::aboutToShow, this, &MainWindow::rebuildRecentMenu);
  rebuildRecentMenu();
  fileMenu->addAction(tr("Supply &Weights…"), this, &MainWindow::chooseWeightsFile)
      ->setStatusTip(tr("Reopen the program with weights from a .safetensors or torch.save file"));
  fileMenu->addSeparator();
  m_captureActions->addFileActions(fileMenu);
  fileMenu->addSeparator();
  fileMenu->addAction(tr("Export Graph as &SVG…"), this, [this] { exportGraph(QStringLiteral("svg")); });
  fileMenu->addAction(tr("Export Graph as &PNG…"), this, [this] { exportGraph(QStringLiteral("png")); });
  fileMenu->addSeparator();
  QAction* quitAction = fileMenu->addAction(tr("&Quit"), this, &QWidget::close);
  quitAction->setShortcut(QKeySequence::Quit);
  quitAction->setMenuRole(QAction::QuitRole);

  QMenu* viewMenu = menuBar()->addMenu(tr("&View"));
  QAction* find = viewMenu->addAction(tr("&Find Node…"), m_findBar, &FindBar::activate);
  find->setShortcut(QKeySequence::Find);
  QAction* goTo = viewMenu->addAction(tr("&Go to Node…"), this, &MainWindow::goToNode);
  goTo->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_G));
  viewMenu->addSeparator();
  viewMenu->addAction(tr("&Fit to Window"), QKeySequence(Qt::CTRL | Qt::Key_0), m_graph, &GraphPanel::fitToWindow);
  viewMenu->addAction(tr("Zoom &In"), QKeySequence::ZoomIn, m_graph, &GraphPanel::zoomIn);
  viewMenu->addAction(tr("Zoom &Out"), QKeySequence::ZoomOut, m_graph, &GraphPanel::zoomOut);
  viewMenu->addAction(tr("&Expand All Modules"), m_graph, &GraphPanel::expandAll);
  viewMenu->addAction(tr("&Collapse All Modules"), m_graph, &GraphPanel::collapseAll);
  QAction* showQuant = viewMenu->addAction(tr("Show &Q/DQ Nodes"));
  showQuant->setObjectName(QStringLiteral("showQuantizationNodesAction"));
  showQuant->setCheckable(true);
  showQuant->setToolTip(tr("Draw quantize/dequantize nodes as boxes instead of on the edges they sit on"));
  connect(showQuant, &QAction::toggled, m_graph, &GraphPanel::setShowQuantizationNodes);
  viewMenu->addSeparator();
  viewMenu->addAction(m_argumentsDock->toggleViewAction());
  viewMenu->addAction(m_tensorDock->toggleViewAction());
  viewMenu->addAction(m_diagnosisDock->toggleViewAction());
  viewMenu->addAction(m_problemsDock->toggleViewAction());

  QMenu* runMenu = menuBar()->addMenu(tr("&Run"));
  runMenu->addActions(m_actions->runActions());
  runMenu->addSeparator();
  runMenu->addAction(m_editCall);
  runMenu->addAction(m_applyFix);
  runMenu->addSeparator();
  runMenu->addAction(m_actions->stopOnNan());
  runMenu->addAction(m_actions->stopOnDtype());
  runMenu->addAction(m_actions->stopOnShape());
  menuBar()->addMenu(m_captureActions->markMenu());
  auto* compare = new CompareMenu(m_session, this);
  menuBar()->addMenu(compare);
  connect(compare, &CompareMenu::worstNodesRequested, this, [this] { m_table->sortByWorst(); });
}

void MainWindow::createStatusBar() {
  m_runStateLabel = new QLabel(this);
  m_runStateLabel->setObjectName(QStringLiteral("runStateLabel"));
  m_progress = new QProgressBar(this);
  m_progress->setObjectName(QStringLiteral("progressBar"));
  m_progress->setMaximumWidth(180);
  m_progress->setTextVisible(false);
  m_progress->hide();
  m_programInfoLabel = new QLabel(this);
  m_programInfoLabel->setObjectName(QStringLiteral("programInfoLabel"));
  // Permanent: temporary messages (loading, errors) must not hide what is on screen.
  statusBar()->addPermanentWidget(m_progress);
  statusBar()->addPermanentWidget(m_runStateLabel);
  statusBar()->addPermanentWidget(m_programInfoLabel);
}

void MainWindow::connectSession() {
  connect(m_session, &SessionController::marksChanged, this, &MainWindow::onMarksChanged);
  connect(m_session, &SessionController::stateChanged, this, &MainWindow::onRunStateChanged);
  connect(m_session, &SessionController::stopped, this,
          [this](torchir::StopReason reason) { onStopped(static_cast<int>(reason)); });
  connect(m_session, &SessionController::progress, this, [this](int done, int total) {
    m_progress->setRange(0, total);
    m_progress->setValue(done);
  });
  connect(m_session, &SessionController::sessionFailed, this, [this](const QString& problem) {
    statusBar()->showMessage(tr("Cannot run: %1").arg(problem));
  });
  connect(m_session, &SessionController::comparisonChanged, this, &MainWindow::showComparison);
  connect(m_session, &SessionController::captureSaved, this, [this](const QString& path, const QString& problem) {
    statusBar()->showMessage(problem.isEmpty() ? tr("Capture saved to %1").arg(path)
                                               : tr("Capture not saved: %1").arg(problem),
                             6000);
  });
  connect(m_session, &SessionController::reproExported, this,
          [this](const QString& description, const QStringList& files, const QString& problem) {
            statusBar()->showMessage(problem.isEmpty() ? tr("Repro of %1: %2").arg(description, files.join(QStringLiteral(", ")))
                                                       : tr("No repro of %1: %2").arg(description, problem));
          });
  connect(m_session, &SessionController::problemsChanged, this, [this] {
    const auto& problems = m_session->problems();
    m_problems->setProblems(problems);
    m_problemsDock->setWindowTitle(m_problems->title());
    // what would stop a run is shown before the user runs into it
    if (torchir::stopsARun(problems)) {
      m_problemsDock->show();
      m_problemsDock->raise();
    }
  });
  connect(m_session, &SessionController::tensorReady, this,
          [this](torchir::ValueId value, const torchir::TensorData& tensor) {
            if (value != m_requestedTensor) return;
            // a quantized value's codes are shown with the real numbers they stand for
            m_tensor->setTensor(m_requestedTensorTitle, tensor,
                                m_program ? torchir::dequantizationOf(m_program->program, value) : std::nullopt);
          });
  connect(m_session, &SessionController::tensorUnavailable, this, [this](torchir::ValueId value, const QString& why) {
    if (value == m_requestedTensor) m_tensor->setUnavailable(why);
  });
  connect(m_session, &SessionController::comparedReady, this,
          [this](torchir::NodeId node, const torchir::TensorData& run, const torchir::TensorData& reference,
                 const torchir::TensorData& difference) {
            if (node != m_requestedCompared || !m_program) return;
            m_tensor->setCompared(QString::fromStdString(m_program->program.node(node).name), run, reference, difference);
          });
  connect(m_session, &SessionController::comparedUnavailable, this, [this](torchir::NodeId node, const QString& why) {
    if (node == m_requestedCompared) m_tensor->setUnavailable(why);
  });
}

void MainWindow::restoreWindowState() {
  QSettings settings;
  if (!restoreGeometry(settings.value(kGeometryKey).toByteArray())) {
    QSize size(1400, 860);
    if (const QScreen* screen = this->screen()) size = size.boundedTo(screen->availableSize() * 0.9);
    resize(size);
  }
  if (!restoreState(settings.value(kStateKey).toByteArray())) {
    // First start: the dock column reads best wide. After the first show, when sizes are real.
    QTimer::singleShot(0, this, [this] {
      resizeDocks({m_argumentsDock}, {width() * 2 / 7}, Qt::Horizontal);
      // half each: the FX table's five columns then show enough of each to be read
      m_splitter->setSizes({m_splitter->width() / 2, m_splitter->width() / 2});
      resizeDocks({m_argumentsDock, m_tensorDock}, {height() * 2 / 5, height() * 3 / 5}, Qt::Vertical);
    });
  }
  m_splitter->restoreState(settings.value(kSplitterKey).toByteArray());
}

void MainWindow::closeEvent(QCloseEvent* event) {
  QSettings settings;
  settings.setValue(kGeometryKey, saveGeometry());
  settings.setValue(kStateKey, saveState());
  settings.setValue(kSplitterKey, m_splitter->saveState());
  m_session->stop();
  QMainWindow::closeEvent(event);
}

void MainWindow::dragEnterEvent(QDragEnterEvent* event) {
  for (const QUrl& url : event->mimeData()->urls()) {
    if (url.isLocalFile() && isProgramFile(url.toLocalFile())) {
      event->acceptProposedAction();
      return;
    }
  }
}

void MainWindow::dropEvent(QDropEvent* event) {
  for (const QUrl& url : event->mimeData()->urls()) {
    if (url.isLocalFile() && isProgramFile(url.toLocalFile())) {
      openFile(url.toLocalFile());
      event->acceptProposedAction();
      return;
    }
  }
}

void MainWindow::openFile(const QString& path) {
  OpenRequest request;
  request.path = path;
  open(request);
}

void MainWindow::open(const OpenRequest& given) {
  OpenRequest request = given;
  if (request.capturePath.isEmpty() && isCaptureFile(request.path)) request.capturePath = std::exchange(request.path, {});
  // a capture's program is known once the loader has read the capture
  m_loader->load(request.capturePath.isEmpty() ? completeRequest(request) : request);
}

void MainWindow::showHint(const QString& text) { statusBar()->showMessage(text); }

QString MainWindow::currentPath() const { return m_program ? m_program->request.path : QString(); }

bool MainWindow::isLoading() const { return m_loader->isLoading(); }

void MainWindow::chooseFileToOpen() {
  QSettings settings;
  QString directory = settings.value(kLastDirectoryKey).toString();
  if (m_program) directory = QFileInfo(m_program->request.path).absolutePath();
  const QString path = QFileDialog::getOpenFileName(this, tr("Open Exported Program"), directory,
                                                    tr("Exported programs and captures (*.pt2 *.json *.capture);;All files (*)"));
  if (path.isEmpty()) return;
  settings.setValue(kLastDirectoryKey, QFileInfo(path).absolutePath());
  openFile(path);
}

void MainWindow::chooseWeightsFile() {
  if (!m_program) return;
  const QString path = QFileDialog::getOpenFileName(
      this, tr("Weights for %1").arg(QFileInfo(m_program->request.path).fileName()),
      QFileInfo(m_program->request.path).absolutePath(),
      tr("Weights (*.safetensors *.pt *.pth *.bin);;All files (*)"));
  if (path.isEmpty()) return;
  OpenRequest request = m_program->request;
  request.weightsPath = path;
  open(request);
}

void MainWindow::exportGraph(const QString& format) {
  if (!m_program) return;
  const QString suggested = QFileInfo(m_program->request.path).completeBaseName() + QLatin1Char('.') + format;
  const QString path = QFileDialog::getSaveFileName(this, tr("Export Graph"), suggested,
                                                    format == QStringLiteral("svg") ? tr("SVG (*.svg)") : tr("PNG (*.png)"));
  if (path.isEmpty()) return;
  QString error;
  const bool ok = format == QStringLiteral("svg") ? m_graph->exportSvg(path, &error) : m_graph->exportPng(path, &error);
  statusBar()->showMessage(ok ? tr("Saved %1").arg(path) : tr("Could not save %1: %2").arg(path, error), 6000);
}

void MainWindow::goToNode() {
  if (!m_program) return;
  if (const auto node = GoToNodeDialog::ask(this, m_program->program)) selectNode(*node, nullptr);
}

void MainWindow::rebuildRecentMenu() {
  m_recentMenu->clear();
  const QStringList paths = m_recentFiles.paths();
  for (int i = 0; i < paths.size(); ++i) {
    const QString& path = paths[i];
    const QFileInfo info(path);
    // The number is the mnemonic; the folder tells apart files of the same name.
    const QString label = QStringLiteral("&%1 %2  (%3)").arg(i + 1).arg(info.fileName(), info.absolutePath());
    QAction* action = m_recentMenu->addAction(label, this, [this, path] { openFile(path); });
    action->setStatusTip(path);
  }
  if (!paths.isEmpty()) m_recentMenu->addSeparator();
  QAction* clearAction = m_recentMenu->addAction(tr("&Clear Recent Files"), this, [this] {
    m_recentFiles.clear();
    rebuildRecentMenu();
  });
  clearAction->setEnabled(!paths.isEmpty());
}

void MainWindow::onLoadStarted(const QString& path) {
  statusBar()->showMessage(tr("Loading %1…").arg(QFileInfo(path).fileName()));
  m_progress->setRange(0, 0);  // busy: reading has no useful fraction to show
  m_progress->show();
}

void MainWindow::showProgram(const torchir::ui::LoadedProgramPtr& program) {
  LoadedProgramPtr previous = std::exchange(m_program, program);
  m_actions->setSelectedNode(torchir::kNone);  // its ids are the old program's
  m_progress->hide();
  m_table->setRows(program->fxCells);
  m_table->model()->setExported(std::shared_ptr<const torchir::Program>(program, &program->program));
  m_findBar->setProgram(program);
  m_firstViewPending = true;
  m_graph->setProgram(program);
  m_arguments->clear();
  m_diagnosis->clear();
  m_tensor->clear();
  m_savedBreakpoints = BreakpointStore().load(program->request.path, program->program);
  // The engine starts once the first view is on screen: loading libtorch and resolving every
  // node's kernel take both cores for a moment, and the graph is what the user waits for.
  m_session->clear();
  // Weak: a program replaced within the wait must not be kept, and freed, by this timer.
  QTimer::singleShot(kSessionStartFallbackMs, this, [this, shown = std::weak_ptr<const LoadedProgram>(program)] {
    if (m_program == shown.lock()) startSession();
  });

  const QFileInfo info(program->request.path);
  m_errorLabel->hide();
  statusBar()->clearMessage();
  m_programInfoLabel->setText(programStatusText(program->program));
  setWindowTitle(QStringLiteral("%1 — %2").arg(info.fileName(), kAppTitle));
  setWindowFilePath(info.absoluteFilePath());
  m_recentFiles.add(program->request.path);
  rebuildRecentMenu();
  showMissingData(program->program);
  // Every view has let go of the previous program by now: this is the last reference here.
  releaseInBackground(std::move(previous));
  Q_EMIT programShown(program->request.path);
}

void MainWindow::startSession() {
  if (!m_program || m_session->program() == m_program) return;  // none shown, or started already
  m_session->setProgram(m_program, m_savedBreakpoints);
}

void MainWindow::showMissingData(const torchir::Program& program) {
  const auto missing = program.missingData();
  if (missing.empty()) {
    showWeightsOfOtherDtype(program);
    return;
  }
  QStringList names;
  for (std::size_t i = 0; i < missing.size() && i < 4; ++i) names << QString::fromStdString(missing[i]);
  if (missing.size() > 4) names << tr("… %1 more").arg(missing.size() - 4);
  m_errorLabel->setText(tr("No data for %1 weight(s): %2 &nbsp;<a href=\"weights\">Supply weights…</a> &nbsp;"
                           "<a href=\"dismiss\">Dismiss</a>")
                            .arg(missing.size())
                            .arg(names.join(QStringLiteral(", ")).toHtmlEscaped()));
  m_errorLabel->show();
}

void MainWindow::showWeightsOfOtherDtype(const torchir::Program& program) {
  const auto other = torchir::weightsOfOtherDtype(program);
  if (other.empty()) return;
  const QString text = QString::fromStdString(torchir::describeWeightsOfOtherDtype(other));
  if (m_program && m_program->request.castWeights) {
    statusBar()->showMessage(tr("%1: cast to the export's dtypes").arg(text), 8000);
    return;
  }
  m_errorLabel->setText(tr("%1 &nbsp;<a href=\"cast\">Cast to the export's dtypes</a> &nbsp;<a href=\"dismiss\">Dismiss</a>")
                            .arg(text.toHtmlEscaped()));
  m_errorLabel->show();
}

void MainWindow::showLoadError(const QString& path, const QString& problem) {
  m_progress->hide();
  const QString fileName = QFileInfo(path).fileName();
  const QString message = tr("Could not open %1: %2").arg(fileName, problem);
  statusBar()->showMessage(message);
  m_errorLabel->setText(QStringLiteral("%1 &nbsp;<a href=\"dismiss\">Dismiss</a>").arg(message.toHtmlEscaped()));
  m_errorLabel->setToolTip(tr("%1: %2").arg(path, problem));
  m_errorLabel->show();
  Q_EMIT loadFailed(path, problem);
}

torchir::NodeId MainWindow::selectedNode() const { return m_actions->selectedNode(); }

void MainWindow::selectNode(torchir::NodeId node, QObject* origin) {
  if (!m_program || node < 0 || node >= static_cast<torchir::NodeId>(m_program->program.nodes.size())) return;
  m_actions->setSelectedNode(node);
  if (origin != m_graph) m_graph->selectNode(node);
  if (origin != m_table) m_table->selectNode(node);
  refreshArguments();
  if (const QString note = m_session->note(node); !note.isEmpty()) statusBar()->showMessage(tr("Note: %1").arg(note));
}

void MainWindow::refreshArguments() {
  const torchir::NodeId selected = selectedNode();
  if (!m_program || selected == torchir::kNone) return;
  const torchir::Diagnosis& d = m_session->diagnosis();
  const torchir::NodeRecord* record = m_session->record(selected);
  m_arguments->showNode(m_program->program, selected, record, d.node == selected && !d.ok() ? &d : nullptr);
  // The tensor viewer follows the selection with the node's first output, as a watch would; a
  // compared node's with the reference's and the difference.
  const torchir::Node& node = m_program->program.node(selected);
  const ComparisonPtr comparison = m_session->comparison();
  if (const auto* c = comparison ? comparison->of(selected) : nullptr; c && c->problem.empty() && m_tensorDock->isVisible()) {
    m_requestedTensor = torchir::kNone;
    m_requestedCompared = selected;
    m_tensor->setUnavailable(tr("Reading %1 and the reference's…").arg(QString::fromStdString(node.name)));
    m_session->requestCompared(selected);
  } else if (record && !node.outputs.empty() && m_tensorDock->isVisible()) {
    m_requestedCompared = torchir::kNone;
    const torchir::Value& out = m_program->program.value(node.outputs.front());
    if (out.kind == torchir::ValueKind::Tensor) {
      m_requestedTensor = out.id;
      m_requestedTensorTitle = QString::fromStdString(out.name);
      m_session->requestTensor(out.id);
    }
  }
}

void MainWindow::onMarksChanged() {
  const ExecutionMarks& marks = m_session->marks();
  m_graph->setMarks(marks);
  m_table->model()->updateExecution(marks, [this](torchir::NodeId n) { return m_session->sharedRecord(n); });
  // Only the user changes breakpoints of the session's program; a program being replaced or not
  // yet started has empty marks, which are nobody's change.
  if (m_session->program() == m_program && marks.breakpoints != m_savedBreakpoints) saveBreakpoints();
}

void MainWindow::onStopped(int reasonValue) {
  const auto reason = static_cast<torchir::StopReason>(reasonValue);
  const ExecutionMarks& marks = m_session->marks();
  m_progress->hide();
  switch (reason) {
    case torchir::StopReason::Failed:
    case torchir::StopReason::StopCondition:
      m_diagnosis->setDiagnosis(m_session->diagnosis());
      m_suggestedFix = m_program ? torchir::suggestedCasts(m_program->program, m_session->diagnosis())
                                 : std::vector<torchir::ArgumentPatch>{};
      if (!m_suggestedFix.empty()) {
        QStringList casts;
        for (const auto& p : m_suggestedFix)
          casts << QStringLiteral("%1 %2").arg(QString::fromStdString(p.argument), QString::fromStdString(torchir::describePatch(p)));
        m_diagnosis->setFix(tr("Fix: %1, and continue (Ctrl+.)").arg(casts.join(QStringLiteral(", "))));
      }
      m_applyFix->setEnabled(!m_suggestedFix.empty());
      m_diagnosisDock->show();
      m_diagnosisDock->raise();
      selectNode(m_session->diagnosis().node, nullptr);
      break;
    case torchir::StopReason::Breakpoint:
      selectNode(marks.current, nullptr);
      break;
    default: {
      // Show what the step just did: its arguments, as the call received them.
      const torchir::NodeId last = lastWorkBefore(*m_session, marks.current);
      if (last != torchir::kNone) selectNode(last, nullptr);
    }
  }
}

void MainWindow::showComparison() {
  const ComparisonPtr c = m_session->comparison();
  m_table->setComparison(c);
  m_graph->setComparison(c);
  if (!c || !m_program) return;
  const torchir::Program& p = m_program->program;
  const torchir::NodeComparison* first = nullptr;
  for (const auto& n : c->nodes)
    if (n.startsDivergence || n.makesNonfinite) {
      first = &n;
      break;
    }
  QString text = tr("Compared %1 nodes with %2: ").arg(c->nodes.size()).arg(c->reference);
  const QString name = first ? QString::fromStdString(p.node(first->a).name) : QString();
  text += !first                ? tr("no node diverges")
          : first->makesNonfinite ? tr("the first NaN/Inf is made at '%1'").arg(name)
                                  : tr("the first divergence is at '%1'").arg(name);
  if (!c->onlyInProgram.empty() || !c->onlyInReference.empty())
    text += tr("; %1 nodes only here, %2 only in the reference").arg(c->onlyInProgram.size()).arg(c->onlyInReference.size());
  statusBar()->showMessage(text);
  if (first) selectNode(first->a, nullptr);
  else refreshArguments();
}

void MainWindow::onRunStateChanged() {
  const RunState state = m_session->state();
  m_runStateLabel->setText(runStateName(state));
  if (state == RunState::Running) {
    m_progress->setRange(0, 0);
    m_progress->show();
  }
  if (state == RunState::Ready) {
    m_diagnosis->clear();
    refreshArguments();
    // Where the run starts: past the placeholders, which fill the top of a big program's table.
    if (selectedNode() == torchir::kNone) m_table->showNode(m_session->marks().current);
    statusBar()->showMessage(tr("Ready: %1").arg(m_session->inputsDescription()), 5000);
  }
}

void MainWindow::saveBreakpoints() {
  if (!m_program) return;
  m_savedBreakpoints = m_session->marks().breakpoints;
  BreakpointStore().save(m_program->request.path, m_program->program, m_savedBreakpoints);
}

void MainWindow::editCall() {
  if (!m_session->canEditCall()) {
    statusBar()->showMessage(tr("Edit Call: pause at a node, or fail at one, first"), 4000);
    return;
  }
  auto* dialog = new EditCallDialog(m_session, m_session->marks().current, this);
  dialog->setAttribute(Qt::WA_DeleteOnClose);
  connect(dialog, &QDialog::accepted, this, [this] {
    m_suggestedFix.clear();
    m_applyFix->setEnabled(false);
    m_diagnosis->clear();
  });
  connect(dialog, &EditCallDialog::trialShown, this, [this](torchir::NodeId node, const torchir::PatchTrial& trial) {
    // the changed call's output beside the call's own, as a comparison shows two runs
    if (trial.after.empty() || !trial.after.front() || !m_program) return;
    const QString name = QString::fromStdString(m_program->program.node(node).name);
    const torchir::TensorData& after = *trial.after.front();
    if (trial.before.empty() || !trial.before.front()) {
      m_tensor->setTensor(tr("%1 (changed call)").arg(name), after);
    } else {
      try {
        m_tensor->setCompared(name + tr(" (changed call)"), after, *trial.before.front(),
                              torchir::differenceOf(after, *trial.before.front()));
      } catch (const std::exception&) {  // shapes or dtypes that cannot be subtracted
        m_tensor->setTensor(tr("%1 (changed call)").arg(name), after);
      }
    }
    m_tensorDock->raise();
  });
  dialog->open();
}

void MainWindow::applySuggestedFix() {
  if (m_suggestedFix.empty() || !m_session->canEditCall()) return;
  const auto fix = std::exchange(m_suggestedFix, {});
  m_applyFix->setEnabled(false);
  m_diagnosis->clear();  // the failure it explained is about to be run past
  m_session->applyPatches(m_session->marks().current, fix, true);
}

}  // namespace torchir::ui
