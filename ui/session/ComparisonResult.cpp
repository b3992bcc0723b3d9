#include "session/ComparisonResult.h"

#include <algorithm>

namespace torchir::ui {

bool ComparisonResult::inNonfiniteSlice(torchir::NodeId node) const {
  return std::binary_search(nonfiniteSlice.begin(), nonfiniteSlice.end(), node);
}

QString comparisonCsv(const ComparisonResult& c, const torchir::Program& program) {
  QString out = QStringLiteral("name,op,max_abs,max_rel,mean_abs,cosine,sqnr_db,nonfinite_a,nonfinite_b,own_rel,diverges\n");
  for (const auto& n : c.nodes) {
    const auto& m = n.metrics;
    out += QStringLiteral("%1,%2,%3,%4,%5,%6,%7,%8,%9,%10,%11\n")
               .arg(QString::fromStdString(program.node(n.a).name), QString::fromStdString(program.node(n.a).target))
               .arg(m.maxAbs, 0, 'g', 6)
               .arg(m.maxRel, 0, 'g', 6)
               .arg(m.meanAbs, 0, 'g', 6)
               .arg(m.cosine, 0, 'g', 8)
               .arg(m.sqnrDb, 0, 'g', 6)
               .arg(m.nonfiniteA)
               .arg(m.nonfiniteB)
               .arg(n.ownRel ? QString::number(*n.ownRel, 'g', 6) : QString())
               .arg(n.diverges ? QStringLiteral("true") : QStringLiteral("false"));
  }
  return out;
}

}  // namespace torchir::ui
