#include "controllers/CaptureService.h"

#include <QAction>
#include <QFileDialog>
#include <QFileInfo>
#include <QInputDialog>
#include <QMainWindow>
#include <QMenu>
#include <QStatusBar>

#include "session/RunFiles.h"
#include "session/Selection.h"
#include "session/SessionController.h"
#include "session/StudioContext.h"

namespace torchir::ui {

namespace {
constexpr int kMessageMs = 6000;
}  // namespace

CaptureService::CaptureService(const StudioContext& studio)
    : QObject(&studio.window), m_session(&studio.session), m_selection(&studio.selection), m_status(&studio.status), m_window(&studio.window) {
  auto make = [&](const QString& text, const char* name, const QKeySequence& key, const QString& tip, auto slot) {
    auto* a = new QAction(text, &studio.window);
    a->setObjectName(QString::fromLatin1(name));
    if (!key.isEmpty()) a->setShortcut(key);
    a->setStatusTip(tip);
    connect(a, &QAction::triggered, this, slot);
    studio.window.addAction(a);  // its shortcut works wherever the focus is
    return a;
  };
  m_saveCapture = make(
      tr("Save &Capture…"), "actionSaveCapture", QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_S),
      tr("The run as it stands, with its inputs, marks, notes and changes, in one file that opens without running"),
      [this] { saveCapture(false); });
  m_saveCaptureEmbedded =
      make(tr("Save Capture with the &Program…"), "actionSaveCaptureEmbedded", {},
           tr("A capture that holds the program file too, to send to someone"), [this] { saveCapture(true); });
  m_bookmark = make(tr("Toggle &Bookmark"), "actionToggleBookmark", QKeySequence(Qt::CTRL | Qt::Key_B),
                    tr("Bookmark the selected node in the first free slot of 1 to 9 (Ctrl+1..9 go there)"),
                    &CaptureService::toggleBookmark);
  m_note = make(tr("&Note on Node…"), "actionNote", QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_N),
                tr("A note on the selected node, kept in captures"), &CaptureService::editNote);
  m_pin = make(tr("&Pin Outputs"), "actionPinOutputs", QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_P),
               tr("Keep the selected node's output tensors in captures"), &CaptureService::togglePin);
  m_markMenu = new QMenu(tr("&Mark"), &studio.window);
  m_markMenu->addAction(m_bookmark);
  QMenu* goTo = m_markMenu->addMenu(tr("&Go to Bookmark"));
  for (int slot = 1; slot <= 9; ++slot)
    goTo->addAction(make(tr("Bookmark &%1").arg(slot), "actionGoToBookmark",
                         QKeySequence(Qt::CTRL | (Qt::Key_0 + slot)), tr("Select the node in bookmark %1").arg(slot),
                         [this, slot] { goToBookmark(slot); }));
  m_markMenu->addSeparator();
  m_markMenu->addAction(m_note);
  m_markMenu->addAction(m_pin);

  connect(&studio.selection, &Selection::changed, this, &CaptureService::showNoteOf);
}

void CaptureService::addFileActions(QMenu* file) {
  file->addAction(m_saveCapture);
  file->addAction(m_saveCaptureEmbedded);
}

void CaptureService::saveCapture(bool embedProgram) {
  const auto program = m_session->program();
  if (!program) return;
  const QString suggested = QFileInfo(program->request.path).completeBaseName() + QStringLiteral(".capture");
  const QString path =
      QFileDialog::getSaveFileName(m_window, tr("Save Capture"), suggested, tr("Captures (*.capture)"));
  if (path.isEmpty()) return;
  torchir::ui::saveCapture(*m_session, path, embedProgram, this, [this, path](const QString& problem) {
    m_status->showMessage(
        problem.isEmpty() ? tr("Capture saved to %1").arg(path) : tr("Capture not saved: %1").arg(problem), kMessageMs);
  });
}

void CaptureService::toggleBookmark() {
  const torchir::NodeId node = m_selection->node();
  if (node == torchir::kNone) return;
  if (!m_session->annotations().toggleBookmark(node))
    m_status->showMessage(tr("All nine bookmarks are taken: remove one first (Ctrl+B on its node)"), kMessageMs);
  else if (const int slot = m_session->marks().bookmark(node))
    m_status->showMessage(tr("Bookmark %1 (Ctrl+%1)").arg(slot), kMessageMs);
}

void CaptureService::goToBookmark(int slot) {
  const torchir::NodeId node = m_session->annotations().bookmarkedNode(slot);
  if (node == torchir::kNone)
    m_status->showMessage(tr("No node in bookmark %1 (Ctrl+B sets one)").arg(slot), kMessageMs);
  else
    m_selection->select(node);
}

void CaptureService::editNote() {
  const torchir::NodeId node = m_selection->node();
  const auto program = m_session->program();
  if (node == torchir::kNone || !program) return;
  bool ok = false;
  const QString text = QInputDialog::getMultiLineText(
      m_window, tr("Note"),
      tr("Note on %1 (empty removes it):").arg(QString::fromStdString(program->program.node(node).name)),
      m_session->annotations().note(node), &ok);
  if (ok) m_session->annotations().setNote(node, text);
}

void CaptureService::togglePin() {
  const torchir::NodeId node = m_selection->node();
  const auto program = m_session->program();
  if (node == torchir::kNone || !program) return;
  int pinned = 0;
  for (torchir::ValueId v : program->program.node(node).outputs) {
    if (program->program.value(v).kind != torchir::ValueKind::Tensor) continue;
    m_session->annotations().togglePin(v);
    pinned += m_session->annotations().pinned().count(v) ? 1 : 0;
  }
  m_status->showMessage(pinned ? tr("Its outputs go into captures") : tr("Its outputs are no longer pinned"),
                        kMessageMs);
}

void CaptureService::showNoteOf(torchir::NodeId node) {
  if (node == torchir::kNone) return;
  if (const QString note = m_session->annotations().note(node); !note.isEmpty()) m_status->showMessage(tr("Note: %1").arg(note));
}

}  // namespace torchir::ui
