#include "windows/RecentFilesMenu.h"

#include <QFileInfo>

namespace torchir::ui {

RecentFilesMenu::RecentFilesMenu(QWidget* parent) : QMenu(tr("Open &Recent"), parent) {
  // Rebuilt on show: another studio window may have changed the list in QSettings since.
  connect(this, &QMenu::aboutToShow, this, [this] {
    m_writer.waitForDone();  // an add a moment ago is in the list shown
    rebuild();
  });
  m_writer.setMaxThreadCount(1);
  rebuild();
}

void RecentFilesMenu::add(const QString& path) {
  // QSettings writes its file as it is destroyed: a file written by the window's thread as a
  // program opens.
  m_writer.start([path] { RecentFiles().add(path); });
}

void RecentFilesMenu::rebuild() {
  clear();
  const QStringList paths = m_files.paths();
  for (int i = 0; i < paths.size(); ++i) {
    const QString& path = paths[i];
    const QFileInfo info(path);
    // The number is the mnemonic; the folder tells apart files of the same name.
    const QString label = QStringLiteral("&%1 %2  (%3)").arg(i + 1).arg(info.fileName(), info.absolutePath());
    QAction* action = addAction(label, this, [this, path] { Q_EMIT fileChosen(path); });
    action->setStatusTip(path);
  }
  if (!paths.isEmpty()) addSeparator();
  QAction* clearAction = addAction(tr("&Clear Recent Files"), this, [this] {
    m_writer.waitForDone();
    m_files.clear();
    rebuild();
  });
  clearAction->setEnabled(!paths.isEmpty());
}

}  // namespace torchir::ui
