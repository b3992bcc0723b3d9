#include "controllers/ReproExport.h"

#include <QAction>
#include <QFileDialog>
#include <QInputDialog>
#include <QMainWindow>
#include <QStatusBar>

#include "session/RunFiles.h"
#include "session/Selection.h"
#include "session/SessionController.h"
#include "session/StudioContext.h"

namespace torchir::ui {

ReproExport::ReproExport(const StudioContext& studio)
    : QObject(&studio.window), m_session(&studio.session), m_selection(&studio.selection), m_status(&studio.status), m_window(&studio.window) {
  m_action = new QAction(tr("Export &Repro…"), &studio.window);
  m_action->setObjectName(QStringLiteral("actionExportRepro"));
  m_action->setShortcut(QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_R));
  m_action->setStatusTip(
      tr("The selected node or one of its modules as a .pt2 that torch.export.load runs, with the inputs it got"));
  connect(m_action, &QAction::triggered, this, &ReproExport::exportRepro);
  studio.window.addAction(m_action);  // its shortcut works wherever the focus is
}

void ReproExport::exportRepro() {
  const torchir::NodeId node = m_selection->node();
  const auto program = m_session->program();
  if (node == torchir::kNone || !program) {
    m_status->showMessage(tr("Select the node to cut out first"), 6000);
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
  const QString chosen =
      labels.size() == 1 ? labels.front()
                         : QInputDialog::getItem(m_window, tr("Export Repro"), tr("Cut out:"), labels, 0, false, &ok);
  if (!ok) return;
  const torchir::ReproPart part = parts[static_cast<std::size_t>(labels.indexOf(chosen))];
  const QString suggested =
      QString::fromStdString(part.name).replace(QLatin1Char('.'), QLatin1Char('_')) + QStringLiteral(".pt2");
  const QString path =
      QFileDialog::getSaveFileName(m_window, tr("Export Repro"), suggested, tr("Exported programs (*.pt2)"));
  if (path.isEmpty()) return;
  m_status->showMessage(tr("Cutting out %1…").arg(chosen), 6000);
  torchir::ui::exportRepro(*m_session, part, path.endsWith(QStringLiteral(".pt2")) ? path : path + QStringLiteral(".pt2"),
                          this, [this](const QString& description, const QStringList& files, const QString& problem) {
                            m_status->showMessage(problem.isEmpty()
                                                      ? tr("Repro of %1: %2").arg(description, files.join(QStringLiteral(", ")))
                                                      : tr("No repro of %1: %2").arg(description, problem));
                          });
}

}  // namespace torchir::ui
