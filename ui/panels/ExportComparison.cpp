#include "panels/ExportComparison.h"

#include <QStringList>
#include <algorithm>

#include "panels/ShapeText.h"

namespace torchir::ui {

namespace {

bool differs(const torchir::Value& v, const torchir::ValueSummary& ran) {
  if (v.dtype != torchir::DType::Unknown && ran.dtype != torchir::DType::Unknown && v.dtype != ran.dtype) return true;
  if (v.shape.size() != ran.sizes.size()) return true;
  for (std::size_t d = 0; d < v.shape.size(); ++d)
    if (!v.shape[d].isSymbolic() && v.shape[d].hint != ran.sizes[d]) return true;
  return false;
}

}  // namespace

QString exportDifference(const torchir::Program& program, torchir::NodeId node, const torchir::NodeRecord& record) {
  const torchir::Node& n = program.node(node);
  QStringList phrases;
  const std::size_t count = std::min(n.outputs.size(), record.outputs.size());
  for (std::size_t i = 0; i < count; ++i) {
    const torchir::Value& v = program.value(n.outputs[i]);
    const torchir::ValueSummary& ran = record.outputs[i];
    if (v.kind != torchir::ValueKind::Tensor || ran.kind != "Tensor" || !differs(v, ran)) continue;
    phrases << QStringLiteral("output %1: export recorded %2, this run gave %3")
                   .arg(i)
                   .arg(QString::fromLatin1(torchir::dtypeName(v.dtype).data()) + exportedShapeText(v), valueSummaryText(ran));
  }
  return phrases.join(QStringLiteral("; "));
}

}  // namespace torchir::ui
