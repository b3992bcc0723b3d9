#include "ProgramCheck.h"

#include <algorithm>

#include "exec/Session.h"
#include "program/DType.h"
#include "program/IrWriter.h"
#include "program/WeightsFile.h"

namespace torchir {
namespace {

/// How weight, buffer or constant `key` enters the graph.
const InputSpec* specOf(const Program& program, const std::string& key) {
  for (const InputSpec& spec : program.inputs)
    if (spec.kind != InputKind::UserInput && spec.target == key) return &spec;
  return nullptr;
}

/// The placeholder that carries it.
NodeId placeholderOf(const Program& program, const std::string& key) {
  const InputSpec* spec = specOf(program, key);
  return spec ? program.value(spec->value).producer : kNone;
}

Problem problemAt(const Program& program, Severity severity, std::string kind, NodeId node, std::string message) {
  Problem p{severity, std::move(kind), node, {}, std::move(message)};
  if (node != kNone) p.nodeName = program.node(node).name;
  return p;
}

std::string rangeText(const SymbolRange& r) {
  return "[" + (r.min ? std::to_string(*r.min) : std::string("-inf")) + ", " +
         (r.max ? std::to_string(*r.max) : std::string("inf")) + "]";
}

void checkWeights(const Program& program, std::vector<Problem>& out) {
  for (const std::string& key : program.missingData()) {
    const NodeId node = placeholderOf(program, key);
    const InputSpec* spec = specOf(program, key);
    const bool constant = spec && spec->kind == InputKind::TensorConstant;
    out.push_back(problemAt(program, Severity::Error, "missing data", node,
                            "'" + key + "' has no data (a meta-device export, or saved without it): supply it with " +
                                (constant ? "--constants FILE" : "--weights FILE")));
  }
  for (const WeightOfOtherDtype& w : weightsOfOtherDtype(program))
    out.push_back(problemAt(program, Severity::Error, "weight dtype", placeholderOf(program, w.name),
                            "'" + w.name + "' is " + std::string(dtypeName(w.given)) + " in the weights given, " +
                                std::string(dtypeName(w.exported)) +
                                " in the export: an op that mixes them fails (--cast-weights casts them)"));
}

std::vector<ValueId> userInputs(const Program& program) {
  std::vector<ValueId> ids;
  for (const InputSpec& spec : program.inputs)
    if (spec.kind == InputKind::UserInput) ids.push_back(spec.value);
  return ids;
}

void checkDynamicDimensions(const Program& program, std::vector<Problem>& out) {
  for (const ValueId id : userInputs(program)) {
    const Value& v = program.value(id);
    for (std::size_t k = 0; k < v.shape.size(); ++k) {
      const Dim& dim = v.shape[k];
      if (!dim.isSymbolic()) continue;
      const auto range = program.symbolRanges.find(dim.expr);
      out.push_back(problemAt(program, Severity::Info, "dynamic dimension", v.producer,
                              "input '" + v.name + "' dimension " + std::to_string(k) + " is " + dim.expr +
                                  (range == program.symbolRanges.end() ? std::string(", unbounded")
                                                                       : ", in " + rangeText(range->second)) +
                                  " (exported at " + std::to_string(dim.hint) + ")"));
    }
  }
}

void checkInputDtypes(const Program& program, const std::vector<TensorData>& inputs, std::vector<Problem>& out) {
  const std::vector<ValueId> ids = userInputs(program);
  for (std::size_t i = 0; i < ids.size() && i < inputs.size(); ++i) {
    const Value& v = program.value(ids[i]);
    if (v.kind != ValueKind::Tensor || v.dtype == DType::Unknown || inputs[i].dtype == v.dtype) continue;
    out.push_back(problemAt(program, Severity::Error, "input dtype", v.producer,
                            "input '" + v.name + "' is " + std::string(dtypeName(inputs[i].dtype)) +
                                ", the export recorded " + std::string(dtypeName(v.dtype)) +
                                ": an op that mixes it with the program's weights fails"));
  }
}

/// Ops whose CPU kernels take one floating dtype for all their tensors and do not promote.
bool needsOneFloatingDtype(const std::string& target) {
  static const std::vector<std::string> kOps = {
      "aten.linear.", "aten.mm.", "aten.bmm.", "aten.matmul.", "aten.addmm.", "aten.baddbmm.", "aten.addmv.",
      "aten.mv.", "aten.conv1d.", "aten.conv2d.", "aten.conv3d.", "aten.convolution.", "aten._convolution.",
      "aten.conv_transpose1d.", "aten.conv_transpose2d.", "aten.conv_transpose3d."};
  return std::any_of(kOps.begin(), kOps.end(), [&](const std::string& op) { return target.rfind(op, 0) == 0; });
}

/// A matmul or convolution whose tensors the export recorded in two floating dtypes (x.half()
/// before a float32 layer): it fails when run.
void checkMixedFloatingDtypes(const Program& program, std::vector<Problem>& out) {
  for (const Node& n : program.nodes) {
    if (!isOpNode(n) || !needsOneFloatingDtype(n.target)) continue;
    const Value* first = nullptr;
    for (const ValueId id : valuesNamedBy(n)) {
      const Value& v = program.value(id);
      if (v.kind != ValueKind::Tensor || !isFloating(v.dtype)) continue;
      if (!first) {
        first = &v;
      } else if (v.dtype != first->dtype) {
        out.push_back(problemAt(program, Severity::Error, "dtype mismatch", n.id,
                                n.target + " takes '" + first->name + "' " + std::string(dtypeName(first->dtype)) +
                                    " and '" + v.name + "' " + std::string(dtypeName(v.dtype)) +
                                    ": it needs one dtype (cast one of them)"));
        break;
      }
    }
  }
}

void checkConversion(const Program& program, std::vector<Problem>& out) {
  if (program.source.format != "pt2") return;
  if (const std::string refusal = conversionRefusal(program); !refusal.empty())
    out.push_back(problemAt(program, Severity::Info, "not convertible", kNone,
                            "pytorch-ir's conversion refuses it: " + refusal));
}

}  // namespace

std::string_view severityName(Severity s) {
  switch (s) {
    case Severity::Error: return "error";
    case Severity::Warning: return "warning";
    case Severity::Info: return "info";
  }
  return "?";
}

std::vector<Problem> checkProgram(const Program& program, const Session& session,
                                  const std::vector<TensorData>* inputs) {
  std::vector<Problem> out;
  checkWeights(program, out);
  checkMixedFloatingDtypes(program, out);
  for (const Diagnosis& d : session.plannedProblems())
    out.push_back(problemAt(program, Severity::Error, std::string(diagnosisClassName(d.kind)), d.node, d.message));
  if (inputs) checkInputDtypes(program, *inputs, out);
  checkDynamicDimensions(program, out);
  checkConversion(program, out);
  std::stable_sort(out.begin(), out.end(), [](const Problem& a, const Problem& b) { return a.severity < b.severity; });
  return out;
}

std::optional<Problem> inputsProblem(const Program& program, Session& session, const std::vector<TensorData>& inputs) {
  const Diagnosis d = session.setInputs(inputs);
  if (d.ok()) return std::nullopt;
  return problemAt(program, Severity::Error, std::string(diagnosisClassName(d.kind)), d.node, d.message);
}

bool stopsARun(const std::vector<Problem>& problems) {
  return std::any_of(problems.begin(), problems.end(), [](const Problem& p) { return p.severity == Severity::Error; });
}

}  // namespace torchir
