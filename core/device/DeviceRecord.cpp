#include "DeviceRecord.h"

#include <algorithm>
#include <cmath>
#include <map>

#include "debug/Debugger.h"

namespace torchir {

std::shared_ptr<ComparisonRecord> deviceComparisonRecord(const DeviceComparison& c, std::shared_ptr<const Program> edge,
                                                         std::string reference) {
  auto record = std::make_shared<ComparisonRecord>();
  record->reference = std::move(reference);
  record->referenceFailure = c.referenceFailure;
  record->referenceProgram = edge;
  record->device = true;
  for (std::size_t r = 0; r < c.rows.size(); ++r) {
    const DeviceRow& row = c.rows[r];
    if (row.node == kNone) continue;
    NodeComparison n;
    n.a = n.b = row.node;
    n.output = row.nodeOutput;
    n.metrics = row.metrics;
    n.tolerance = row.tolerance;
    n.diverges = row.problem.empty() && row.diverges;
    n.problem = row.problem;
    n.deviceMs = c.run.instructions[row.instruction].p50Ms;
    if (row.local) n.ownRel = row.local->maxRel;
    if (row.local) n.ownSqnrDb = row.local->sqnrDb;
    if (row.diverges && row.cause == DeviceRow::Cause::NotMeasured) n.ownProblem = row.causeProblem;
    // where a stop lands: a row whose own kernel is wrong, or one that diverged unexplained; the
    // first divergence is one of these (or, where none is, the first row that diverged)
    n.startsDivergence = n.diverges && (row.cause != DeviceRow::Cause::Upstream || c.firstDivergence == r);
    n.makesNonfinite = row.metrics.nonfiniteA > 0 && row.metrics.nonfiniteB == 0;
    if (n.makesNonfinite && record->firstNonfinite == kNone) record->firstNonfinite = row.node;
    record->nodes.push_back(std::move(n));
  }
  // in the device's order, as the runs it compares made them: its first divergence is the record's
  record->index(edge->nodes.size());
  return record;
}

std::shared_ptr<const ComparisonRecord> adoptDeviceComparison(Debugger& debugger, const DeviceComparison& c,
                                                              std::string reference) {
  auto record = deviceComparisonRecord(c, debugger.target().program, std::move(reference));
  std::map<NodeId, TensorData> values;
  for (const DeviceRow& row : c.rows)
    if (row.node != kNone && row.problem.empty())
      values.emplace(row.node, c.run.instructions[row.instruction].outputs[static_cast<std::size_t>(row.output)]);
  debugger.adoptComparison(record, std::move(values));
  return record;
}

ReportChart deviceLatencyChart(const DeviceComparison& c, const Program& edge) {
  ReportChart chart;
  chart.title = "Device latency";
  chart.caption = "Each instruction's median time over the " + std::to_string(c.run.runs) + " runs in the ETDump, in ms, slowest first.";
  chart.whenEmpty = "The ETDump has no timed instruction.";
  std::vector<const DeviceInstruction*> timed;
  for (const auto& in : c.run.instructions)
    if (in.p50Ms) timed.push_back(&in);
  std::stable_sort(timed.begin(), timed.end(), [](auto* x, auto* y) { return *x->p50Ms > *y->p50Ms; });
  for (const DeviceInstruction* in : timed) {
    ReportBar bar;
    std::string node;
    for (NodeId n : in->outputNodes)
      if (n != kNone) node = edge.nodes[n].name;
    bar.label = "#" + std::to_string(in->id) + " " + in->kernel + (node.empty() ? "" : " (" + node + ")");
    bar.value = metricText(*in->p50Ms) + " ms";
    bar.length = *in->p50Ms;
    bar.tooltip = bar.label + ": " + bar.value;
    for (const auto& [name, ms] : in->delegateEvents) bar.tooltip += "; " + name + " " + metricText(ms) + " ms";
    chart.bars.push_back(std::move(bar));
  }
  return chart;
}

}  // namespace torchir
