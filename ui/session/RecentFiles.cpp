#include "session/RecentFiles.h"

#include <QFileInfo>
#include <QSettings>

namespace torchir::ui {

namespace {
const QString kKey = QStringLiteral("recentFiles");
}

QStringList RecentFiles::paths() const { return QSettings().value(kKey).toStringList(); }

void RecentFiles::add(const QString& path) {
  // Absolute, so the same file opened from different working directories is one entry.
  const QString absolute = QFileInfo(path).absoluteFilePath();
  QStringList list = paths();
  list.removeAll(absolute);
  list.prepend(absolute);
  while (list.size() > kMaxEntries) list.removeLast();
  QSettings().setValue(kKey, list);
}

void RecentFiles::clear() { QSettings().remove(kKey); }

}  // namespace torchir::ui
