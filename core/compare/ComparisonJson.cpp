#include "compare/ComparisonJson.h"

#include <cmath>
#include <cstdio>
#include <limits>

namespace torchir {

using Json = nlohmann::json;

Json realJson(double x) {
  if (std::isnan(x)) return "nan";
  if (std::isinf(x)) return x > 0 ? "inf" : "-inf";
  return x;
}

std::string realText(double x) {
  if (!std::isfinite(x)) return realJson(x).get<std::string>();  // printf would write "-nan" too
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.9g", x);
  return buf;
}

Json nodeComparisonJson(const NodeComparison& n) {
  const TensorMetrics& m = n.metrics;
  return {{"output", n.output}, {"max_abs", realJson(m.maxAbs)}, {"max_rel", realJson(m.maxRel)},
          {"mean_abs", realJson(m.meanAbs)}, {"cosine", realJson(m.cosine)}, {"sqnr_db", realJson(m.sqnrDb)},
          {"snr_db", realJson(m.snrDb)}, {"mse", realJson(m.mse)}, {"l1", realJson(m.l1)},
          {"nonfinite_a", m.nonfiniteA}, {"nonfinite_b", m.nonfiniteB}, {"nonfinite_apart", m.nonfiniteApart},
          {"compared", m.compared}, {"metrics_problem", m.problem}, {"tolerance", realJson(n.tolerance)},
          {"own_rel", n.ownRel ? realJson(*n.ownRel) : Json(nullptr)},
          {"own_sqnr_db", n.ownSqnrDb ? realJson(*n.ownSqnrDb) : Json(nullptr)}, {"own_problem", n.ownProblem},
          {"diverges", n.diverges}, {"starts_divergence", n.startsDivergence},
          {"makes_nonfinite", n.makesNonfinite}, {"problem", n.problem}};
}

NodeComparison nodeComparisonFromJson(const JsonFields& f, const Json& e, const std::string& w) {
  NodeComparison n;
  const int64_t output = f.integer(e, "output", w);
  if (output < 0 || output > std::numeric_limits<int>::max()) f.fail(w + ".output is out of range");
  n.output = static_cast<int>(output);
  TensorMetrics& m = n.metrics;
  m.maxAbs = f.number(e, "max_abs", w);
  m.maxRel = f.number(e, "max_rel", w);
  m.meanAbs = f.number(e, "mean_abs", w);
  m.cosine = f.number(e, "cosine", w);
  m.sqnrDb = f.number(e, "sqnr_db", w);
  // written since the quantization metrics came; older files have none
  if (e.contains("snr_db")) m.snrDb = f.number(e, "snr_db", w);
  if (e.contains("mse")) m.mse = f.number(e, "mse", w);
  if (e.contains("l1")) m.l1 = f.number(e, "l1", w);
  m.nonfiniteA = f.integer(e, "nonfinite_a", w);
  m.nonfiniteB = f.integer(e, "nonfinite_b", w);
  m.nonfiniteApart = f.integer(e, "nonfinite_apart", w);
  m.compared = f.integer(e, "compared", w);
  m.problem = f.text(e, "metrics_problem", w);
  n.tolerance = f.number(e, "tolerance", w);
  if (!f.at(e, "own_rel", w).is_null()) n.ownRel = f.number(e, "own_rel", w);
  if (e.contains("own_sqnr_db") && !e.at("own_sqnr_db").is_null()) n.ownSqnrDb = f.number(e, "own_sqnr_db", w);
  n.ownProblem = f.text(e, "own_problem", w);
  n.diverges = f.flag(e, "diverges", w);
  n.startsDivergence = f.flag(e, "starts_divergence", w);
  n.makesNonfinite = f.flag(e, "makes_nonfinite", w);
  n.problem = f.text(e, "problem", w);
  return n;
}

}  // namespace torchir
