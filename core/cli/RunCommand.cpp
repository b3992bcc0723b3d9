#include <iostream>
#include <nlohmann/json.hpp>

#include "program/EscapedText.h"
#include "Cli.h"
#include "CommandSession.h"
#include "exec/AtenBackend.h"
#include "compare/TensorMetrics.h"
#include "capture/ExecJson.h"
#include "exec/Patch.h"
#include "exec/Session.h"
#include "formats/InputsFile.h"
#include "program/OneLine.h"
#include "formats/ProgramLoader.h"
#include "formats/WeightsFile.h"
#include "formats/Safetensors.h"

namespace torchir::cli {
namespace {

using Json = nlohmann::ordered_json;

/// The outermost frame of export's stack trace: the user's own line, not torch's internals.
/// A node's time in the trace: the op's own, or that it was not called (its results reused).
std::string timeText(const NodeRecord& r) {
  char text[32];
  std::snprintf(text, sizeof text, "%9.1f us", r.microseconds);
  return r.cached ? "cached" : text;
}

std::string userFrame(const std::string& trace) {
  const auto second = trace.find("\n  File ");
  return trace.substr(0, second);
}

void printDiagnosis(const Program& program, const Diagnosis& d, bool verbose) {
  // libtorch's message goes on with context lines and a backtrace: its first line, unless --verbose
  std::cerr << "error: node '" << d.nodeName << "' (" << d.opType << "): " << diagnosisClassName(d.kind) << "\n"
            << "  " << (verbose ? d.message : firstLine(d.message)) << "\n";
  if (!d.explanation.empty()) std::cerr << "  " << d.explanation << "\n";
  for (const ArgumentPatch& fix : suggestedCasts(program, d))  // the studio applies it with Ctrl+.
    std::cerr << "  fix: '" << fix.argument << "' " << describePatch(fix) << "\n";
  if (!d.schema.empty()) std::cerr << "  schema: " << d.schema << "\n";
  for (const auto& a : d.arguments)
    std::cerr << "    " << a.name << ": " << a.declaredType << " = " << a.value.text << "  (" << argSourceName(a.source)
              << ")\n";
  if (!d.stackTrace.empty()) std::cerr << "  from:\n    " << userFrame(d.stackTrace) << "\n";
  if (!d.traceback.empty()) std::cerr << "  Python traceback:\n" << d.traceback << (d.traceback.back() == '\n' ? "" : "\n");
}

/// How an output stands against the one saved as `output_<i>` in the --expect file: "" when they are
/// equal bit for bit (dtype, shape and every byte), else what differs.
std::string differenceFromExpected(const TensorData& output, const TensorMap& expected, std::size_t i) {
  const auto it = expected.find("output_" + std::to_string(i));
  if (it == expected.end()) return "not in the file";
  const TensorData& want = it->second;
  if (output.dtype != want.dtype)
    return "dtype " + std::string(dtypeName(output.dtype)) + ", expected " + std::string(dtypeName(want.dtype));
  if (output.sizes != want.sizes) return "shape " + sizesText(output.sizes) + ", expected " + sizesText(want.sizes);
  if (output.contiguousBytes() == want.contiguousBytes()) return {};
  const TensorMetrics m = compareTensors(output, want);
  return "differs: max abs " + metricText(m.maxAbs) + ", max rel " + metricText(m.maxRel);
}

}  // namespace

int runCommand(const Args& args) {
  LoadOptions options{args.option("--weights"), args.option("--constants")};
  const Program& program = loadForCommand(args.positional.front(), options);
  const bool json = args.flag("--json");
  const auto missing = program.missingData();
  if (!missing.empty() && !json) {
    std::cerr << "note: no data for " << missing.size() << " weight(s):";
    for (const auto& m : missing) std::cerr << " " << m;
    std::cerr << " (supply them with --weights / --constants)\n";
  }
  const bool cast = args.flag("--cast-weights");
  const auto otherDtype = weightsOfOtherDtype(program);
  if (!otherDtype.empty() && !json)
    std::cerr << "warning: " << describeWeightsOfOtherDtype(otherDtype)
              << (cast ? "; cast to the export's dtypes (--cast-weights)\n"
                       : "; an op that mixes dtypes fails (--cast-weights casts them to the export's)\n");
  if (!applyBackendOptions(args, {&program})) return kBadInput;
  Debugger debugger(commandTarget(program, args, /*randomWhenNone=*/false));
  debugger.start();
  const Session* session = &debugger.session();
  StopConditions stops;
  const std::string stopOn = args.option("--stop-on");
  stops.nanOrInf = stopOn == "nan";
  stops.dtypeDiffers = stopOn == "dtype";
  stops.shapeDiffers = stopOn == "shape";
  const DebugOutcome outcome = debugger.execute(DebugCommand::Continue, kNone, stops, nullptr);
  Json trace = Json::array();
  if (args.flag("--trace")) {
    // A node's line; a higher-order node's is followed by the nodes its subgraphs ran, named
    // graph/node and without an index of their own.
    auto traceNode = [&](const std::string& index, const std::string& name, const std::string& op, const NodeRecord& r) {
      const ValueSummary out = r.outputs.empty() ? ValueSummary{} : r.outputs.front();
      Json entry = {{"name", name}, {"op", op}, {"dtype", std::string(dtypeName(out.dtype))}, {"shape", out.sizes},
                    {"us", r.microseconds}, {"cached", r.cached}};
      if (!json)
        std::printf("%5s  %-28s %-36s %-9s %-20s %12s\n", index.c_str(), name.c_str(), op.c_str(),
                    std::string(dtypeName(out.dtype)).c_str(), sizesText(out.sizes).c_str(), timeText(r).c_str());
      return entry;
    };
    for (const auto& n : program.nodes) {
      const NodeRecord* r = session->record(n.id);
      if (!r || n.opcode != Opcode::CallFunction || r->schema.empty()) continue;
      Json entry = traceNode(std::to_string(n.id), n.name, n.target, *r);
      entry["index"] = n.id;
      if (!r->inner.empty()) {
        Json inner = Json::array();
        for (const InnerRecord& i : r->inner) {
          Json e = traceNode("", i.graph + "/" + i.name, i.target, i.record);
          e["graph"] = i.graph;
          e["name"] = i.name;
          inner.push_back(std::move(e));
        }
        entry["inner"] = std::move(inner);
      }
      if (json) trace.push_back(std::move(entry));
    }
  }
  const bool ok = outcome.reason == StopReason::Finished;
  std::vector<TensorData> outputs;
  if (ok) outputs = session->outputs();
  if (ok && args.flag("--save-outputs")) {
    TensorMap saved;
    for (std::size_t i = 0; i < outputs.size(); ++i) saved["output_" + std::to_string(i)] = outputs[i];
    writeSafetensors(args.option("--save-outputs"), saved);
  }
  // --expect: are the outputs those of another run (eager PyTorch's, saved as output_<i>)?
  bool expectedAll = true;
  Json expectedJson = Json::array();
  if (ok && args.flag("--expect")) {
    const std::string file = args.option("--expect");
    const TensorMap expected = readSafetensors(file);
    for (std::size_t i = 0; i < outputs.size(); ++i) {
      const std::string difference = differenceFromExpected(outputs[i], expected, i);
      expectedAll = expectedAll && difference.empty();
      expectedJson.push_back({{"name", "output_" + std::to_string(i)}, {"equal", difference.empty()},
                              {"difference", difference}});
      if (!json)
        std::cout << "output_" << i << ": " << (difference.empty() ? "equal to " + file + " bit for bit" : difference)
                  << "\n";
    }
  }
  if (json) {
    Json out = {{"status", std::string(stopReasonName(outcome.reason))}, {"threads", atenBackend().threads()}};
    if (args.flag("--expect")) out["expected"] = expectedJson;
    Json outs = Json::array();
    for (const auto& t : outputs) outs.push_back({{"dtype", std::string(dtypeName(t.dtype))}, {"shape", t.sizes}});
    out["outputs"] = outs;
    if (!outcome.diagnosis.ok()) out["diagnosis"] = diagnosisJson(outcome.diagnosis);
    if (!otherDtype.empty()) {
      out["weights_of_other_dtype"] = Json::array();
      for (const auto& w : otherDtype)
        out["weights_of_other_dtype"].push_back({{"name", w.name}, {"dtype", std::string(dtypeName(w.given))},
                                                 {"export", std::string(dtypeName(w.exported))}, {"cast", cast}});
    }
    if (args.flag("--trace")) out["trace"] = trace;
    std::cout << jsonText(out, 2) << "\n";
  } else if (ok && !args.flag("--expect")) {
    for (std::size_t i = 0; i < outputs.size(); ++i)
      std::cout << "output_" << i << ": " << dtypeName(outputs[i].dtype) << sizesText(outputs[i].sizes) << "\n";
  } else if (!outcome.diagnosis.ok()) {
    printDiagnosis(program, outcome.diagnosis, args.flag("--verbose"));
  }
  return ok && expectedAll ? kOk : kProgramFault;
}

}  // namespace torchir::cli
