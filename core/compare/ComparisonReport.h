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

/// One bar of a ranked chart: a signed length (in the chart's unit; infinite: to the chart's
/// edge), its label, the text beside it and the whole story on hover.
struct ReportBar {
  std::string label, value, tooltip;
  double length = 0;
  bool drawn = true;  // false: measured nothing, only its text
};

/// A section of bars, longest gain first, as a feature of the comparison ranks what it measured
/// (quant/SensitivityReport.h: layer sensitivity).
struct ReportChart {
  std::string title, caption;  // the caption's text, above the bars
  std::string whenEmpty;       // the text in place of no bars
  std::vector<ReportBar> bars;
};

struct ReportInput {
  std::string programPath;  // program A's file
  std::string reference;    // what A was compared against, in words ("float64", "other.pt2")
  const Program* a = nullptr;
  const Program* b = nullptr;
  const std::vector<NodeComparison>* nodes = nullptr;
  const NodeMatching* matching = nullptr;          // null for a program against its own shadow
  std::vector<ReportChart> charts;                  // after the worst layers, in order
  std::optional<double> outputSqnrDb;              // once both runs ended
  const NodeComparison* firstDivergence = nullptr;
  const NodeComparison* firstNonfinite = nullptr;
};

/// The page: a summary, the ten layers of lowest SQNR, the charts (layer sensitivity), A's
/// graph with each op coloured by its SQNR, and every compared node. Every text from the inputs
/// (names, targets, module paths, file names, problems) is escaped, so the page holds it as text.
std::string comparisonReportHtml(const ReportInput& in);

}  // namespace torchir
