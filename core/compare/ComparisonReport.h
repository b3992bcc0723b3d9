#pragma once
// A comparison as one self-contained HTML page to attach to a bug or a pull request: what
// `torchir compare --report` writes. No scripts and nothing fetched: the charts are inline SVG.
#include <optional>
#include <string>
#include <vector>

#include "compare/NodeComparison.h"
#include "program/Program.h"

namespace torchir {

struct NodeMatching;
struct SensitivityResult;

struct ReportInput {
  std::string programPath;  // program A's file
  std::string reference;    // what A was compared against, in words ("float64", "other.pt2")
  const Program* a = nullptr;
  const Program* b = nullptr;
  const std::vector<NodeComparison>* nodes = nullptr;
  const NodeMatching* matching = nullptr;          // null for a program against its own shadow
  const SensitivityResult* sensitivity = nullptr;  // null unless layer sensitivity was measured
  std::optional<double> outputSqnrDb;              // once both runs ended
  const NodeComparison* firstDivergence = nullptr;
  const NodeComparison* firstNonfinite = nullptr;
};

/// The page: a summary, the ten layers of lowest SQNR, the sensitivity chart (when measured), A's
/// graph with each op coloured by its SQNR, and every compared node. Every text from the inputs
/// (names, targets, module paths, file names, problems) is escaped, so the page holds it as text.
std::string comparisonReportHtml(const ReportInput& in);

}  // namespace torchir
