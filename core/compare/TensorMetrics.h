#pragma once
// How far one tensor is from another, as the comparison of two runs reports it per node.
#include <cstdint>
#include <string>

#include "program/TensorData.h"

namespace torchir {

/// The distance of `a` (the run under test) from `b` (the reference), over the elements that are
/// finite on both sides; non-finite ones are counted apart.
struct TensorMetrics {
  double maxAbs = 0;    // max |a - b|
  double maxRel = 0;    // max |a - b| / max |b| (infinite when b is all zeros and a is not)
  double meanAbs = 0;   // mean |a - b|
  double maxRef = 0;    // max |b|
  double cosine = 1;    // a.b / (|a| |b|); 1 when both are zero
  double mse = 0;       // mean (a - b)^2
  double l1 = 0;        // sum |a - b| (ExecuTorch's L1)
  /// Signal to quantization noise, as torchao's numeric debugger reports it (torch.ao.ns's
  /// compute_sqnr, the run under test as the signal): 20 log10(|a| / |a - b|); +inf when equal.
  double sqnrDb = 0;
  /// Signal to noise, as ExecuTorch's Inspector reports it (the reference as the signal):
  /// 10 log10(mean b^2 / mean (a - b)^2); +inf when equal.
  double snrDb = 0;
  int64_t nonfiniteA = 0, nonfiniteB = 0;
  /// Elements where the two disagree about being finite (inf against a number, NaN against inf).
  int64_t nonfiniteApart = 0;
  int64_t compared = 0;  // elements finite on both sides
  /// Why the two cannot be compared ("shapes differ: [2, 3] and [3, 2]"); empty when they can.
  std::string problem;
  bool comparable() const { return problem.empty(); }
  /// What ranks a difference: max rel, infinite where the two cannot be compared or disagree
  /// about NaN/Inf (worse than any number).
  double distance() const;
};

/// A metric as the tables show it: three significant digits ("0.242", "1.2e-07", "inf").
std::string metricText(double x);

TensorMetrics compareTensors(const TensorData& a, const TensorData& b);

/// a - b elementwise, as float64 (what a heatmap of where two runs differ shows). Throws
/// std::invalid_argument when the shapes differ or a dtype has no numbers to subtract.
TensorData differenceOf(const TensorData& a, const TensorData& b);

/// How many elements of `t` are NaN or infinite (0 for integer and bool tensors).
int64_t countNonfinite(const TensorData& t);

}  // namespace torchir
