#include "PairedRun.h"

#include <algorithm>
#include <cmath>
#include <exception>

#include "compare/OutputSqnr.h"

namespace torchir {

double defaultTolerance(DType a, DType b) { return std::max(defaultTolerance(a), defaultTolerance(b)); }

double defaultTolerance(DType d) {
  switch (d) {
    case DType::Float64: return 1e-9;
    case DType::Float32: return 1e-3;
    case DType::Float16: return 1e-2;
    case DType::BFloat16: return 5e-2;
    default: return isFloating(d) ? 1e-1 : 0;  // float8: a tenth; integers and bool: equal
  }
}

/// The paired run's side of A's run loop: compares each node as it runs, stops where asked, and
/// passes the rest to the observer around it.
class PairedRun::Observer final : public RunObserver {
 public:
  Observer(PairedRun& run, CompareStop stop, RunObserver* outer) : m_run(run), m_stop(stop), m_outer(outer) {}

  bool cancelled() override { return m_outer && m_outer->cancelled(); }
  void beforeNode(NodeId next) override {
    if (m_outer) m_outer->beforeNode(next);
  }
  bool afterNode(NodeId node, Diagnosis& why) override {
    m_run.compareNode(node);
    if (m_outer && m_outer->afterNode(node, why)) return true;
    const NodeComparison* c = m_run.comparisonOf(node);
    if (!c) return false;
    const bool diverges = m_stop == CompareStop::Divergence && c->startsDivergence;
    const bool nonfinite = m_stop == CompareStop::Nonfinite && c->makesNonfinite;
    if (!diverges && !nonfinite) return false;
    const Program& p = m_run.m_a.program();
    const Node& n = p.node(node);
    const Value& out = p.value(n.outputs.at(static_cast<std::size_t>(c->output)));
    why = Diagnosis{};
    why.node = node;
    why.nodeName = n.name;
    why.opType = n.target;
    why.stackTrace = n.stackTraceText();
    if (nonfinite) {
      why.kind = DiagnosisClass::NanOrInf;
      why.message = "output '" + out.name + "' has " + std::to_string(c->metrics.nonfiniteA) +
                    " NaN or Inf values, from finite inputs";
      why.explanation = "This op makes the first non-finite value of the run; the nodes before it are its backward slice.";
    } else {
      why.kind = DiagnosisClass::Divergence;
      why.message = c->metrics.nonfiniteApart > 0
                        ? "output '" + out.name + "' has " + std::to_string(c->metrics.nonfiniteApart) +
                              " NaN or Inf values where the reference has others"
                        : "output '" + out.name + "' differs from the reference by " + metricText(c->metrics.maxRel) +
                              " (max relative; tolerance " + metricText(c->tolerance) + ")";
      const bool own = c->ownRel && *c->ownRel > c->tolerance;
      why.explanation = own ? "Run on this run's own inputs in the reference's setting, the op is off by " +
                                  metricText(*c->ownRel) + ": the error is the op's own, not inherited."
                            : "Its inputs agree with the reference's within the tolerance: the difference starts "
                              "here, from rounding the op amplifies (a cancellation, an overflow).";
    }
    return true;
  }

