// `torchir compare A [B]`: two runs in lockstep, the first node where their numbers part.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <iostream>
#include <limits>
#include <optional>
#include <nlohmann/json.hpp>

#include "program/EscapedText.h"
#include "Cli.h"
#include "CommandSession.h"
#include "exec/AtenBackend.h"
#include "compare/ComparisonCsv.h"
#include "compare/ComparisonJson.h"
#include "compare/ComparisonReport.h"
#include "compare/PairedRun.h"
#include "debug/Debugger.h"
#include "quant/KeepInFloat.h"
#include "quant/SensitivityReport.h"
#include "program/LoadError.h"
#include "formats/WeightsFile.h"

namespace torchir::cli {
namespace {

using Json = nlohmann::ordered_json;

constexpr std::size_t kWorstShown = 10;

/// The two programs and what the reference is, in words: "float64", "cuda", "other.pt2",
/// "weights w.safetensors".
struct Sides {
  const Program* a = nullptr;
  const Program* b = nullptr;
  std::string reference;
};

Json comparisonJson(const NodeComparison& c, const Program& a, const Program& b) {
  Json j = {{"name", a.node(c.a).name}, {"op", a.node(c.a).target}, {"b_name", b.node(c.b).name}};
  j.update(Json(nodeComparisonJson(c)));
  return j;
}

/// How the two programs were paired: by which rule, and what has no counterpart by nature.
Json pairingJson(const NodeMatching& m, const Program& a, const Program& b) {
  auto names = [](const std::vector<NodeId>& nodes, const Program& p) {
    Json out = Json::array();
    for (NodeId n : nodes) out.push_back(p.node(n).name);
    return out;
  };
  Json folded = Json::array();
  for (const auto& [nb, na] : m.foldedB) folded.push_back({{"b_name", b.node(nb).name}, {"into", a.node(na).name}});
  return {{"paired", m.paired()}, {"by_origin", m.byOrigin}, {"by_debug_handle", m.byDebugHandle},
          {"by_name", m.byName}, {"by_place", m.byPlace}, {"op_nodes_a", m.opNodesA}, {"op_nodes_b", m.opNodesB},
          {"quantization_a", names(m.quantizationA, a)}, {"quantization_b", names(m.quantizationB, b)},
          {"folded_b", folded}, {"parts_a", names(m.partsA, a)}};
}

Json sensitivityJson(const SensitivityResult& r, const Program& a) {
  Json layers = Json::array();
  for (const LayerSensitivity& l : r.layers) {
    const Node& n = a.node(l.node);
    layers.push_back({{"name", n.name}, {"op", n.target},
                      {"module", n.moduleFrames().empty() ? std::string() : n.moduleFrames().back().path},
                      {"output_sqnr_db", realJson(l.outputSqnrDb)}, {"gain_db", realJson(l.gainDb)}, {"problem", l.problem}});
  }
  return {{"baseline_sqnr_db", realJson(r.baselineSqnrDb)}, {"layers", layers}, {"cancelled", r.cancelled}};
}

void writeCsv(const std::string& path, const PairedRun& run, const Program& a, const Program& b) {
  std::ofstream out(path);
  out << comparisonCsv(run.nodes(), a, b);
  if (!out) throw LoadError(path, "cannot be written");
}

/// `--report F.html`: the comparison as one page to attach to a bug or a pull request.
void writeReport(const std::string& path, const Sides& s, const PairedRun& run, const SensitivityResult* ranked,
                 std::optional<double> outputSqnr) {
  ReportInput in;
  in.programPath = s.a->source.path;
  in.reference = s.reference;
  in.a = s.a;
  in.b = s.b;
  in.nodes = &run.nodes();
  if (s.b != s.a) in.matching = &run.matching();  // a shadow's pairing is every node with itself
  if (ranked) in.charts.push_back(sensitivityChart(*ranked, *s.a));
  in.outputSqnrDb = outputSqnr;
  in.firstDivergence = run.firstDivergence();
  in.firstNonfinite = run.firstNonfinite();
  std::ofstream out(path, std::ios::binary);
  out << comparisonReportHtml(in);
  if (!out) throw LoadError(path, "cannot be written");
}

}  // namespace

int compareCommand(const Args& args) {
  if (args.flag("--etdump")) return deviceCompareCommand(args);
  const std::string against = args.option("--against");
  Sides s;
  ReferenceSpec spec;
  s.a = &loadForCommand(args.positional.front(), {args.option("--weights"), args.option("--constants")});
  if (args.positional.size() > 1) {
    s.b = &loadForCommand(args.positional[1], {args.option("--weights-b"), args.option("--constants")});
    spec.name = args.positional[1];
    spec.kind = ReferenceSpec::Kind::File;
  } else if (args.flag("--weights-b")) {
    s.b = &loadForCommand(args.positional.front(), {args.option("--weights-b"), args.option("--constants")});
    spec.name = "weights " + args.option("--weights-b");
    spec.kind = ReferenceSpec::Kind::Weights;
  } else {
    s.b = s.a;
    if (args.flag("--inputs-b")) spec.name = "inputs " + args.option("--inputs-b");
  }
  // The same program, weights and inputs: the reference is its float64 shadow.
  if (against.empty() && s.b == s.a && !args.flag("--inputs-b")) spec.floatingAs = DType::Float64;
  if (!against.empty()) {
    if (against == "cuda" || against.rfind("cuda:", 0) == 0) {
      spec.device = against;
    } else {
      const auto d = dtypeFromName(against);
      if (!d || !isFloating(*d)) {
        std::cerr << "error: --against takes float64, float32, float16, bfloat16 or cuda, not '" << against << "'\n";
        return kBadInput;
      }
      spec.floatingAs = *d;
    }
  }

  if (const std::string problem = atenBackend().deviceProblem(spec.device); !problem.empty()) {
    std::cerr << "error: cannot compare against " << spec.device << ": " << problem << "; nothing compared\n";
    return kBadInput;
  }
  if (args.flag("--tolerance")) {
    const std::string t = args.option("--tolerance");
    char* end = nullptr;
    spec.options.tolerance = std::strtod(t.c_str(), &end);
    if (t.empty() || *end || !(spec.options.tolerance > 0)) {
      std::cerr << "error: --tolerance takes a positive number, not '" << t << "'\n";
      return kBadInput;
    }
  }
  if (!applyBackendOptions(args, {s.a, s.b})) return kBadInput;  // --threads, --executors, the Python

  const bool cast = args.flag("--cast-weights");
  for (const Program* p : {s.a, s.b}) {
    const auto other = weightsOfOtherDtype(*p);
    if (!other.empty() && (p == s.a || s.b != s.a))
      std::cerr << "warning: " << p->source.path << ": " << describeWeightsOfOtherDtype(other)
                << (cast ? "; cast to the export's dtypes\n" : "; --cast-weights casts them to the export's\n");
  }
  const bool sensitivity = args.flag("--sensitivity");
  if (sensitivity && s.b == s.a) {
    std::cerr << "error: --sensitivity compares a quantized program with its float one: give both files\n";
    return kBadInput;
  }
  if (sensitivity && quantizedLayers(*s.a).empty()) {
    std::cerr << "error: " << s.a->source.path << " has no quantized layer (no op takes a dequantized input); "
              << "--sensitivity compares a quantized program with its float one\n";
    return kBadInput;
  }

  Debugger debugger(commandTarget(*s.a, args, /*randomWhenNone=*/true));
  debugger.start();
  if (sensitivity) debugger.session().setMemoryBudget(std::numeric_limits<std::size_t>::max());  // each layer's run starts from these values
  if (s.b != s.a) spec.program = keptProgram(*s.b);
  spec.castWeights = cast;
  if (args.flag("--inputs-b")) spec.inputs = InputsChoice{args.option("--inputs-b"), std::nullopt};
  spec.requireTwins = true;
  DebugOutcome outcome;
  try {
    outcome = debugger.compare(spec, CompareStop::None, nullptr);
  } catch (const LoadError&) {
    throw;
  } catch (const std::exception& e) {
    std::cerr << "error: " << e.what() << "; nothing compared\n";
    return kBadInput;
  }
  const PairedRun& run = *debugger.pairedRun();
  s.reference = outcome.comparison->reference;  // the record the comparison made
  const std::optional<double> outputSqnr = outcome.comparison->outputSqnrDb;
  std::shared_ptr<const SensitivityResult> ranked;
  if (sensitivity && outputSqnr) {  // both runs ended: the float run's outputs are there
    const DebugOutcome measured = debugger.layerSensitivity(
        [&](std::size_t done, std::size_t total) {
          if (done % 10 == 0 || done + 1 == total) std::cerr << "sensitivity: layer " << done + 1 << " of " << total << "\n";
          return true;
        },
        nullptr);
    if (measured.reason == StopReason::Failed) {
      std::cerr << "error: " << s.a->source.path << ": " << measured.diagnosis.message << "\n";
      return kBadInput;
    }
    ranked = measured.comparison->sensitivity;
  }

  // The worst nodes: the largest max relative difference first (a shape mismatch, worst of all).
  std::vector<const NodeComparison*> worst;
  for (const auto& c : run.nodes())
    if (c.problem.empty()) worst.push_back(&c);
  std::stable_sort(worst.begin(), worst.end(),
                   [](auto* x, auto* y) { return x->metrics.distance() > y->metrics.distance(); });
  bool diverged = false, nonfinite = false;
  for (const auto& c : run.nodes()) diverged = diverged || c.diverges, nonfinite = nonfinite || c.metrics.nonfiniteA > 0;
  const NodeComparison* first = run.firstDivergence();
  const NodeComparison* firstBad = run.firstNonfinite();

  if (args.flag("--csv")) writeCsv(args.option("--csv"), run, *s.a, *s.b);
  if (args.flag("--report")) writeReport(args.option("--report"), s, run, ranked.get(), outputSqnr);
  if (args.flag("--json")) {
    Json j;
    j["reference"] = s.reference;
    j["status"] = std::string(stopReasonName(outcome.reason));
    j["nodes"] = Json::array();
    for (const auto& c : run.nodes()) j["nodes"].push_back(comparisonJson(c, *s.a, *s.b));
    j["first_divergence"] = first ? comparisonJson(*first, *s.a, *s.b) : Json(nullptr);
    if (firstBad) {
      Json bad = comparisonJson(*firstBad, *s.a, *s.b);
      bad["slice"] = Json::array();
      for (NodeId n : run.backwardSlice(firstBad->a)) bad["slice"].push_back(s.a->node(n).name);
      j["first_nonfinite"] = bad;
    } else {
      j["first_nonfinite"] = nullptr;
    }
    j["unmatched_a"] = Json::array();
    for (NodeId n : run.matching().unmatchedA) j["unmatched_a"].push_back(s.a->node(n).name);
    j["unmatched_b"] = Json::array();
    for (NodeId n : run.matching().unmatchedB) j["unmatched_b"].push_back(s.b->node(n).name);
    if (s.b != s.a) j["pairing"] = pairingJson(run.matching(), *s.a, *s.b);
    j["output_sqnr_db"] = outputSqnr ? Json(realJson(*outputSqnr)) : Json(nullptr);
    if (ranked) j["sensitivity"] = sensitivityJson(*ranked, *s.a);
    if (!run.bFailure().ok()) j["reference_failure"] = {{"node", run.bFailure().nodeName}, {"message", run.bFailure().message}};
    if (outcome.reason == StopReason::Failed)
      j["failure"] = {{"node", outcome.diagnosis.nodeName}, {"message", outcome.diagnosis.message}};
    std::cout << jsonText(j, 2) << "\n";
  } else {
    std::cout << "compared " << run.nodes().size() << " nodes of " << s.a->source.path << " against "
              << s.reference << "\n";
    auto describe = [&](const NodeComparison& c) {
      std::string text = "node '" + s.a->node(c.a).name + "' (" + s.a->node(c.a).target + "): max rel " +
                         metricText(c.metrics.maxRel) + ", max abs " + metricText(c.metrics.maxAbs);
      if (c.ownRel) text += ", own " + metricText(*c.ownRel);
      if (c.metrics.nonfiniteA) text += ", " + std::to_string(c.metrics.nonfiniteA) + " NaN/Inf";
      if (!c.metrics.comparable()) text += " (" + c.metrics.problem + ")";
      return text;
    };
    std::cout << "first divergence: " << (first ? describe(*first) : std::string("none")) << "\n";
    std::cout << "first non-finite: " << (firstBad ? describe(*firstBad) : std::string("none")) << "\n";
    if (outputSqnr) std::cout << "output SQNR: " << metricText(*outputSqnr) << " dB\n";
    if (!worst.empty()) {
      std::printf("%-28s %-30s %10s %10s %9s %9s %10s %9s\n", "worst nodes", "op", "max_rel", "max_abs", "cosine",
                  "sqnr_db", "own_rel", "own_sqnr");
      for (std::size_t i = 0; i < worst.size() && i < kWorstShown; ++i) {
        const NodeComparison& c = *worst[i];
        std::printf("%-28s %-30s %10s %10s %9s %9s %10s %9s\n", s.a->node(c.a).name.c_str(), s.a->node(c.a).target.c_str(),
                    metricText(c.metrics.maxRel).c_str(), metricText(c.metrics.maxAbs).c_str(), metricText(c.metrics.cosine).c_str(),
                    metricText(c.metrics.sqnrDb).c_str(), c.ownRel ? metricText(*c.ownRel).c_str() : "-",
                    c.ownSqnrDb ? metricText(*c.ownSqnrDb).c_str() : "-");
      }
    }
    auto list = [](const char* what, const std::vector<NodeId>& nodes, const Program& p) {
      if (nodes.empty()) return;
      std::cout << what << " (" << nodes.size() << "):";
      for (NodeId n : nodes) std::cout << " " << p.node(n).name;
      std::cout << "\n";
    };
    list("only in A", run.matching().unmatchedA, *s.a);
    list("only in B", run.matching().unmatchedB, *s.b);
    const NodeMatching& m = run.matching();
    if (!m.quantizationA.empty() || !m.quantizationB.empty())
      std::cout << "quantization (quantize, dequantize, choose_qparams; no float counterpart): " << m.quantizationA.size()
                << " in A, " << m.quantizationB.size() << " in B\n";
    if (!m.foldedB.empty()) {
      std::cout << "folded in A (" << m.foldedB.size() << "):";
      for (const auto& [nb, na] : m.foldedB) std::cout << " " << s.b->node(nb).name << "->" << s.a->node(na).name;
      std::cout << "\n";
    }
    if (ranked) {
      std::cout << "sensitivity: the output's SQNR is " << metricText(ranked->baselineSqnrDb)
                << " dB; each quantized layer kept in float alone:\n";
      std::printf("%-28s %-30s %-20s %12s %10s\n", "layer", "op", "module", "output_sqnr", "gain_db");
      for (const LayerSensitivity& l : ranked->layers) {
        const Node& n = s.a->node(l.node);
        std::printf("%-28s %-30s %-20s %12s %10s%s\n", n.name.c_str(), n.target.c_str(),
                    n.moduleFrames().empty() ? "" : n.moduleFrames().back().path.c_str(),
                    metricText(l.outputSqnrDb).c_str(), metricText(l.gainDb).c_str(),
                    l.problem.empty() ? "" : ("  (" + l.problem + ")").c_str());
      }
    }
    if (!run.bFailure().ok())
      std::cout << "the reference run failed at node '" << run.bFailure().nodeName << "': " << run.bFailure().message << "\n";
    if (outcome.reason == StopReason::Failed)
      std::cerr << "error: node '" << outcome.diagnosis.nodeName << "' (" << outcome.diagnosis.opType
                << "): " << outcome.diagnosis.message << "\n";
  }
  return diverged || nonfinite || outcome.reason == StopReason::Failed ? kProgramFault : kOk;
}

}  // namespace torchir::cli
