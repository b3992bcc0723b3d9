#include "ComparisonReport.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <exception>
#include <limits>
#include <map>

#include "compare/NodeMatching.h"
#include "layout/LayoutEngine.h"
#include "layout/SvgWriter.h"
#include "program/EscapedText.h"

namespace torchir {
namespace {

constexpr std::size_t kWorstLayers = 10;

/// Text from an input (a node's name, a file's name, a problem) as HTML text or a double-quoted
/// attribute: markup stays text, and bytes that are not UTF-8 become U+FFFD (program/EscapedText.h).
std::string text(const std::string& s) { return xmlEscaped(s); }

/// A metric for reading: three significant digits; printf writes some NaNs as "-nan".
std::string number(double x) { return std::isnan(x) ? "nan" : metricText(x); }
std::string number(const std::optional<double>& x) { return x ? number(*x) : "-"; }

std::string coordinate(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.1f", v);
  return buf;
}

/// At most `chars` characters of `s`, the last one "…" when cut: a long name must not stretch a
/// chart. Cuts between whole UTF-8 sequences only.
std::string shortened(const std::string& s, std::size_t chars) {
  const std::string v = validUtf8(s);
  std::vector<std::size_t> starts;
  for (std::size_t i = 0; i < v.size(); i += utf8::fitting(v, i)) starts.push_back(i);
  if (starts.size() <= chars || chars == 0) return v;
  return v.substr(0, starts[chars - 1]) + "\xE2\x80\xA6";
}

std::string moduleOf(const Node& n) { return n.moduleFrames().empty() ? std::string() : n.moduleFrames().back().path; }

/// Why a node has no numbers: the run's reason (B failed before it, a value was let go), else the
/// metrics' (shapes apart).
std::string problemOf(const NodeComparison& c) { return c.problem.empty() ? c.metrics.problem : c.problem; }

/// How bad a node is by its SQNR, as the graph colours it: 0 (> 60 dB) to 3 (<= 20 dB); 4 for NaN or
/// Inf where the reference has numbers, or nothing comparable; -1 when nothing was compared.
int severityOf(const NodeComparison& c) {
  if (!c.problem.empty()) return -1;
  const double s = c.metrics.sqnrDb;
  if (c.makesNonfinite || c.metrics.nonfiniteApart > 0 || !c.metrics.comparable() || std::isnan(s)) return 4;
  return s > 60 ? 0 : s > 40 ? 1 : s > 20 ? 2 : 3;
}
constexpr int kSeverities = 5;
constexpr const char* kSeverityFill[kSeverities] = {"#d4edda", "#fff3b0", "#ffd08a", "#f48c78", "#d0a8f5"};
constexpr const char* kSeverityLabel[kSeverities] = {"SQNR &gt; 60 dB", "&gt; 40 dB", "&gt; 20 dB", "&lt;= 20 dB",
                                                     "NaN/Inf or not comparable"};

/// A table cell holding a number; `severity` tints it as the graph does.
std::string numberCell(const std::string& value, int severity = -1) {
  return std::string("<td class=\"n") + (severity >= 0 ? " sev" + std::to_string(severity) : "") + "\">" + value +
         "</td>";
}
std::string textCell(const std::string& raw) { return "<td>" + text(raw) + "</td>"; }

std::string summaryRow(const std::string& header, const std::string& cell) {
  return "<tr><th>" + header + "</th><td>" + cell + "</td></tr>\n";
}

std::string describe(const NodeComparison& c, const Program& a) {
  const Node& n = a.node(c.a);
  std::string s = "<code>" + text(n.name) + "</code> (" + text(n.target) + "): SQNR " + number(c.metrics.sqnrDb) +
                  " dB, max rel " + number(c.metrics.maxRel);
  if (c.ownSqnrDb) s += ", own SQNR " + number(*c.ownSqnrDb) + " dB";
  if (c.metrics.nonfiniteA) s += ", " + std::to_string(c.metrics.nonfiniteA) + " NaN/Inf";
  if (!c.metrics.comparable()) s += " (" + text(c.metrics.problem) + ")";
  return s;
}

std::string summary(const ReportInput& in) {
  std::size_t compared = 0, diverging = 0;
  for (const NodeComparison& c : *in.nodes) compared += c.problem.empty(), diverging += c.diverges;
  std::string nodes = std::to_string(compared);
  if (compared < in.nodes->size()) nodes += " (" + std::to_string(in.nodes->size() - compared) + " not compared)";
  std::string s = "<table class=\"summary\">\n";
  s += summaryRow("program", "<code>" + text(in.programPath) + "</code>");
  s += summaryRow("compared against", in.reference.empty() ? "-" : text(in.reference));
  s +=
      summaryRow("output SQNR", in.outputSqnrDb ? number(*in.outputSqnrDb) + " dB" : "not measured: a run did not end");
  s += summaryRow("nodes compared", nodes);
  s += summaryRow("diverging", std::to_string(diverging));
  if (in.matching) {
    s += summaryRow("quantization nodes", std::to_string(in.matching->quantizationA.size()));
    s += summaryRow("folded nodes", std::to_string(in.matching->foldedB.size()));
  }
  s += summaryRow("first divergence", in.firstDivergence ? describe(*in.firstDivergence, *in.a) : "none");
  s += summaryRow("first NaN/Inf", in.firstNonfinite ? describe(*in.firstNonfinite, *in.a) : "none");
  return s + "</table>\n";
}

/// The compared nodes of lowest SQNR first; NaN/Inf and shapes apart below any number.
std::string worstLayers(const ReportInput& in) {
  auto rank = [](const NodeComparison* c) {
    return severityOf(*c) == 4 ? -std::numeric_limits<double>::infinity() : c->metrics.sqnrDb;
  };
  std::vector<const NodeComparison*> worst;
  for (const NodeComparison& c : *in.nodes)
    if (c.problem.empty()) worst.push_back(&c);
  std::stable_sort(worst.begin(), worst.end(), [&](auto* x, auto* y) { return rank(x) < rank(y); });
  if (worst.size() > kWorstLayers) worst.resize(kWorstLayers);
  if (worst.empty()) return "<p>no node was compared</p>\n";
  std::string s =
      "<table>\n<tr><th>name</th><th>op</th><th>module</th><th>SQNR dB</th><th>SNR dB</th><th>max rel</th>"
      "<th>MSE</th><th>own SQNR dB</th></tr>\n";
  for (const NodeComparison* c : worst) {
    const Node& n = in.a->node(c->a);
    const TensorMetrics& m = c->metrics;
    s += "<tr>" + textCell(n.name) + textCell(n.target) + textCell(moduleOf(n)) +
         numberCell(number(m.sqnrDb), severityOf(*c)) + numberCell(number(m.snrDb)) + numberCell(number(m.maxRel)) +
         numberCell(number(m.mse)) + numberCell(number(c->ownSqnrDb)) + "</tr>\n";
  }
  return s + "</table>\n";
}

/// One bar per entry in the chart's order, as long as its length; a loss to the left of the zero
/// line, an infinite gain to the chart's edge.
std::string barChart(const ReportChart& chart) {
  std::string s = "<p>" + text(chart.caption) + "</p>\n";
  if (chart.bars.empty()) return s + "<p>" + text(chart.whenEmpty) + "</p>\n";
  constexpr double kCharWidth = 7, kRow = 18, kBars = 360, kMargin = 10;
  constexpr std::size_t kLabelChars = 48, kValueChars = 40;
  std::vector<std::string> labels, values;
  std::size_t labelChars = 0, valueChars = 0;
  double lo = 0, hi = 0;
  for (const ReportBar& bar : chart.bars) {
    labels.push_back(shortened(bar.label, kLabelChars));
    values.push_back(shortened(bar.value, kValueChars));
    labelChars = std::max(labelChars, labels.back().size());
    valueChars = std::max(valueChars, values.back().size());
    if (std::isfinite(bar.length)) lo = std::min(lo, bar.length), hi = std::max(hi, bar.length);
  }
  const double x0 = kMargin + static_cast<double>(labelChars) * kCharWidth + 8;
  const double scale = hi > lo ? kBars / (hi - lo) : 0;
  const double zero = x0 - lo * scale;
  const double width = x0 + kBars + 8 + static_cast<double>(valueChars) * kCharWidth + kMargin;
  const double height = 2 * kMargin + kRow * static_cast<double>(chart.bars.size());
  s += "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"" + coordinate(width) + "\" height=\"" + coordinate(height) +
       "\" font-family=\"DejaVu Sans Mono, monospace\" font-size=\"11.6\">\n";
  for (std::size_t i = 0; i < chart.bars.size(); ++i) {
    const ReportBar& bar = chart.bars[i];
    const double top = kMargin + kRow * static_cast<double>(i), baseline = top + 13;
    s += "<g><title>" + text(bar.tooltip) + "</title>\n";  // the whole story where the label had to be cut
    s += "<text x=\"" + coordinate(x0 - 8) + "\" y=\"" + coordinate(baseline) + "\" text-anchor=\"end\">" +
         text(labels[i]) + "</text>\n";
    double left = zero, right = zero;
    if (bar.drawn && !std::isnan(bar.length)) {
      const double end = std::isinf(bar.length) ? (bar.length > 0 ? x0 + kBars : x0) : zero + bar.length * scale;
      left = std::min(zero, end), right = std::max(zero, end);
    }
    if (right > left)
      s += "<rect x=\"" + coordinate(left) + "\" y=\"" + coordinate(top + 3) + "\" width=\"" +
           coordinate(right - left) + "\" height=\"" + coordinate(kRow - 6) + "\" fill=\"" +
           (bar.length > 0 ? "#4a6fa5" : "#c0504d") + "\"/>\n";
    s += "<text x=\"" + coordinate(x0 + kBars + 8) + "\" y=\"" + coordinate(baseline) + "\" fill=\"#333\">" +
         text(values[i]) + "</text>\n</g>\n";
  }
  s += "<line x1=\"" + coordinate(zero) + "\" y1=\"" + coordinate(kMargin) + "\" x2=\"" + coordinate(zero) +
       "\" y2=\"" + coordinate(height - kMargin) + "\" stroke=\"#333\"/>\n";
  return s + "</svg>\n";
}

/// Raises `worst[key]` to `severity`.
template <class Key>
void worsen(std::map<Key, int>& worst, Key key, int severity) {
  auto [it, fresh] = worst.emplace(key, severity);
  if (!fresh) it->second = std::max(it->second, severity);
}

/// A's graph as `torchir layout` draws it by default, each compared op filled with its SQNR's
/// colour; a collapsed module takes its worst op's, as in the studio, so a big program's first
/// view still shows where the error is.
std::string graphSvg(const ReportInput& in) {
  try {
    layout::LayoutEngine engine(layout::fixedMetric);
    engine.setProgram(*in.a);
    const layout::ViewGraph& g = engine.graph();
    const layout::FoldState fold = layout::FoldState::initial(g);
    const auto drawn = engine.layout(fold);
    if (!drawn) return "<p>graph not drawn: the layout was cancelled</p>\n";
    std::map<int, int> byNode, byModule;  // op box's node, collapsed module's level -> the worst severity
    for (const NodeComparison& c : *in.nodes) {
      const int severity = severityOf(c);
      if (severity < 0 || c.a < 0 || static_cast<std::size_t>(c.a) >= in.a->nodes.size()) continue;
      const NodeId box = layout::drawnOp(*in.a, c.a);
      if (box < 0 || !g.isOpBox(box)) continue;
      worsen(byNode, box, severity);
      int collapsed = -1;  // the outermost collapsed module on the way up is the box drawn
      for (int level = g.drawnIn(box); level > 0; level = g.parent(level))
        if (!fold.expanded(level)) collapsed = level;
      if (collapsed > 0) worsen(byModule, collapsed, severity);
    }
    return layout::layoutToSvg(*drawn, [&](const layout::Box& b) -> std::string {
      if (b.kind != layout::BoxKind::Op && b.kind != layout::BoxKind::Module) return {};
      const bool op = b.kind == layout::BoxKind::Op;
      const std::map<int, int>& worst = op ? byNode : byModule;
      const auto it = worst.find(op ? b.node : b.module);
      return it == worst.end() ? std::string() : kSeverityFill[it->second];
    });
  } catch (const std::exception& e) {
    return "<p>graph not drawn: " + text(e.what()) + "</p>\n";
  }
}

std::string legend() {
  std::string s = "<p class=\"legend\">";
  for (int i = 0; i < kSeverities; ++i)
    s += "<span class=\"sev" + std::to_string(i) + "\">" + kSeverityLabel[i] + "</span>";
  return s + "<span>not compared</span></p>\n";
}

/// Every node of the comparison, in program order.
std::string nodeTable(const ReportInput& in) {
  std::string s =
      "<table>\n<tr><th>name</th><th>op</th><th>b_name</th><th>max_abs</th><th>max_rel</th><th>cosine</th>"
      "<th>sqnr_db</th><th>snr_db</th><th>mse</th><th>l1</th><th>own_rel</th><th>own_sqnr_db</th>"
      "<th>diverges</th><th>problem</th></tr>\n";
  for (const NodeComparison& c : *in.nodes) {
    const Node& n = in.a->node(c.a);
    const TensorMetrics& m = c.metrics;
    s += std::string(c.diverges ? "<tr class=\"diverges\">" : "<tr>") + textCell(n.name) + textCell(n.target) +
         textCell(c.b == kNone ? std::string("-") : in.b->node(c.b).name) + numberCell(number(m.maxAbs)) +
         numberCell(number(m.maxRel)) + numberCell(number(m.cosine)) + numberCell(number(m.sqnrDb), severityOf(c)) +
         numberCell(number(m.snrDb)) + numberCell(number(m.mse)) + numberCell(number(m.l1)) +
         numberCell(number(c.ownRel)) + numberCell(number(c.ownSqnrDb)) + "<td>" + (c.diverges ? "yes" : "no") +
         "</td>" + textCell(problemOf(c)) + "</tr>\n";
  }
  return s + "</table>\n";
}

std::string style() {
  std::string s =
      "body{font:14px/1.4 system-ui,sans-serif;margin:24px;color:#222}\n"
      "h1{font-size:20px}h2{font-size:17px;margin-top:28px}\n"
      "table{border-collapse:collapse;font-size:13px}\n"
      "th,td{border:1px solid #ddd;padding:3px 8px;text-align:left;vertical-align:top}\n"
      "th{background:#f3f3f3}.summary th{width:12em}\n"
      "td.n{text-align:right;font-family:'DejaVu Sans Mono',monospace;white-space:nowrap}\n"
      "tr.diverges td:first-child{border-left:3px solid #c0392b;font-weight:bold}\n"
      ".graph{overflow:auto;border:1px solid #ddd;max-height:900px}\n"
      ".legend span{display:inline-block;padding:1px 8px;margin-right:6px;border:1px solid #999}\n";
  for (int i = 0; i < kSeverities; ++i) s += ".sev" + std::to_string(i) + "{background:" + kSeverityFill[i] + "}\n";
  return s;
}

}  // namespace

std::string comparisonReportHtml(const ReportInput& in) {
  std::string s = "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n<title>torchir compare: " +
                  text(in.programPath) + "</title>\n<style>\n" + style() + "</style>\n</head>\n<body>\n";
  s += "<h1>Comparison of <code>" + text(in.programPath) + "</code></h1>\n" + summary(in);
  s += "<h2>Worst layers</h2>\n" + worstLayers(in);
  for (const ReportChart& chart : in.charts) s += "<h2>" + text(chart.title) + "</h2>\n" + barChart(chart);
  s += "<h2>Graph</h2>\n" + legend() + "<div class=\"graph\">\n" + graphSvg(in) + "</div>\n";
  s += "<h2>Every node</h2>\n" + nodeTable(in);
  return s + "</body>\n</html>\n";
}

}  // namespace torchir
