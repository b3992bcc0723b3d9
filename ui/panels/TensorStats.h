#pragma once
// Summary statistics of a tensor, computed in one pass without Qt: the tensor viewer runs this on
// a worker thread, so it only reads the (immutable, shared) storage.
#include <cstdint>
#include <vector>

#include "program/TensorData.h"

namespace torchir::ui {

struct TensorStats {
  int64_t numel = 0;
  int64_t nanCount = 0, infCount = 0, zeroCount = 0;
  int64_t finiteCount = 0;
  // Over finite elements only: one NaN would otherwise hide everything else about the tensor.
  // min/max/mean/std are NaN when no element is finite.
  double min = 0, max = 0, mean = 0;
  double std = 0;  // with Bessel's correction, as torch.std() computes it by default
};

/// Throws std::runtime_error for dtypes without elements to read (complex, float8) or a tensor
/// without data.
TensorStats computeTensorStats(const torchir::TensorData& tensor);

/// How many elements equal `value` (a quantized tensor's codes at the ends of its range).
int64_t tensorCount(const torchir::TensorData& tensor, double value);

/// Counts of finite elements in `bins` equal bins over [lo, hi] (the last bin includes hi).
std::vector<int64_t> tensorHistogram(const torchir::TensorData& tensor, int bins, double lo, double hi);

}  // namespace torchir::ui
