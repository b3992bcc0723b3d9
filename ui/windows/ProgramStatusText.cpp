#include "windows/ProgramStatusText.h"

#include <QStringList>

namespace torchir::ui {

QString programStatusText(const torchir::Program& program) {
  const torchir::SourceInfo& source = program.source;
  QStringList parts;
  parts << QString::fromStdString(source.format.empty() ? std::string("unknown format") : source.format);
  // Files written by other tools may not say which torch exported them.
  parts << (source.torchVersion.empty() ? QStringLiteral("torch version unknown")
                                        : QStringLiteral("torch %1").arg(QString::fromStdString(source.torchVersion)));
  const auto nodes = static_cast<qsizetype>(program.nodes.size());
  parts << (nodes == 1 ? QStringLiteral("1 node") : QStringLiteral("%1 nodes").arg(nodes));
  return parts.join(QStringLiteral(" · "));
}

}  // namespace torchir::ui
