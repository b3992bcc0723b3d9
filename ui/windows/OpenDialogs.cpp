#include "windows/OpenDialogs.h"

#include <QFileDialog>
#include <QFileInfo>
#include <QMimeData>
#include <QSettings>
#include <QUrl>

namespace torchir::ui {

namespace {
const QString kLastDirectoryKey = QStringLiteral("mainWindow/lastDirectory");
}  // namespace

bool isCaptureFile(const QString& path) { return path.endsWith(QStringLiteral(".capture"), Qt::CaseInsensitive); }

QString askProgramPath(QWidget* parent, const QString& shownPath) {
  QSettings settings;
  const QString directory =
      shownPath.isEmpty() ? settings.value(kLastDirectoryKey).toString() : QFileInfo(shownPath).absolutePath();
  const QString path = QFileDialog::getOpenFileName(
      parent, QObject::tr("Open Exported Program"), directory,
      QObject::tr("Exported programs and captures (*.pt2 *.json *.capture);;All files (*)"));
  if (!path.isEmpty()) settings.setValue(kLastDirectoryKey, QFileInfo(path).absolutePath());
  return path;
}

QString askWeightsPath(QWidget* parent, const QString& programPath) {
  const QFileInfo program(programPath);
  return QFileDialog::getOpenFileName(parent, QObject::tr("Weights for %1").arg(program.fileName()),
                                      program.absolutePath(),
                                      QObject::tr("Weights (*.safetensors *.pt *.pth *.bin);;All files (*)"));
}

QString droppedProgramPath(const QMimeData* mime) {
  for (const QUrl& url : mime->urls()) {
    const QString path = url.isLocalFile() ? url.toLocalFile() : QString();
    if (path.endsWith(QStringLiteral(".pt2"), Qt::CaseInsensitive) ||
        path.endsWith(QStringLiteral(".json"), Qt::CaseInsensitive) || isCaptureFile(path))
      return path;
  }
  return {};
}

}  // namespace torchir::ui
