#include "windows/MainWindow.h"

#include <QAction>
#include <QCloseEvent>
#include <QFileDialog>
#include <QFileInfo>
#include <QFontDatabase>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QKeySequence>
#include <QLabel>
#include <QLineEdit>
#include <QMenu>
#include <QMenuBar>
#include <QScreen>
#include <QSettings>
#include <QSortFilterProxyModel>
#include <QStatusBar>
#include <QTableView>
#include <QVBoxLayout>
#include <algorithm>

#include "panels/FxTableModel.h"
#include "session/AsyncProgramLoader.h"
#include "windows/ProgramStatusText.h"

namespace torchir::ui {

namespace {

const QString kGeometryKey = QStringLiteral("mainWindow/geometry");
const QString kLastDirectoryKey = QStringLiteral("mainWindow/lastDirectory");
const QString kAppTitle = QStringLiteral("torchir studio");

// Args of wide ops (convolutions, slices) run to hundreds of characters; past this width a
// column would push the others off screen, and the tooltip shows the rest.
constexpr int kMaxColumnWidth = 420;
// Fitted columns otherwise butt into each other (a long name runs into its target).
constexpr int kColumnPadding = 16;

}  // namespace

MainWindow::MainWindow(QWidget* parent) : QMainWindow(parent), m_loader(new AsyncProgramLoader(this)) {
  setWindowTitle(kAppTitle);
  createMenus();
  createCentralWidget();
  createStatusBar();
  restoreWindowGeometry();

  connect(m_loader, &AsyncProgramLoader::started, this, &MainWindow::onLoadStarted);
  connect(m_loader, &AsyncProgramLoader::loaded, this, &MainWindow::showProgram);
  connect(m_loader, &AsyncProgramLoader::failed, this, &MainWindow::showLoadError);
}

MainWindow::~MainWindow() = default;

void MainWindow::createMenus() {
  QMenu* fileMenu = menuBar()->addMenu(tr("&File"));

  QAction* openAction = fileMenu->addAction(tr("&Open…"), this, &MainWindow::chooseFileToOpen);
  openAction->setShortcut(QKeySequence::Open);
  openAction->setStatusTip(tr("Open an exported program (.pt2 or pytorch-ir JSON)"));

  m_recentMenu = fileMenu->addMenu(tr("Open &Recent"));
  // Rebuilt on show: another studio window may have changed the list in QSettings since.
  connect(m_recentMenu, &QMenu::aboutToShow, this, &MainWindow::rebuildRecentMenu);
  rebuildRecentMenu();

  fileMenu->addSeparator();
  QAction* quitAction = fileMenu->addAction(tr("&Quit"), this, &QWidget::close);
  quitAction->setShortcut(QKeySequence::Quit);
  quitAction->setMenuRole(QAction::QuitRole);
}

void MainWindow::createCentralWidget() {
  auto* central = new QWidget(this);
  auto* layout = new QVBoxLayout(central);
  layout->setContentsMargins(6, 6, 6, 0);
  layout->setSpacing(4);

  // Inline rather than a message box: a bad file must not interrupt whoever is reading the table.
  m_errorLabel = new QLabel(central);
  m_errorLabel->setObjectName(QStringLiteral("loadErrorLabel"));
  m_errorLabel->setTextFormat(Qt::RichText);
  m_errorLabel->setWordWrap(false);
  m_errorLabel->setStyleSheet(QStringLiteral(
      "QLabel { background: #fdecea; color: #8a1c14; border: 1px solid #f5c2bd; border-radius: 3px;"
      " padding: 4px 8px; }"));
  // Ignored: a long message must clip, not widen the window to fit itself.
  m_errorLabel->setSizePolicy(QSizePolicy::Ignored, QSizePolicy::Fixed);
  m_errorLabel->hide();
  connect(m_errorLabel, &QLabel::linkActivated, m_errorLabel, &QWidget::hide);
  layout->addWidget(m_errorLabel);

  auto* filterRow = new QHBoxLayout;
  m_filterEdit = new QLineEdit(central);
  m_filterEdit->setObjectName(QStringLiteral("filterEdit"));
  m_filterEdit->setPlaceholderText(tr("Filter nodes (any column)"));
  m_filterEdit->setClearButtonEnabled(true);
  m_filterCountLabel = new QLabel(central);
  m_filterCountLabel->setObjectName(QStringLiteral("filterCountLabel"));
  filterRow->addWidget(m_filterEdit, 1);
  filterRow->addWidget(m_filterCountLabel);
  layout->addLayout(filterRow);

  m_fxModel = new FxTableModel(this);
  m_filterModel = new QSortFilterProxyModel(this);
  m_filterModel->setSourceModel(m_fxModel);
  m_filterModel->setFilterKeyColumn(-1);  // match any column
  m_filterModel->setFilterCaseSensitivity(Qt::CaseInsensitive);

  m_fxView = new QTableView(central);
  m_fxView->setObjectName(QStringLiteral("fxTable"));
  m_fxView->setModel(m_filterModel);
  m_fxView->setSelectionBehavior(QAbstractItemView::SelectRows);
  m_fxView->setEditTriggers(QAbstractItemView::NoEditTriggers);
  m_fxView->setAlternatingRowColors(true);
  m_fxView->setShowGrid(false);
  m_fxView->setWordWrap(false);
  m_fxView->setHorizontalScrollMode(QAbstractItemView::ScrollPerPixel);
  // Names, targets and args are code; a fixed-width font keeps them as print_tabular shows them.
  m_fxView->setFont(QFontDatabase::systemFont(QFontDatabase::FixedFont));
  m_fxView->horizontalHeader()->setFont(font());
  m_fxView->horizontalHeader()->setDefaultAlignment(Qt::AlignLeft | Qt::AlignVCenter);
  m_fxView->horizontalHeader()->setHighlightSections(false);
  m_fxView->horizontalHeader()->setStretchLastSection(true);
  m_fxView->verticalHeader()->setDefaultSectionSize(m_fxView->fontMetrics().height() + 6);
  m_fxView->verticalHeader()->setSectionResizeMode(QHeaderView::Fixed);
  m_fxView->verticalHeader()->setDefaultAlignment(Qt::AlignRight | Qt::AlignVCenter);
  layout->addWidget(m_fxView, 1);

  connect(m_filterEdit, &QLineEdit::textChanged, this, &MainWindow::applyFilter);
  connect(m_filterModel, &QAbstractItemModel::modelReset, this, &MainWindow::updateFilterCount);
  connect(m_filterModel, &QAbstractItemModel::rowsInserted, this, &MainWindow::updateFilterCount);
  connect(m_filterModel, &QAbstractItemModel::rowsRemoved, this, &MainWindow::updateFilterCount);
  updateFilterCount();

  setCentralWidget(central);
}

void MainWindow::createStatusBar() {
  m_programInfoLabel = new QLabel(this);
  m_programInfoLabel->setObjectName(QStringLiteral("programInfoLabel"));
  // Permanent: temporary messages (loading, errors) must not hide what is on screen.
  statusBar()->addPermanentWidget(m_programInfoLabel);
}

void MainWindow::restoreWindowGeometry() {
  if (restoreGeometry(QSettings().value(kGeometryKey).toByteArray())) return;
  QSize size(1280, 800);
  if (const QScreen* screen = this->screen()) size = size.boundedTo(screen->availableSize() * 0.9);
  resize(size);
}

void MainWindow::closeEvent(QCloseEvent* event) {
  QSettings().setValue(kGeometryKey, saveGeometry());
  QMainWindow::closeEvent(event);
}

void MainWindow::openFile(const QString& path) { m_loader->load(path); }

void MainWindow::showHint(const QString& text) { statusBar()->showMessage(text); }

QString MainWindow::currentPath() const { return m_program ? m_program->path : QString(); }

bool MainWindow::isLoading() const { return m_loader->isLoading(); }

void MainWindow::chooseFileToOpen() {
  QSettings settings;
  QString directory = settings.value(kLastDirectoryKey).toString();
  if (m_program) directory = QFileInfo(m_program->path).absolutePath();
  const QString path = QFileDialog::getOpenFileName(
      this, tr("Open Exported Program"), directory,
      tr("Exported programs (*.pt2 *.json);;All files (*)"));
  if (path.isEmpty()) return;
  settings.setValue(kLastDirectoryKey, QFileInfo(path).absolutePath());
  openFile(path);
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
}

void MainWindow::showProgram(const torchir::ui::LoadedProgramPtr& program) {
  m_program = program;
  m_fxModel->setRows(program->fxRows);
  sizeColumns();

  const QFileInfo info(program->path);
  m_errorLabel->hide();
  statusBar()->clearMessage();
  m_programInfoLabel->setText(programStatusText(program->program));
  setWindowTitle(QStringLiteral("%1 — %2").arg(info.fileName(), kAppTitle));
  setWindowFilePath(info.absoluteFilePath());
  m_recentFiles.add(program->path);
  rebuildRecentMenu();
  Q_EMIT programShown(program->path);
}

void MainWindow::showLoadError(const QString& path, const QString& problem) {
  const QString fileName = QFileInfo(path).fileName();
  const QString message = tr("Could not open %1: %2").arg(fileName, problem);
  statusBar()->showMessage(message);
  m_errorLabel->setText(QStringLiteral("%1 &nbsp;<a href=\"dismiss\">Dismiss</a>").arg(message.toHtmlEscaped()));
  m_errorLabel->setToolTip(tr("%1: %2").arg(path, problem));
  m_errorLabel->show();
  Q_EMIT loadFailed(path, problem);
}

void MainWindow::applyFilter(const QString& text) {
  m_filterModel->setFilterFixedString(text);
  updateFilterCount();
}

void MainWindow::updateFilterCount() {
  const int shown = m_filterModel->rowCount();
  const int total = m_fxModel->rowCount();
  if (shown == total) {
    m_filterCountLabel->setText(total == 1 ? tr("1 node") : tr("%1 nodes").arg(total));
  } else {
    m_filterCountLabel->setText(tr("%1 of %2 nodes").arg(shown).arg(total));
  }
}

void MainWindow::sizeColumns() {
  // Once per load rather than ResizeToContents: that re-measures on every scroll and filter.
  m_fxView->resizeColumnsToContents();
  QHeaderView* header = m_fxView->horizontalHeader();
  for (int column = 0; column < FxTableModel::ColumnCount - 1; ++column) {
    header->resizeSection(column, std::min(header->sectionSize(column) + kColumnPadding, kMaxColumnWidth));
  }
}

}  // namespace torchir::ui
