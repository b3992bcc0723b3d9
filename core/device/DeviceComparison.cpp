#include "DeviceComparison.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <set>

#include "compare/ComparisonRecord.h"
#include "compare/PairedRun.h"
#include "debug/Debugger.h"
#include "debug/Reference.h"

namespace torchir {
namespace {

bool integral(DType d) { return isIntegral(d) || d == DType::Bool; }

/// How many times the program's own float32 rounding (its distance from float64 at the node) a
/// device may differ by before it diverges: a float64 value made from float32 ones carries that.
constexpr double kFloorFactor = 10;

/// Device `a` against `b`: integers as codes (one step of rounding allowed), floats by max rel,
/// within the dtype's tolerance or kFloorFactor times the node's noise floor, the larger.
void judge(const TensorData& a, const TensorData& b, const std::optional<TensorMetrics>& floor, TensorMetrics& m,
           double& tolerance, bool& codes, bool& diverges) {
  m = compareTensors(a, b);
  codes = integral(a.dtype) && integral(b.dtype);
  tolerance = codes ? 1.0 : defaultTolerance(a.dtype, b.dtype);
  if (!codes && floor && floor->comparable() && std::isfinite(floor->maxRel))
    tolerance = std::max(tolerance, kFloorFactor * floor->maxRel);
  diverges = !m.comparable() || m.nonfiniteApart > 0 || (codes ? m.maxAbs > tolerance : m.maxRel > tolerance);
}

/// The instruction's Edge nodes that its output `target` is made of, within the instruction:
/// walked back from it, stopping at values another instruction's device output stands for.
std::vector<NodeId> localNodes(const Program& p, const DeviceInstruction& in, NodeId target, const DeviceRun& run) {
  const std::set<NodeId> mine(in.nodes.begin(), in.nodes.end());
  std::set<NodeId> seen;
  std::vector<NodeId> stack{target};
  while (!stack.empty()) {
    const NodeId n = stack.back();
    stack.pop_back();
    if (!seen.insert(n).second) continue;
    for (const auto& arg : p.nodes[n].inputs)
      for (ValueId v : arg.values) {
        const NodeId producer = p.values[v].producer;
        if (producer == kNone || !mine.count(producer)) continue;
        const DeviceInstruction* other = run.of(producer);
        if (other && other != &in) continue;  // the device's value of another instruction
        stack.push_back(producer);
      }
  }
  return {seen.begin(), seen.end()};  // sorted: program order
}

}  // namespace

std::string DeviceRow::causeText() const {
  switch (cause) {
    case Cause::Kernel: return "kernel, not upstream";
    case Cause::Upstream: return "upstream: its inputs were already wrong";
    case Cause::NotMeasured: break;
  }
  return causeProblem.empty() ? "" : "not measured: " + causeProblem;
}

DeviceComparisonStopped::DeviceComparisonStopped() : std::runtime_error("the comparison with the device's run was stopped") {}

DebugTarget deviceTarget(const EtRecord& record, const std::vector<TensorData>* inputs) {
  DebugTarget target;
  target.program = record.edge;
  target.path = record.path;
  if (inputs) {
    target.inputs.given = std::make_shared<const std::vector<TensorData>>(*inputs);
    target.inputs.givenDescription = "the inputs given";
  }
  return target;
}

DeviceComparison compareDevice(Debugger& debugger, const EtRecord& record, const EtDump& dump, const PteProgram* pte,
                               RunObserver* observer) {
  DeviceComparison out;
  out.method = record.method;
  const Program& p = debugger.program();
  out.run = pairDeviceRun(p, record, dump, pte);
  auto stopped = [&] {
    if (observer && observer->cancelled()) throw DeviceComparisonStopped();
  };
  ReferenceSpec spec;
  spec.floatingAs = DType::Float64;
  const DebugOutcome outcome = debugger.compare(spec, CompareStop::None, observer);
  if (outcome.comparison) out.referenceFailure = outcome.comparison->referenceFailure;
  if (outcome.reason == StopReason::Failed)
    out.referenceFailure = outcome.diagnosis.nodeName + ": " + outcome.diagnosis.message;
  if (outcome.reason == StopReason::Cancelled) throw DeviceComparisonStopped();
  Session& session = debugger.session();

  for (std::size_t i = 0; i < out.run.instructions.size(); ++i) {
    stopped();
    const DeviceInstruction& in = out.run.instructions[i];
    for (std::size_t o = 0; o < in.outputs.size(); ++o) {
      DeviceRow row;
      row.instruction = i;
      row.output = static_cast<int>(o);
      row.node = in.outputNodes[o];
      row.layer = row.node;
      for (auto n = in.nodes.rbegin(); row.node != kNone && n != in.nodes.rend(); ++n) {
        if (*n > row.node) continue;
        const auto& stack = p.nodes[*n].moduleStack;
        if (stack && !stack->empty()) {
          row.layer = *n;
          break;
        }
      }
      if (!in.problem.empty()) row.problem = in.problem;
      else if (row.node == kNone) row.problem = "none of its Edge nodes makes a " + std::string(dtypeName(in.outputs[o].dtype)) + sizesText(in.outputs[o].sizes);
      std::optional<TensorData> reference;
      if (row.problem.empty()) {
        const auto& outputs = p.nodes[row.node].outputs;
        row.nodeOutput = static_cast<int>(std::find(outputs.begin(), outputs.end(), in.outputValues[o]) - outputs.begin());
        reference = session.tensor(in.outputValues[o]);
        if (!reference)
          row.problem = "the engine's value of node '" + p.nodes[row.node].name + "' is not held (not reached, or released to stay within the memory budget)";
      }
      if (row.problem.empty()) {
        if (outcome.comparison)
          if (const NodeComparison* c = outcome.comparison->of(row.node); c && c->problem.empty()) row.floor = c->metrics;
        judge(in.outputs[o], *reference, row.floor, row.metrics, row.tolerance, row.codes, row.diverges);
      }
      out.rows.push_back(std::move(row));
    }
  }

  // Why each diverging row does: the instruction's nodes run again on the device's own values of
  // their inputs. If the device still differs, its kernel is wrong; if not, its inputs were.
  for (DeviceRow& row : out.rows) {
    if (!row.diverges) continue;
    stopped();
    const DeviceInstruction& in = out.run.instructions[row.instruction];
    try {
      std::map<ValueId, TensorData> local;
      for (NodeId n : localNodes(p, in, row.node, out.run)) {
        std::vector<std::optional<TensorData>> given;
        for (const auto& arg : p.nodes[n].inputs)
          for (ValueId v : arg.values) {
            if (auto it = local.find(v); it != local.end()) {
              given.emplace_back(it->second);
              continue;
            }
            // the device's value where another instruction's output is this value, else the run's
            const NodeId producer = p.values[v].producer;
            const DeviceInstruction* other = producer == kNone ? nullptr : out.run.of(producer);
            std::optional<TensorData> device;
            if (other && other != &in)
              for (std::size_t k = 0; k < other->outputValues.size() && k < other->outputs.size(); ++k)
                if (other->outputValues[k] == v && other->outputs[k].hasData()) device = other->outputs[k];
            given.push_back(std::move(device));
          }
        const auto outs = session.rerunNode(n, given);
        for (std::size_t k = 0; k < outs.size() && k < p.nodes[n].outputs.size(); ++k)
          if (outs[k]) local[p.nodes[n].outputs[k]] = *outs[k];
      }
      const auto made = local.find(in.outputValues[static_cast<std::size_t>(row.output)]);
      if (made == local.end()) throw std::runtime_error("the local run did not make the device's value");
      double tolerance = 0;
      bool codes = false, diverges = false;
      TensorMetrics m;
      judge(in.outputs[static_cast<std::size_t>(row.output)], made->second, row.floor, m, tolerance, codes, diverges);
      row.local = m;
      row.cause = diverges ? DeviceRow::Cause::Kernel : DeviceRow::Cause::Upstream;
    } catch (const std::exception& e) {
      row.causeProblem = e.what();
    }
  }
  // The first divergence: the first row, in the device's order, that goes wrong of its own (or
  // whose cause is not known); where every diverging row inherited (errors too small to diverge
  // before), the first diverging row.
  for (std::size_t r = 0; r < out.rows.size() && !out.firstDivergence; ++r)
    if (out.rows[r].diverges && out.rows[r].cause != DeviceRow::Cause::Upstream) out.firstDivergence = r;
  for (std::size_t r = 0; r < out.rows.size() && !out.firstDivergence; ++r)
    if (out.rows[r].diverges) out.firstDivergence = r;

  const auto reference = session.outputs();
  for (std::size_t i = 0; i < out.run.methodOutputs.size() && i < reference.size(); ++i)
    out.outputs.push_back(compareTensors(out.run.methodOutputs[i], reference[i]));
  return out;
}

}  // namespace torchir
