#include "ProgramCheck.h"

#include <algorithm>
#include <map>

#include "exec/AtenBackend.h"
#include "exec/Session.h"
#include "program/DType.h"
#include "formats/IrWriter.h"
#include "formats/WeightsFile.h"

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
    const InputSpec* spec = specOf(program, key);
    const NodeId node = spec ? program.value(spec->value).producer : kNone;
    const bool constant = spec && spec->kind == InputKind::TensorConstant;
    out.push_back(problemAt(program, Severity::Error, "missing data", node,
                            "'" + key + "' has no data (a meta-device export, or saved without it): supply it with " +
                                (constant ? "--constants FILE" : "--weights FILE")));
  }
  for (const WeightOfOtherDtype& w : weightsOfOtherDtype(program))
    out.push_back(problemAt(program, Severity::Warning, "weight dtype", placeholderOf(program, w.name),
                            "'" + w.name + "' is " + std::string(dtypeName(w.given)) + " in the weights given, " +
                                std::string(dtypeName(w.exported)) +
                                " in the export (--cast-weights casts them)"));
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
    out.push_back(problemAt(program, Severity::Warning, "input dtype", v.producer,
                            "input '" + v.name + "' is " + std::string(dtypeName(inputs[i].dtype)) +
                                ", the export recorded " + std::string(dtypeName(v.dtype))));
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

/// Ops whose output dtype is their own choice, not their inputs': what flows through them stops.
bool setsItsDtype(const std::string& target) {
  for (const char* op : {"aten._to_copy.", "aten.to.", "aten.type_as.", "aten.view_as_real.", "aten.view_as_complex."})
    if (target.rfind(op, 0) == 0) return true;
  return false;
}

/// Two floating dtypes as type promotion meets them: float64 over float32 over the 16-bit ones;
/// float16 and bfloat16 meet in float32.
DType promoted(DType a, DType b) {
  if (a == b) return a;
  if (a == DType::Float64 || b == DType::Float64) return DType::Float64;
  return DType::Float32;
}

/// Where a run would meet two floating dtypes at a matmul or convolution: the export recorded
/// them (x.half() before a float32 layer), or inputs and weights of other dtypes than the export's
/// carry theirs there, through the ops that keep their inputs' dtype. The first such node is
/// where the run stops.
void checkMixedFloatingDtypes(const Program& program, const std::vector<TensorData>* inputs, std::vector<Problem>& out) {
  std::vector<DType> given(program.values.size(), DType::Unknown);  // where the run's dtype differs
  auto carry = [&](ValueId id, DType dtype) {
    const Value& v = program.value(id);
    if (v.kind == ValueKind::Tensor && isFloating(dtype) && isFloating(v.dtype) && dtype != v.dtype)
      given[static_cast<std::size_t>(id)] = dtype;
  };
  if (inputs) {
    const std::vector<ValueId> ids = userInputs(program);
    for (std::size_t i = 0; i < ids.size() && i < inputs->size(); ++i) carry(ids[i], (*inputs)[i].dtype);
  }
  for (const WeightOfOtherDtype& w : weightsOfOtherDtype(program))
    if (const InputSpec* spec = specOf(program, w.name)) carry(spec->value, w.given);
  auto dtypeOf = [&](ValueId id) {
    const DType g = given[static_cast<std::size_t>(id)];
    return g != DType::Unknown ? g : program.value(id).dtype;
  };

  for (const Node& n : program.nodes) {
    if (!isOpNode(n)) continue;
    std::vector<ValueId> floating;
    for (const ValueId id : valuesNamedBy(n))
      if (program.value(id).kind == ValueKind::Tensor && isFloating(program.value(id).dtype)) floating.push_back(id);
    if (floating.empty()) continue;
    if (needsOneFloatingDtype(n.target)) {
      for (const ValueId id : floating) {
        if (dtypeOf(id) == dtypeOf(floating.front())) continue;
        auto named = [&](ValueId v) {
          return "'" + program.value(v).name + "' " + std::string(dtypeName(dtypeOf(v))) +
                 (given[static_cast<std::size_t>(v)] != DType::Unknown ? " (as given)" : "");
        };
        out.push_back(problemAt(program, Severity::Error, "dtype mismatch", n.id,
                                n.target + " takes " + named(floating.front()) + " and " + named(id) +
                                    ": it needs one dtype (cast one of them)"));
        return;  // the run stops here
      }
    }
    if (setsItsDtype(n.target)) continue;
    bool carried = false;
    DType dtype = dtypeOf(floating.front());
    for (const ValueId id : floating) {
      carried = carried || given[static_cast<std::size_t>(id)] != DType::Unknown;
      dtype = promoted(dtype, dtypeOf(id));
    }
    if (!carried) continue;
    for (const ValueId o : n.outputs) carry(o, dtype);
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

/// The ops the user's Python will run (named with --python or Preferences › Python): one note
/// per op, at its first node, with how many nodes call it.
static void checkPythonOps(const Program& program, const Session& session, std::vector<Problem>& out) {
  std::map<std::string, std::pair<NodeId, int>> byTarget;  // target -> first node, count
  std::map<std::string, std::string> where;
  for (const Node& n : program.nodes) {
    if (n.opcode != Opcode::CallFunction) continue;
    const std::string schema = session.plannedSchema(n.id);
    const auto mark = schema.find("  [run in ");
    const bool executor = schema.size() >= 17 && schema.compare(schema.size() - 17, 17, "(Python executor)") == 0;
    if (mark == std::string::npos && !executor) continue;
    auto [it, first] = byTarget.try_emplace(n.target, n.id, 0);
    ++it->second.second;
    if (first)
      where[n.target] = executor ? "in Python, as a pytorch-ir executor"
                                 : schema.substr(mark + 7, schema.size() - mark - 8);  // "in Python 3.11 (...)"
  }
  for (const auto& [target, at] : byTarget)
    out.push_back(problemAt(program, Severity::Info, "python op", at.first,
                            target + (at.second > 1 ? " (" + std::to_string(at.second) + " nodes)" : "") + " runs " +
                                where[target]));
}

std::vector<Problem> checkProgram(const Program& program, const Session& session,
                                  const std::vector<TensorData>* inputs) {
  std::vector<Problem> out;
  checkWeights(program, out);
  checkMixedFloatingDtypes(program, inputs, out);
  for (const Diagnosis& d : session.plannedProblems())
    out.push_back(problemAt(program, Severity::Error, std::string(diagnosisClassName(d.kind)), d.node, d.message));
  checkPythonOps(program, session, out);
  if (inputs) checkInputDtypes(program, *inputs, out);
  checkDynamicDimensions(program, out);
  checkConversion(program, out);
  std::stable_sort(out.begin(), out.end(), [](const Problem& a, const Problem& b) { return a.severity < b.severity; });
  return out;
}

std::vector<Problem> checkBeforeRunning(const Program& program, const std::vector<TensorData>* inputs) {
  const auto session = atenBackend().createSession(program);
  std::vector<Problem> problems = checkProgram(program, *session, inputs);
  if (!inputs) return problems;
  if (const Diagnosis refused = session->setInputs(*inputs); !refused.ok())
    problems.insert(problems.begin(), problemAt(program, Severity::Error, std::string(diagnosisClassName(refused.kind)),
                                                refused.node, refused.message));
  return problems;
}

bool stopsARun(const std::vector<Problem>& problems) {
  return std::any_of(problems.begin(), problems.end(), [](const Problem& p) { return p.severity == Severity::Error; });
}

}  // namespace torchir
