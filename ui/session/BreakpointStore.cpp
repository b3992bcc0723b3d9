#include "session/BreakpointStore.h"

#include <QFileInfo>
#include <QSettings>
#include <QStringList>
#include <QUrl>

namespace torchir::ui {

namespace {

// A path's slashes would nest QSettings groups: the key is the percent-encoded absolute path.
QString keyFor(const QString& path) {
  const QString absolute = QFileInfo(path).absoluteFilePath();
  return QStringLiteral("breakpoints/") + QString::fromLatin1(QUrl::toPercentEncoding(absolute));
}

}  // namespace

std::set<torchir::NodeId> BreakpointStore::load(const QString& path, const torchir::Program& program) const {
  std::set<torchir::NodeId> nodes;
  const QStringList names = QSettings().value(keyFor(path)).toStringList();
  for (const QString& name : names)
    if (const auto id = program.findNode(name.toStdString())) nodes.insert(*id);
  return nodes;
}

void BreakpointStore::save(const QString& path, const torchir::Program& program,
                           const std::set<torchir::NodeId>& nodes) const {
  QStringList names;
  for (torchir::NodeId n : nodes)
    if (n >= 0 && static_cast<std::size_t>(n) < program.nodes.size())
      names << QString::fromStdString(program.node(n).name);
  QSettings settings;
  if (names.isEmpty()) settings.remove(keyFor(path));
  else settings.setValue(keyFor(path), names);
}

}  // namespace torchir::ui
