#include "ComparisonCsv.h"

#include "ComparisonJson.h"

namespace torchir {
namespace {

/// A field as CSV wants it: quoted, with quotes doubled, when it holds a comma, quote or newline.
std::string csvField(const std::string& s) {
  if (s.find_first_of(",\"\n") == std::string::npos) return s;
  std::string out = "\"";
  for (char c : s) out += c == '"' ? std::string("\"\"") : std::string(1, c);
  return out + "\"";
}

}  // namespace

std::string comparisonCsv(const std::vector<NodeComparison>& nodes, const Program& a, const Program& b) {
  std::string out = "name,op,b_name,max_abs,max_rel,mean_abs,cosine,sqnr_db,nonfinite_a,nonfinite_b,own_rel,diverges,problem\n";
  for (const NodeComparison& c : nodes) {
    const TensorMetrics& m = c.metrics;
    const std::string problem = c.problem.empty() ? m.problem : c.problem;
    out += csvField(a.node(c.a).name) + ',' + csvField(a.node(c.a).target) + ',' + csvField(b.node(c.b).name) + ',' +
           realText(m.maxAbs) + ',' + realText(m.maxRel) + ',' + realText(m.meanAbs) + ',' + realText(m.cosine) +
           ',' + realText(m.sqnrDb) + ',' + std::to_string(m.nonfiniteA) + ',' + std::to_string(m.nonfiniteB) + ',' +
           (c.ownRel ? realText(*c.ownRel) : std::string()) + ',' + (c.diverges ? "true" : "false") + ',' +
           csvField(problem) + '\n';
  }
  return out;
}

}  // namespace torchir
