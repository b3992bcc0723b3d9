// `torchir compare etrecord.bin --etdump etdump.etdp [--debug-buffer B]`: the device's values
// against the Edge program's, per instruction, with the first divergence and its cause.
#include <fstream>
#include <iostream>
#include <limits>
#include <nlohmann/json.hpp>

#include "Cli.h"
#include "CommandSession.h"
#include "debug/Debugger.h"
#include "device/DeviceComparison.h"
#include "device/DeviceRecord.h"
#include "formats/InputsFile.h"
#include "program/EscapedText.h"
#include "program/LoadError.h"
#include "program/OneLine.h"

namespace torchir::cli {
namespace {

using Json = nlohmann::ordered_json;

Json number(double x) { return std::isfinite(x) ? Json(x) : Json(std::isnan(x) ? "nan" : (x > 0 ? "inf" : "-inf")); }

std::string modulePath(const Node& n) {
  return n.moduleStack && !n.moduleStack->empty() ? n.moduleStack->back().path : std::string();
}
std::string moduleType(const Node& n) {
  return n.moduleStack && !n.moduleStack->empty() ? n.moduleStack->back().type : std::string();
}

Json metricsJson(const TensorMetrics& m) {
  if (!m.comparable()) return Json{{"problem", m.problem}};
  return Json{{"max_abs", number(m.maxAbs)}, {"max_rel", number(m.maxRel)}, {"mse", number(m.mse)},
              {"sqnr_db", number(m.sqnrDb)}, {"snr_db", number(m.snrDb)}, {"cosine", number(m.cosine)},
              {"nonfinite", m.nonfiniteA}};
}

Json rowJson(const DeviceComparison& c, const DeviceRow& row, const Program& p) {
  const DeviceInstruction& in = c.run.instructions[row.instruction];
  Json j;
  j["instruction"] = in.id;
  j["kernel"] = in.kernel;
  j["delegated"] = in.delegated;
  j["debug_handles"] = in.handles;
  Json nodes = Json::array();
  for (NodeId n : in.nodes) nodes.push_back(p.nodes[n].name);
  j["nodes"] = std::move(nodes);
  j["output"] = row.output;
  j["node"] = row.node == kNone ? Json() : Json(p.nodes[row.node].name);
  j["layer"] = row.layer == kNone ? Json() : Json(p.nodes[row.layer].name);
  j["module"] = row.layer == kNone ? Json() : Json(modulePath(p.nodes[row.layer]));
  j["dtype"] = std::string(dtypeName(in.outputs[row.output].dtype));
  j["shape"] = in.outputs[row.output].sizes;
  j["p50_ms"] = in.p50Ms ? number(*in.p50Ms) : Json();
  Json inner = Json::array();
  for (const auto& [name, ms] : in.delegateEvents) inner.push_back({{"name", name}, {"p50_ms", number(ms)}});
  j["delegate_events"] = std::move(inner);
  if (!row.problem.empty()) {
    j["problem"] = row.problem;
    return j;
  }
  j["metrics"] = metricsJson(row.metrics);
  j["compared_as"] = row.codes ? "codes" : "values";
  j["tolerance"] = row.tolerance;
  j["float64_floor"] = row.floor ? metricsJson(*row.floor) : Json();
  j["diverges"] = row.diverges;
  if (row.diverges) {
    j["cause"] = row.cause == DeviceRow::Cause::Kernel ? "kernel" : row.cause == DeviceRow::Cause::Upstream ? "upstream" : "not measured";
    j["local"] = row.local ? metricsJson(*row.local) : Json();
    if (!row.causeProblem.empty()) j["cause_problem"] = row.causeProblem;
  }
  return j;
}

std::string csvField(const std::string& s) {
  std::string out = "\"";
  for (char ch : s) out += ch == '"' ? std::string("\"\"") : std::string(1, ch);
  // a leading = + - @ would be a formula to a spreadsheet
  if (!s.empty() && std::string("=+-@").find(s[0]) != std::string::npos) out.insert(1, "'");
  return out + "\"";
}

void writeCsv(const std::string& path, const DeviceComparison& c, const Program& p) {
  std::ofstream f(path);
  f << "instruction,kernel,node,module,dtype,shape,p50_ms,max_abs,max_rel,mse,sqnr_db,cosine,diverges,cause,problem\n";
  for (const auto& row : c.rows) {
    const DeviceInstruction& in = c.run.instructions[row.instruction];
    const bool ok = row.problem.empty();
    f << in.id << "," << csvField(in.kernel) << "," << csvField(row.node == kNone ? "" : p.nodes[row.node].name) << ","
      << csvField(row.layer == kNone ? "" : modulePath(p.nodes[row.layer])) << "," << dtypeName(in.outputs[row.output].dtype) << ","
      << csvField(sizesText(in.outputs[row.output].sizes)) << "," << (in.p50Ms ? metricText(*in.p50Ms) : "") << ","
      << (ok ? metricText(row.metrics.maxAbs) : "") << "," << (ok ? metricText(row.metrics.maxRel) : "") << ","
      << (ok ? metricText(row.metrics.mse) : "") << "," << (ok ? metricText(row.metrics.sqnrDb) : "") << ","
      << (ok ? metricText(row.metrics.cosine) : "") << "," << (row.diverges ? "yes" : "no") << ","
      << csvField(row.diverges ? row.causeText() : "") << "," << csvField(row.problem) << "\n";
  }
  if (!f) throw LoadError(path, "cannot be written");
}

void writeReport(const std::string& path, const DeviceComparison& c, const EtRecord& record, const std::string& etdump) {
  const auto comparison = deviceComparisonRecord(c, record.edge, "device run " + etdump);
  ReportInput in;
  in.programPath = record.path;
  in.reference = "the device's run (" + etdump + ") against the Edge program run in float32";
  in.a = in.b = record.edge.get();
  in.nodes = &comparison->nodes;
  in.charts.push_back(deviceLatencyChart(c, *record.edge));
  in.firstDivergence = comparison->firstDivergingNode();
  in.firstNonfinite = comparison->of(comparison->firstNonfinite);
  std::ofstream out(path, std::ios::binary);
  out << comparisonReportHtml(in);
  if (!out) throw LoadError(path, "cannot be written");
}

}  // namespace

int deviceCompareCommand(const Args& args) {
  const std::string recordPath = args.positional.front();
  const EtRecord record = readEtRecord(recordPath, args.option("--method"));
  const std::string etdump = args.option("--etdump");
  const EtDump dump = readEtDump(etdump, args.flag("--debug-buffer") ? args.option("--debug-buffer") : debugBufferBeside(etdump));
  std::optional<PteProgram> pte;
  const std::string ptePath = args.flag("--pte") ? args.option("--pte") : pteFor(recordPath, recordPath);
  if (!ptePath.empty()) pte = readPte(ptePath);
  std::optional<std::vector<TensorData>> inputs;
  if (args.flag("--inputs")) inputs = readInputsFile(*record.edge, args.option("--inputs"));
  if (!applyBackendOptions(args)) return kBadInput;

  DeviceComparison c;
  try {
    Debugger debugger(deviceTarget(record, inputs ? &*inputs : nullptr));
    const std::string inputWords = debugger.start();
    // every value is compared, and a diverging instruction's nodes rerun on the device's inputs
    debugger.session().setMemoryBudget(std::numeric_limits<std::size_t>::max());
    c = compareDevice(debugger, record, dump, pte ? &*pte : nullptr);
    c.inputs = inputWords;
  } catch (const LoadError&) {
    throw;
  } catch (const std::exception& e) {
    std::cerr << "error: " << recordPath << ": " << e.what() << "; nothing compared\n";
    return kBadInput;
  }
  const Program& p = *record.edge;
  bool noValues = true;
  for (const auto& in : c.run.instructions) noValues = noValues && in.outputs.empty();

  if (args.flag("--csv")) writeCsv(args.option("--csv"), c, p);
  if (args.flag("--report")) writeReport(args.option("--report"), c, record, dump.path);
  if (args.flag("--json")) {
    Json j;
    j["etrecord"] = recordPath;
    j["etdump"] = dump.path;
    j["method"] = c.method;
    j["runs"] = c.run.runs;
    j["inputs"] = c.inputs;
    j["reference"] = "the Edge program run by the engine in float32; float64 as the noise floor";
    if (!c.referenceFailure.empty()) j["reference_failure"] = c.referenceFailure;
    j["rows"] = Json::array();
    for (const auto& row : c.rows) j["rows"].push_back(rowJson(c, row, p));
    j["first_divergence"] = c.firstDivergence ? rowJson(c, c.rows[*c.firstDivergence], p) : Json();
    j["outputs"] = Json::array();
    for (const auto& m : c.outputs) j["outputs"].push_back(metricsJson(m));
    std::cout << jsonText(j, 2) << "\n";
  } else {
    std::cout << "device: " << dump.path << " (" << c.run.runs << (c.run.runs == 1 ? " run" : " runs") << ") against the Edge program of "
              << recordPath << " (method " << oneLine(c.method) << "), run by the engine on " << c.inputs
              << " in float32, float64 as the noise floor\n";
    if (!c.referenceFailure.empty()) std::cout << "reference failed: " << oneLine(c.referenceFailure) << "\n";
    if (noValues)
      std::cout << "the ETDump holds no values (was the run made with a debug buffer, and --debug-buffer given?): "
                   "latencies only\n";
    std::printf("%4s %-26s %-22s %-14s %-16s %9s %10s %10s %9s %9s  %s\n", "inst", "kernel", "node", "module", "output", "p50_ms",
                "max_abs", "max_rel", "sqnr_db", "floor", "");
    for (const auto& row : c.rows) {
      const DeviceInstruction& in = c.run.instructions[row.instruction];
      const std::string node = row.node == kNone ? "-" : oneLine(p.nodes[row.node].name, 22);
      const std::string module = row.layer == kNone ? "-" : oneLine(modulePath(p.nodes[row.layer]), 14);
      const std::string shape = std::string(dtypeName(in.outputs[row.output].dtype)) + sizesText(in.outputs[row.output].sizes);
      const bool ok = row.problem.empty();
      std::printf("%4d %-26s %-22s %-14s %-16s %9s %10s %10s %9s %9s  %s\n", in.id, oneLine(in.kernel, 26).c_str(), node.c_str(),
                  module.c_str(), shape.c_str(), in.p50Ms ? metricText(*in.p50Ms).c_str() : "-",
                  ok ? metricText(row.metrics.maxAbs).c_str() : "-", ok ? metricText(row.metrics.maxRel).c_str() : "-",
                  ok ? metricText(row.metrics.sqnrDb).c_str() : "-", ok && row.floor ? metricText(row.floor->maxRel).c_str() : "-",
                  !ok ? oneLine(row.problem).c_str() : row.diverges ? ("DIVERGES: " + row.causeText()).c_str() : "");
    }
    if (c.firstDivergence) {
      const DeviceRow& row = c.rows[*c.firstDivergence];
      const DeviceInstruction& in = c.run.instructions[row.instruction];
      const Node& n = p.nodes[row.node];
      const Node& layer = p.nodes[row.layer];
      std::cout << "first divergence: instruction " << in.id << " (" << oneLine(in.kernel) << "), node '" << oneLine(n.name) << "' ("
                << oneLine(n.target) << ")";
      if (!modulePath(layer).empty())
        std::cout << " in " << oneLine(modulePath(layer)) << " (" << oneLine(moduleType(layer)) << ")";
      std::cout << ": max rel " << metricText(row.metrics.maxRel) << " against the program; " << row.causeText();
      if (row.local) std::cout << " (against its Edge nodes run on the device's own inputs: max rel " << metricText(row.local->maxRel) << ")";
      std::cout << "\n";
      if (const std::string& trace = layer.stackTraceText(); !trace.empty()) {
        // the user's line: the trace's first frame and its source line
        const auto first = trace.find('\n');
        const auto second = first == std::string::npos ? first : trace.find('\n', first + 1);
        std::cout << "  " << oneLine(trace.substr(0, first)) << (first == std::string::npos ? "" : "\n  " + oneLine(trace.substr(first + 1, second - first - 1)))
                  << "\n";
      }
    } else {
      std::cout << "first divergence: none\n";
    }
  }
  return c.firstDivergence ? kProgramFault : kOk;
}

}  // namespace torchir::cli
