#include "SensitivityReport.h"

#include <cmath>

#include "compare/TensorMetrics.h"

namespace torchir {
namespace {

/// A metric for reading: three significant digits; printf writes some NaNs as "-nan".
std::string number(double x) { return std::isnan(x) ? "nan" : metricText(x); }

}  // namespace

ReportChart sensitivityChart(const SensitivityResult& r, const Program& a) {
  ReportChart chart;
  chart.title = "Layer sensitivity";
  chart.caption = "The output's SQNR is " + number(r.baselineSqnrDb) + " dB; each quantized layer kept in float alone gains" +
                  (r.cancelled ? " (cancelled part way)" : "") + ":";
  chart.whenEmpty = "no layer was measured";
  for (const LayerSensitivity& l : r.layers) {
    const Node& n = a.node(l.node);
    const std::string module = n.moduleFrames().empty() ? std::string() : " in " + n.moduleFrames().back().path;
    ReportBar bar;
    bar.label = n.name;
    bar.value = l.problem.empty() ? number(l.gainDb) + " dB, output " + number(l.outputSqnrDb) + " dB"
                                  : "not measured: " + l.problem;
    bar.tooltip = n.name + " (" + n.target + ")" + module + ": output SQNR " + number(l.outputSqnrDb) + " dB" +
                  (l.problem.empty() ? "" : "; " + l.problem);
    bar.length = l.gainDb;
    bar.drawn = l.problem.empty();
    chart.bars.push_back(std::move(bar));
  }
  return chart;
}

}  // namespace torchir
