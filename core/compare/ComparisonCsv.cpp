#include "ComparisonCsv.h"

#include "ComparisonJson.h"
#include "program/EscapedText.h"

namespace torchir {
namespace {

/// A text field (a node's name or op, a problem) as CSV wants it: quoted when it holds a comma, a
/// quote, a newline or a carriage return; a text a spreadsheet would run as a formula (a name that
/// starts with `=`, `+`, `-`, `@`) with a single quote before it (program/EscapedText.h).
std::string csvField(const std::string& s) { return csvTextField(s); }

}  // namespace

std::string comparisonCsv(const std::vector<NodeComparison>& nodes, const Program& a, const Program& b) {
  std::string out = "name,op,b_name,max_abs,max_rel,mean_abs,cosine,sqnr_db,snr_db,mse,l1,nonfinite_a,nonfinite_b,own_rel,own_sqnr_db,diverges,problem\n";
  for (const NodeComparison& c : nodes) {
    const TensorMetrics& m = c.metrics;
    const std::string problem = c.problem.empty() ? m.problem : c.problem;
    out += csvField(a.node(c.a).name) + ',' + csvField(a.node(c.a).target) + ',' + csvField(b.node(c.b).name) + ',' +
           realText(m.maxAbs) + ',' + realText(m.maxRel) + ',' + realText(m.meanAbs) + ',' + realText(m.cosine) +
           ',' + realText(m.sqnrDb) + ',' + realText(m.snrDb) + ',' + realText(m.mse) + ',' + realText(m.l1) + ',' +
           std::to_string(m.nonfiniteA) + ',' + std::to_string(m.nonfiniteB) + ',' +
           (c.ownRel ? realText(*c.ownRel) : std::string()) + ',' +
           (c.ownSqnrDb ? realText(*c.ownSqnrDb) : std::string()) + ',' + (c.diverges ? "true" : "false") + ',' +
           csvField(problem) + '\n';
  }
  return out;
}

}  // namespace torchir
