#include "windows/ProgramStatusText.h"

#include <QObject>
#include <QStringList>

#include "compare/TensorMetrics.h"

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

QString comparisonStatusText(const ComparisonResult& c, const torchir::Program& program) {
  const torchir::NodeComparison* first = c.firstDivergingNode();
  const QString name = first ? QString::fromStdString(program.node(first->a).name) : QString();
  QString text = QObject::tr("Compared %1 nodes with %2: ").arg(c.nodes.size()).arg(QString::fromStdString(c.reference));
  text += !first                  ? QObject::tr("no node diverges")
          : first->makesNonfinite ? QObject::tr("the first NaN/Inf is made at '%1'").arg(name)
                                  : QObject::tr("the first divergence is at '%1'").arg(name);
  if (!c.onlyInProgram.empty() || !c.onlyInReference.empty())
    text += QObject::tr("; %1 nodes only here, %2 only in the reference")
                .arg(c.onlyInProgram.size())
                .arg(c.onlyInReference.size());
  if (c.quantizationNodes > 0) text += QObject::tr("; %1 quantize/dequantize nodes").arg(c.quantizationNodes);
  if (c.outputSqnrDb)
    text += QObject::tr("; output SQNR %1 dB").arg(QString::fromStdString(torchir::metricText(*c.outputSqnrDb)));
  return text;
}

}  // namespace torchir::ui