 private:
  PairedRun& m_run;
  CompareStop m_stop;
  RunObserver* m_outer;
};

PairedRun::PairedRun(Session& a, Session& b, NodeMatching matching, CompareOptions options,
                     std::shared_ptr<const ComparisonExtension> extension)
    : m_a(a),
      m_b(b),
      m_matching(std::move(matching)),
      m_options(options),
      m_extension(extension ? std::move(extension) : std::make_shared<const ComparisonExtension>()),
      m_index(a.program().nodes.size(), -1),
      m_valueDiverged(a.program().values.size(), 0),
      m_valueFinite(a.program().values.size(), -1) {}

StepOutcome PairedRun::run(CompareStop stop, RunObserver* outer) {
  Observer observer(*this, stop, outer);
  return m_a.run(&observer);
}

const NodeComparison* PairedRun::comparisonOf(NodeId a) const {
  if (a < 0 || static_cast<std::size_t>(a) >= m_index.size() || m_index[static_cast<std::size_t>(a)] < 0) return nullptr;
  return &m_nodes[static_cast<std::size_t>(m_index[static_cast<std::size_t>(a)])];
}

const NodeComparison* PairedRun::firstDivergence() const {
  for (const auto& c : m_nodes)
    if (c.startsDivergence) return &c;
  return nullptr;
}

const NodeComparison* PairedRun::firstNonfinite() const {
  for (const auto& c : m_nodes)
    if (c.makesNonfinite) return &c;
  return nullptr;
}

std::vector<NodeId> PairedRun::backwardSlice(NodeId node) const {
  const Program& p = m_a.program();
  std::vector<bool> in(p.nodes.size(), false);
  std::vector<NodeId> work{node};
  in[static_cast<std::size_t>(node)] = true;
  while (!work.empty()) {
    const Node& n = p.node(work.back());
    work.pop_back();
    for (ValueId v : valuesNamedBy(n)) {
      const NodeId producer = p.value(v).producer;
      if (producer == kNone || in[static_cast<std::size_t>(producer)]) continue;
      in[static_cast<std::size_t>(producer)] = true;
      work.push_back(producer);
    }
  }
  std::vector<NodeId> out;
  for (const Node& n : p.nodes)
    if (in[static_cast<std::size_t>(n.id)] && isOpNode(n)) out.push_back(n.id);
  return out;
}

bool PairedRun::inputsDiverged(const Node& na) const {
  for (ValueId v : valuesNamedBy(na))
    if (m_valueDiverged[static_cast<std::size_t>(v)]) return true;
  return false;
}

bool PairedRun::inputsFinite(const Node& na) {
  for (ValueId v : valuesNamedBy(na)) {
    int8_t& finite = m_valueFinite[static_cast<std::size_t>(v)];
    if (finite < 0) {
      const auto t = m_a.tensorView(v);
      finite = !t || countNonfinite(*t) == 0;
    }
    if (!finite) return false;
  }
  return true;
}

void PairedRun::compareNode(NodeId ia) {
  const Node& na = m_a.program().node(ia);
  const NodeId ib = m_matching.bOf.at(static_cast<std::size_t>(ia));
  if (!isOpNode(na) || ib == kNone) return;
  NodeComparison c;
  c.a = ia;
  c.b = ib;
  auto keep = [&] {
    m_index[static_cast<std::size_t>(ia)] = static_cast<int32_t>(m_nodes.size());
    m_nodes.push_back(std::move(c));
  };
  if (!m_bFailure.ok()) {
    c.problem = "the reference run failed before it, at node '" + m_bFailure.nodeName + "'";
    return keep();
  }
  if (!m_b.record(ib)) {
    const StepOutcome o = m_b.runTo(ib);
    if (o.reason == StopReason::Failed) {
      m_bFailure = o.diagnosis;
      c.problem = "the reference run failed at node '" + o.diagnosis.nodeName + "': " + o.diagnosis.message;
      return keep();
    }
    if (!m_b.record(ib)) {
      c.problem = "the reference run did not reach it (" + std::string(stopReasonName(o.reason)) + ")";
      return keep();
    }
  }
  const Node& nb = m_b.program().node(ib);
  std::optional<TensorData> worstA;
  double worst = -1;
  int64_t nonfiniteA = 0, nonfiniteB = 0, apart = 0;
  bool released = false;
  for (std::size_t i = 0; i < na.outputs.size() && i < nb.outputs.size(); ++i) {
    auto ta = m_a.tensorView(na.outputs[i]);
    auto tb = m_b.tensorView(nb.outputs[i]);
    if (!ta || !tb) {
      released = released || m_a.released(na.outputs[i]) || m_b.released(nb.outputs[i]);
      continue;
    }
    // integer codes compared with numbers: as the numbers they stand for, where the extension knows
    if (!isFloating(ta->dtype) && isFloating(tb->dtype))
      if (auto form = m_extension->comparedForm(m_a.program(), na.outputs[i], *ta)) ta = std::move(form);
    TensorMetrics m = compareTensors(*ta, *tb);
    if (!m.comparable()) m.nonfiniteA = countNonfinite(*ta), m.nonfiniteB = countNonfinite(*tb);
    nonfiniteA += m.nonfiniteA;
    nonfiniteB += m.nonfiniteB;
    apart += m.nonfiniteApart;
    m_valueFinite[static_cast<std::size_t>(na.outputs[i])] = m.nonfiniteA == 0;
    const double score = m.distance();
    if (score > worst) {
      worst = score;
      c.output = static_cast<int>(i);
      c.metrics = std::move(m);
      c.tolerance = m_options.tolerance > 0 ? m_options.tolerance
                                            : m_extension->tolerance(m_a.program(), na.outputs[i],
                                                                     defaultTolerance(ta->dtype, tb->dtype), c.metrics);
      worstA = std::move(ta);
    }
  }
  if (!worstA) {
    if (!released) return;  // no tensor output (a size, a token): nothing to compare
    c.problem = "its output is no longer held (the memory budget released it)";
    return keep();
  }
  c.metrics.nonfiniteA = nonfiniteA;
  c.metrics.nonfiniteB = nonfiniteB;
  c.metrics.nonfiniteApart = apart;
  c.diverges = !c.metrics.comparable() || c.metrics.maxRel > c.tolerance || c.metrics.nonfiniteApart > 0;
  c.makesNonfinite = nonfiniteA > 0 && inputsFinite(na);
  if (m_extension->alwaysMeasureOwnError(m_a.program(), na) || !c.metrics.comparable() || c.metrics.nonfiniteApart > 0 ||
      c.metrics.maxRel >= c.tolerance * m_options.ownErrorFrom)
    c.ownRel = ownError(na, ib, c.output, *worstA, c.ownProblem, c.ownSqnrDb);
  c.startsDivergence = c.diverges && (!inputsDiverged(na) || (c.ownRel && *c.ownRel > c.tolerance));
  for (ValueId v : na.outputs) m_valueDiverged[static_cast<std::size_t>(v)] = c.diverges;
  keep();
}

std::optional<double> PairedRun::ownError(const Node& na, NodeId ib, int output, const TensorData& outA,
                                          std::string& problem, std::optional<double>& sqnrDb) {
  const Node& nb = m_b.program().node(ib);
  std::optional<OwnErrorRun> how = m_extension->ownErrorRun(m_a, na, m_b, nb, m_matching);
  if (!how) {  // the reference's node on this run's values (a non-tensor keeps the reference's)
    const std::vector<ValueId> fromA = valuesNamedBy(na);
    how.emplace();
    if (fromA.size() != valuesNamedBy(nb).size()) how->problem = kArgumentsDiffer;
    else
      for (ValueId v : fromA) how->inputs.push_back(m_a.tensorView(v));
  }
  if (!how->problem.empty()) {
    problem = how->problem;
    return std::nullopt;
  }
  const bool own = how->side == OwnErrorRun::Side::Program;
  try {
    const auto outs = own ? m_a.rerunNode(na.id, how->inputs) : m_b.rerunNode(ib, how->inputs);
    const auto& out = outs.at(static_cast<std::size_t>(output));
    if (!out) {
      problem = own ? "the op made no tensor" : "the reference op made no tensor";
      return std::nullopt;
    }
    const TensorMetrics m = compareTensors(outA, *out);
    if (!m.comparable()) {
      problem = m.problem;
      return std::nullopt;
    }
    sqnrDb = m.sqnrDb;
    return m.nonfiniteApart > 0 ? INFINITY : m.maxRel;  // non-finite where the reference's op is not
  } catch (const std::exception& e) {
    problem = e.what();
    return std::nullopt;
  }
}

ComparisonRecord PairedRun::record(std::string reference, std::shared_ptr<const Program> referenceProgram) const {
  const Program& a = m_a.program();
  const Program& b = m_b.program();
  ComparisonRecord r;
  r.reference = std::move(reference);
  r.referenceProgram = std::move(referenceProgram);
  r.nodes = m_nodes;
  r.index(a.nodes.size());
  for (NodeId n : m_matching.unmatchedA) r.onlyInProgram.push_back(a.node(n).name);
  for (NodeId n : m_matching.unmatchedB) r.onlyInReference.push_back(b.node(n).name);
  if (!m_bFailure.ok()) r.referenceFailure = m_bFailure.nodeName + ": " + m_bFailure.message;
  if (m_a.finished() && m_b.finished()) {
    r.outputSqnrDb = outputSqnrDb(m_a, m_b, [this](ValueId v) { return m_a.tensorView(v); });
  }
  m_extension->annotate(r, a, b, m_matching);
  for (const auto& [nb, na] : m_matching.foldedB) r.foldedInReference.push_back(b.node(nb).name);
  if (const NodeComparison* bad = firstNonfinite()) {
    r.firstNonfinite = bad->a;
    r.nonfiniteSlice = backwardSlice(bad->a);  // in program order: sorted
  }
  return r;
}

}  // namespace torchir
