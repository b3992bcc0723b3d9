#include "OutputSqnr.h"

#include <algorithm>
#include <limits>

#include "compare/TensorMetrics.h"

namespace torchir {

std::vector<ValueId> userOutputs(const Program& p) {
  std::vector<ValueId> out;
  for (const auto& s : p.outputs)
    if (s.kind == OutputKind::UserOutput && s.value != kNone) out.push_back(s.value);
  return out;
}

double outputSqnrDb(const Session& a, const Session& b, const std::function<std::optional<TensorData>(ValueId)>& valueOfA) {
  const auto outA = userOutputs(a.program()), outB = userOutputs(b.program());
  double worst = std::numeric_limits<double>::infinity();
  for (std::size_t i = 0; i < outA.size() && i < outB.size(); ++i) {
    const auto x = valueOfA(outA[i]);
    const auto y = b.tensorView(outB[i]);
    if (!x || !y || !isFloating(y->dtype)) continue;
    const TensorMetrics m = compareTensors(*x, *y);
    if (m.comparable()) worst = std::min(worst, m.sqnrDb);
  }
  return worst;
}

}  // namespace torchir
