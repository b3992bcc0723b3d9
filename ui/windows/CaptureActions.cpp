#include "windows/CaptureActions.h"

#include <QAction>
#include <QFileDialog>
#include <QFileInfo>
#include <QInputDialog>
#include <QMenu>

#include "session/SessionController.h"

namespace torchir::ui {

CaptureActions::CaptureActions(SessionController* session, QWidget* window, std::function<torchir::NodeId()> selected,
                               std::function<void(torchir::NodeId)> select)
    : QObject(window), m_session(session), m_window(window), m_selected(std::move(selected)), m_select(std::move(select)) {
  auto make = [&](const QString& text, const char* name, const QKeySequence& key, const QString& tip, auto slot) {
    auto* a = new QAction(text, window);
    a->setObjectName(QString::fromLatin1(name));
    if (!key.isEmpty()) a->setShortcut(key);
    a->setStatusTip(tip);
    connect(a, &QAction::triggered, this, slot);
    window->addAction(a);  // its shortcut works wherever the focus is
    return a;
  };
  m_saveCapture = make(tr("Save &Capture…"), "actionSaveCapture", QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_S),
                       tr("The run as it stands, with its inputs, marks, notes and changes, in one file that opens without running"),
                       [this] { saveCapture(false); });
  m_saveCaptureEmbedded = make(tr("Save Capture with the &Program…"), "actionSaveCaptureEmbedded", {},
                               tr("A capture that holds the program file too, to send to someone"),
                               [this] { saveCapture(true); });
  m_exportRepro = make(tr("Export &Repro…"), "actionExportRepro", QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_R),
                       tr("The selected node or one of its modules as a .pt2 that torch.export.load runs, with the inputs it got"),
                       &CaptureActions::exportRepro);
  m_bookmark = make(tr("Toggle &Bookmark"), "actionToggleBookmark", QKeySequence(Qt::CTRL | Qt::Key_B),
                    tr("Bookmark the selected node in the first free slot of 1 to 9 (Ctrl+1..9 go there)"),
                    &CaptureActions::toggleBookmark);
  m_note = make(tr("&Note on Node…"), "actionNote", QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_N),
                tr("A note on the selected node, kept in captures"), &CaptureActions::editNote);
  m_pin = make(tr("&Pin Outputs"), "actionPinOutputs", QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_P),
               tr("Keep the selected node's output tensors in captures"), &CaptureActions::togglePin);
  m_markMenu = new QMenu(tr("&Mark"), window);
  m_markMenu->addAction(m_bookmark);
  QMenu* goTo = m_markMenu->addMenu(tr("&Go to Bookmark"));
  for (int slot = 1; slot <= 9; ++slot)
    goTo->addAction(make(tr("Bookmark &%1").arg(slot), "actionGoToBookmark", QKeySequence(Qt::CTRL | (Qt::Key_0 + slot)),
                         tr("Select the node in bookmark %1").arg(slot), [this, slot] { goToBookmark(slot); }));
  m_markMenu->addSeparator();
  m_markMenu->addAction(m_note);
  m_markMenu->addAction(m_pin);
}

void CaptureActions::addFileActions(QMenu* file) {
  file->addAction(m_saveCapture);
  file->addAction(m_saveCaptureEmbedded);
  file->addAction(m_exportRepro);
}

QList<QAction*> CaptureActions::nodeActions() const { return {m_bookmark, m_note, m_pin, m_exportRepro}; }

void CaptureActions::saveCapture(bool embedProgram) {
  const auto program = m_session->program();
  if (!program) return;
  const QString suggested = QFileInfo(program->request.path).completeBaseName() + QStringLiteral(".capture");
  const QString path = QFileDialog::getSaveFileName(m_window, tr("Save Capture"), suggested, tr("Captures (*.capture)"));
  if (!path.isEmpty()) m_session->saveCapture(path, embedProgram);
}

void CaptureActions::toggleBookmark() {
  const torchir::NodeId node = m_selected();
  if (node == torchir::kNone) return;
  if (!m_session->toggleBookmark(node)) Q_EMIT message(tr("All nine bookmarks are taken: remove one first (Ctrl+B on its node)"));
  else if (const int slot = m_session->marks().bookmark(node))
    Q_EMIT message(tr("Bookmark %1 (Ctrl+%1)").arg(slot));
}

void CaptureActions::goToBookmark(int slot) {
  const torchir::NodeId node = m_session->bookmarkedNode(slot);
  if (node == torchir::kNone) Q_EMIT message(tr("No node in bookmark %1 (Ctrl+B sets one)").arg(slot));
  else m_select(node);
}

void CaptureActions::editNote() {
  const torchir::NodeId node = m_selected();
  const auto program = m_session->program();
  if (node == torchir::kNone || !program) return;
  bool ok = false;
  const QString text = QInputDialog::getMultiLineText(
      m_window, tr("Note"), tr("Note on %1 (empty removes it):").arg(QString::fromStdString(program->program.node(node).name)),
      m_session->note(node), &ok);
  if (ok) m_session->setNote(node, text);
}

void CaptureActions::togglePin() {
  const torchir::NodeId node = m_selected();
  const auto program = m_session->program();
  if (node == torchir::kNone || !program) return;
  int pinned = 0;
  for (torchir::ValueId v : program->program.node(node).outputs) {
    if (program->program.value(v).kind != torchir::ValueKind::Tensor) continue;
    m_session->togglePin(v);
    pinned += m_session->pinned().count(v) ? 1 : 0;
  }
  Q_EMIT message(pinned ? tr("Its outputs go into captures") : tr("Its outputs are no longer pinned"));
}

void CaptureActions::exportRepro() {
  const torchir::NodeId node = m_selected();
  const auto program = m_session->program();
  if (node == torchir::kNone || !program) {
    Q_EMIT message(tr("Select the node to cut out first"));
    return;
  }
  // the node, or one of the modules around it, innermost first
  const torchir::Node& n = program->program.node(node);
  std::vector<torchir::ReproPart> parts{{torchir::ReproPart::Node, n.name}};
  const auto& frames = n.moduleFrames();
  for (auto f = frames.rbegin(); f != frames.rend(); ++f) parts.push_back({torchir::ReproPart::Module, f->path});
  QStringList labels;
  for (const auto& p : parts) labels << QString::fromStdString(p.describe());
  bool ok = true;
  const QString chosen = labels.size() == 1 ? labels.front()
                                            : QInputDialog::getItem(m_window, tr("Export Repro"), tr("Cut out:"), labels, 0, false, &ok);
  if (!ok) return;
  const torchir::ReproPart part = parts[static_cast<std::size_t>(labels.indexOf(chosen))];
  const QString suggested = QString::fromStdString(part.name).replace(QLatin1Char('.'), QLatin1Char('_')) + QStringLiteral(".pt2");
  const QString path = QFileDialog::getSaveFileName(m_window, tr("Export Repro"), suggested, tr("Exported programs (*.pt2)"));
  if (path.isEmpty()) return;
  Q_EMIT message(tr("Cutting out %1…").arg(chosen));
  m_session->exportRepro(part, path.endsWith(QStringLiteral(".pt2")) ? path : path + QStringLiteral(".pt2"));
}

}  // namespace torchir::ui
