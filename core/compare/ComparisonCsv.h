#pragma once
// The per-node table of a comparison as CSV: what `torchir compare --csv` and the studio's
// Compare › Save Comparison write.
#include <string>
#include <vector>

#include "PairedRun.h"

namespace torchir {

/// A header line, then a line per compared node: name,op,b_name,max_abs,max_rel,mean_abs,cosine,
/// sqnr_db,snr_db,mse,l1,nonfinite_a,nonfinite_b,own_rel,own_sqnr_db,diverges,problem (numbers as realText writes them,
/// own_rel empty where it was not measured). `a` and `b` are the two runs' programs.
std::string comparisonCsv(const std::vector<NodeComparison>& nodes, const Program& a, const Program& b);

}  // namespace torchir
