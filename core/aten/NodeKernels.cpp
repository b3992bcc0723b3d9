#include "NodeKernels.h"

#include <ATen/ATen.h>

#include <chrono>
#include <cmath>

#include "CustomKernel.h"
#include "IValueSummary.h"
#include "IrCallPlanner.h"
#include "OperatorLookup.h"
#include "PythonOps.h"
#include "program/PythonModuleHints.h"
#include "program/QuantOps.h"
#include "SubclassKernels.h"
#include "SymbolicKernels.h"
#include "TensorBridge.h"

namespace torchir {
namespace {

using Clock = std::chrono::steady_clock;

double microsecondsSince(Clock::time_point t0) {
  return std::chrono::duration<double, std::micro>(Clock::now() - t0).count();
}

/// The arguments a schema's alias info marks as written (`Tensor(a!)`), by index.
std::vector<std::size_t> writtenBy(const c10::FunctionSchema& schema) {
  std::vector<std::size_t> written;
  for (std::size_t i = 0; i < schema.arguments().size(); ++i)
    if (const c10::AliasInfo* a = schema.arguments()[i].alias_info(); a && a->isWrite()) written.push_back(i);
  return written;
}

/// Placeholders, a .pt2's getitems (they only name an output of the op before them), the output.
class NoWorkKernel final : public NodeKernel {
 public:
  bool doesWork() const override { return false; }
  void run(FrameValues&, torch::jit::Stack&, NodeRun&) override {}
};

class UnsupportedKernel final : public NodeKernel {
 public:
  UnsupportedKernel(KernelProblem problem, std::string schema = {})
      : m_problem(std::move(problem)), m_schema(std::move(schema)) {}
  std::string schema() const override { return m_schema; }
  const KernelProblem* problem() const override { return &m_problem; }
  void run(FrameValues&, torch::jit::Stack&, NodeRun&) override { throw std::runtime_error(m_problem.message); }

 private:
  KernelProblem m_problem;
  std::string m_schema;
};

/// A call whose arguments were planned once (CallPlan): the argument view is the plan's records,
/// with the run's values where they come from the frame.
class PlannedKernel : public NodeKernel {
 public:
  PlannedKernel(CallPlan plan, std::string schema) : m_plan(std::move(plan)), m_schema(std::move(schema)) {}
  std::string schema() const override { return m_schema; }
  std::vector<ArgumentRecord> arguments(const NodeRun& run) const override { return argumentsSoFar(run.args); }
  std::vector<ArgumentRecord> argumentsSoFar(const std::vector<c10::IValue>& values) const override {
    std::vector<ArgumentRecord> out = m_plan.records;
    for (std::size_t i = 0; i < out.size() && i < values.size(); ++i)
      if (!isPlanConstant(m_plan.args[i])) out[i].value = summarize(values[i]);
    for (const auto& [i, patch] : m_patches) {
      if (i < values.size()) out[i].value = summarize(values[i]);
      out[i].source = ArgSource::Patched;
      out[i].sourceDetail = describePatch(patch) + (out[i].sourceDetail.empty() ? "" : " (was " + out[i].sourceDetail + ")");
    }
    return out;
  }

  void setPatches(const std::vector<ArgumentPatch>& patches) override {
    std::vector<std::pair<std::size_t, ArgumentPatch>> resolved;
    for (const ArgumentPatch& p : patches) {
      std::size_t i = 0;
      while (i < m_plan.records.size() && m_plan.records[i].name != p.argument) ++i;
      if (i == m_plan.records.size()) throw std::invalid_argument("the call has no argument '" + p.argument + "'");
      // a number export put in a Tensor slot (mul(x, 0.001)) is edited as a number
      const std::string& kind = m_plan.records[i].value.kind;
      const bool number = m_plan.args[i].kind == ArgPlan::WrappedNumber ||
                          (isPlanConstant(m_plan.args[i]) && (kind == "float" || kind == "int" || kind == "bool"));
      const bool tensor = m_plan.records[i].declaredType.find("Tensor") != std::string::npos && !number;
      if (tensor == (p.kind == ArgumentPatch::Kind::Scalar))
        throw std::invalid_argument("'" + p.argument + "' is " + m_plan.records[i].declaredType + ": " +
                                    (tensor ? "cast, fill or replace it" : "give it a number"));
      resolved.emplace_back(i, p);
    }
    m_patches = std::move(resolved);
  }

 protected:
  /// Pushes the call's arguments, the user's changes made, and keeps them (references) for the
  /// record, before the call consumes them.
  void push(const FrameValues& frame, torch::jit::Stack& stack, NodeRun& run) const {
    stack.reserve(m_plan.args.size());
    pushArguments(m_plan, frame, stack);
    for (const auto& [i, patch] : m_patches)
      stack.at(i) = patch.kind == ArgumentPatch::Kind::FromValue ? fromValue(frame, patch)
                                                                   : patched(stack.at(i), patch, m_plan.records[i].declaredType);
    run.args.assign(stack.begin(), stack.end());
  }
  CallPlan m_plan;
  std::string m_schema;
  std::vector<std::pair<std::size_t, ArgumentPatch>> m_patches;  // by argument index

 private:
  /// The run's value a FromValue change takes, as it is now.
  static c10::IValue fromValue(const FrameValues& frame, const ArgumentPatch& p) {
    if (p.source < 0 || static_cast<std::size_t>(p.source) >= frame.size())
      throw std::invalid_argument("'" + p.argument + "' is taken from a value the program does not have");
    const c10::IValue& v = frame[static_cast<std::size_t>(p.source)];
    if (!v.isTensor()) throw MissingValue(p.source);
    return v;
  }

  static c10::IValue patched(const c10::IValue& v, const ArgumentPatch& p, const std::string& declared) {
    switch (p.kind) {
      case ArgumentPatch::Kind::Scalar:
        if (v.isTensor()) {  // a number in a Tensor slot: a wrapped number, as the dispatcher makes one
          at::Tensor t = at::scalar_tensor(p.value, v.toTensor().options());
          t.unsafeGetTensorImpl()->set_wrapped_number(true);
          return t;
        }
        if (declared.rfind("bool", 0) == 0) return c10::IValue(p.value != 0);
        if (declared.rfind("int", 0) == 0 || declared.rfind("SymInt", 0) == 0 || v.isInt())
          return c10::IValue(static_cast<int64_t>(std::llround(p.value)));
        return c10::IValue(p.value);
      case ArgumentPatch::Kind::Cast:
        if (!v.isTensor()) throw std::invalid_argument("'" + p.argument + "' holds no tensor to cast");
        return v.toTensor().to(static_cast<at::ScalarType>(p.dtype));
      case ArgumentPatch::Kind::Fill:
        if (!v.isTensor()) throw std::invalid_argument("'" + p.argument + "' holds no tensor to fill");
        return at::full_like(v.toTensor(), p.value);
      case ArgumentPatch::Kind::Replace: {
        at::Tensor t = toAten(p.tensor).clone();
        return v.isTensor() ? t.to(v.toTensor().device()) : t;
      }
      case ArgumentPatch::Kind::FromValue:
        break;  // read from the frame by push
    }
    return v;
  }
};

/// An op the dispatcher holds, called boxed.
class DispatcherKernel final : public PlannedKernel {
 public:
  /// `program`: non-null for an op run in Python, whose outputs are held to what export recorded.
  DispatcherKernel(const Node& n, c10::OperatorHandle op, CallPlan plan, bool ir, const Program* program = nullptr)
      : PlannedKernel(std::move(plan), toString(op.schema()) + (program ? "  [run in " + pythonHostLabel() + "]" : "")),
        m_node(n), m_op(std::move(op)), m_ir(ir), m_python(program), m_written(writtenBy(m_op.schema())) {}

  std::vector<std::size_t> writtenArguments() const override { return m_written; }
  bool declaresItsWrites() const override {
    if (m_python) return false;
    const std::string& name = m_op.schema().name();
    // the quantization ops outside ATen run here natively, and write nothing
    if (quantRole(m_node.target) != QuantRole::None) return true;
    return name.rfind("aten::", 0) == 0 && name.find("_norm") == std::string::npos;
  }
  bool pure() const override {
    if (!declaresItsWrites() || !m_written.empty() || m_op.schema().is_mutable()) return false;
    if (m_op.hasTag(at::Tag::nondeterministic_seeded)) return false;  // rand, dropout, bernoulli
    const std::string& name = m_op.schema().name();
    // done for what they check or print, not for their result
    for (const char* effect : {"_assert", "_print", "sym_constrain", "_make_dep_token"})
      if (name.find(effect) != std::string::npos) return false;
    return true;
  }
  bool outputsMayAlias() const override {
    if (m_python) return true;
    for (const c10::Argument& r : m_op.schema().returns())
      if (r.alias_info()) return true;
    return false;
  }
  void gather(FrameValues& frame, torch::jit::Stack& stack, NodeRun& run) const override {
    push(frame, stack, run);
    stack.clear();
  }

  void run(FrameValues& frame, torch::jit::Stack& stack, NodeRun& run) override {
    push(frame, stack, run);
    const auto t0 = Clock::now();  // the op's own time: the boxed call alone
    m_op.callBoxed(stack);
    run.microseconds = microsecondsSince(t0);
    if (m_ir) storeIrReturns(frame, stack);
    else storeReturns(frame, stack);
    if (m_python) checkAgainstExport(frame);
  }

 private:
  /// An op run in Python that got the dtypes export recorded and returned others: its Python
  /// disagrees with the meta function export traced (a user's switch to half is not this).
  void checkAgainstExport(const FrameValues& frame) const {
    const Program& p = *m_python;
    for (const auto& a : m_node.inputs)
      for (ValueId v : a.values) {
        const c10::IValue& iv = frame[static_cast<std::size_t>(v)];
        if (v >= 0 && iv.isTensor() && p.value(v).dtype != DType::Unknown &&
            static_cast<DType>(iv.toTensor().scalar_type()) != p.value(v).dtype)
          return;
      }
    for (ValueId v : m_node.outputs) {
      const Value& value = p.value(v);
      const c10::IValue& iv = frame[static_cast<std::size_t>(v)];
      if (!iv.isTensor() || value.kind != ValueKind::Tensor) continue;
      const at::Tensor& t = iv.toTensor();
      const auto dtype = static_cast<DType>(t.scalar_type());
      bool sameShape = value.shape.size() == static_cast<std::size_t>(t.dim());
      for (std::size_t i = 0; sameShape && i < value.shape.size(); ++i)
        sameShape = value.shape[i].isSymbolic() || value.shape[i].hint == t.size(static_cast<int64_t>(i));
      if (value.dtype != DType::Unknown && dtype != value.dtype)
        throw PythonCallError("the op returned " + std::string(dtypeName(dtype)) + " for '" + value.name +
                              "'; export recorded " + std::string(dtypeName(value.dtype)) +
                              " (its Python disagrees with the fake it was exported with)");
      if (!sameShape)
        throw PythonCallError("the op returned '" + value.name + "' in a shape other than the one export recorded "
                              "(its Python disagrees with the fake it was exported with)");
    }
  }

  void storeReturns(FrameValues& frame, torch::jit::Stack& stack) const {
    const Node& n = m_node;
    if (n.outputs.empty()) return;
    if (!n.returnsTuple) {
      frame[static_cast<std::size_t>(n.outputs[0])] = std::move(stack.at(0));
      return;
    }
    if (stack.size() == 1 && stack[0].isList()) {  // one Tensor[] return, picked apart by getitem nodes
      const auto list = stack[0].toListRef();
      for (std::size_t i = 0; i < n.outputs.size() && i < list.size(); ++i)
        frame[static_cast<std::size_t>(n.outputs[i])] = list[i];
      return;
    }
    for (std::size_t i = 0; i < n.outputs.size() && i < stack.size(); ++i)
      frame[static_cast<std::size_t>(n.outputs[i])] = std::move(stack[i]);
  }

  /// An IR node lists only its tensor results, in order (pytorch-ir keeps the tensors of a tuple
  /// or list return): topk -> topk_0, topk_1; split -> split_0, split_1, ...
  void storeIrReturns(FrameValues& frame, torch::jit::Stack& stack) const {
    std::vector<c10::IValue> tensors;
    for (auto& v : stack) {
      if (v.isTensor()) tensors.push_back(std::move(v));
      else if (v.isList())
        for (const auto& e : v.toListRef())
          if (e.isTensor()) tensors.push_back(e);
    }
    for (std::size_t i = 0; i < m_node.outputs.size() && i < tensors.size(); ++i)
      frame[static_cast<std::size_t>(m_node.outputs[i])] = std::move(tensors[i]);
  }

  const Node& m_node;
  c10::OperatorHandle m_op;
  bool m_ir;
  const Program* m_python;
  std::vector<std::size_t> m_written;
};

/// The IR's getitem copies one output of its producer into a value of its own.
class IrGetItemKernel final : public PlannedKernel {
 public:
  IrGetItemKernel(const Node& n, CallPlan plan)
      : PlannedKernel(std::move(plan), "getitem(Tensor[] outputs, int index) -> Tensor"), m_node(n) {}
  void run(FrameValues& frame, torch::jit::Stack& stack, NodeRun& run) override {
    push(frame, stack, run);
    frame[static_cast<std::size_t>(m_node.outputs.at(0))] = stack[0].toListRef()[static_cast<std::size_t>(stack[1].toInt())];
  }

 private:
  const Node& m_node;
};

/// Python's operator/math functions on SymInts.
class SymbolicKernel final : public NodeKernel {
 public:
  explicit SymbolicKernel(const Node& n) : m_node(n) {}
  void run(FrameValues& frame, torch::jit::Stack&, NodeRun& run) override {
    NodeRecord record;
    const auto t0 = Clock::now();
    runSymbolic(m_node, frame, record);
    run.microseconds = microsecondsSince(t0);
    run.ownArgs = std::move(record.arguments);
  }

 private:
  const Node& m_node;
};

/// A registered custom executor (it wins over the dispatcher, as in pytorch-ir).
class CustomExecutorKernel final : public NodeKernel {
 public:
  CustomExecutorKernel(const Program& p, const Node& n, Executor executor)
      : m_program(p), m_node(n), m_executor(std::move(executor)), m_origin(executorOrigin(n.target)) {}
  std::string schema() const override { return m_node.target + " (" + m_origin + ")"; }
  void run(FrameValues& frame, torch::jit::Stack&, NodeRun& run) override {
    const auto t0 = Clock::now();
    runCustomExecutor(m_executor, m_program, m_node, frame, run.ownArgs);
    run.microseconds = microsecondsSince(t0);
  }

 private:
  const Program& m_program;
  const Node& m_node;
  Executor m_executor;
  std::string m_origin;  // "custom executor", "Python executor"
};

/// cond, while_loop, wrap_with_set_grad_enabled, auto_functionalized: HigherOrderKernels.
class HigherOrderNodeKernel final : public NodeKernel {
 public:
  HigherOrderNodeKernel(const Program& p, const Node& n, std::shared_ptr<HigherOrderKernel> hop)
      : m_program(p), m_node(n), m_hop(std::move(hop)) {}
  std::string schema() const override { return m_hop->schema(); }
  void run(FrameValues& frame, torch::jit::Stack&, NodeRun& run) override {
    NodeRecord record;
    const auto t0 = Clock::now();
    std::vector<c10::IValue> results = m_hop->run(frame, record);
    run.microseconds = microsecondsSince(t0);
    run.ownArgs = std::move(record.arguments);
    for (ValueId v : m_node.outputs) {  // the getitem values pick the results by output index
      const auto i = static_cast<std::size_t>(m_program.value(v).outputIndex);
      if (i < results.size()) frame[static_cast<std::size_t>(v)] = results[i];
    }
  }
  std::vector<InnerRecord> inner() const override { return m_hop->lastRun(); }  // as the last run left them

 private:
  const Program& m_program;
  const Node& m_node;
  std::shared_ptr<HigherOrderKernel> m_hop;
};

/// Quantization in a shadow run at another floating dtype (SessionOptions::floatingAs) keeps the
/// dtypes it was exported with: its floating inputs go in as export recorded them
/// (quantize_per_tensor asserts float32) and its floating outputs come back at the shadow's dtype.
/// So the reference quantizes as the program does, and only the arithmetic around it is more
/// precise.
class ExportDtypeKernel final : public NodeKernel {
 public:
  ExportDtypeKernel(const Program& p, const Node& n, std::unique_ptr<NodeKernel> inner, DType shadow)
      : m_program(p), m_node(n), m_inner(std::move(inner)), m_shadow(static_cast<at::ScalarType>(shadow)) {}
  std::string schema() const override { return m_inner->schema(); }
  std::vector<std::size_t> writtenArguments() const override { return m_inner->writtenArguments(); }
  bool declaresItsWrites() const override { return m_inner->declaresItsWrites(); }
  bool pure() const override { return m_inner->pure(); }
  bool outputsMayAlias() const override { return m_inner->outputsMayAlias(); }
  void gather(FrameValues& frame, torch::jit::Stack& stack, NodeRun& run) const override {
    withRecordedDtypes(frame, [&] { m_inner->gather(frame, stack, run); });
  }
  const KernelProblem* problem() const override { return m_inner->problem(); }
  std::vector<ArgumentRecord> arguments(const NodeRun& run) const override { return m_inner->arguments(run); }
  std::vector<ArgumentRecord> argumentsSoFar(const std::vector<c10::IValue>& values) const override {
    return m_inner->argumentsSoFar(values);
  }
  void setPatches(const std::vector<ArgumentPatch>& patches) override { m_inner->setPatches(patches); }

  void run(FrameValues& frame, torch::jit::Stack& stack, NodeRun& run) override {
    withRecordedDtypes(frame, [&] { m_inner->run(frame, stack, run); });
    for (ValueId v : m_node.outputs) {
      c10::IValue& slot = frame[static_cast<std::size_t>(v)];
      if (slot.isTensor() && at::isFloatingType(slot.toTensor().scalar_type()) && slot.toTensor().scalar_type() != m_shadow)
        slot = slot.toTensor().to(m_shadow);
    }
  }

 private:
  /// Calls `call` with the node's floating inputs in the frame at the dtypes export recorded, and
  /// puts the frame's own values back after.
  template <class Call>
  void withRecordedDtypes(FrameValues& frame, Call&& call) const {
    std::vector<std::pair<std::size_t, c10::IValue>> shadowed;  // the frame's own values, put back after
    for (const auto& a : m_node.inputs)
      for (ValueId v : a.values) {
        if (v < 0) continue;
        const Value& value = m_program.value(v);
        c10::IValue& slot = frame[static_cast<std::size_t>(v)];
        if (value.kind != ValueKind::Tensor || !isFloating(value.dtype) || !slot.isTensor()) continue;
        const auto recorded = static_cast<at::ScalarType>(value.dtype);
        if (slot.toTensor().scalar_type() == recorded) continue;
        shadowed.emplace_back(static_cast<std::size_t>(v), slot);
        slot = slot.toTensor().to(recorded);
      }
    auto restore = [&] {
      for (auto& [v, original] : shadowed) frame[v] = std::move(original);
    };
    try {
      call();
    } catch (...) {
      restore();
      throw;
    }
    restore();
  }

  const Program& m_program;
  const Node& m_node;
  std::unique_ptr<NodeKernel> m_inner;
  at::ScalarType m_shadow;
};

std::unique_ptr<NodeKernel> irGetItemKernel(const Program& p, const Node& n) {
  try {
    return std::make_unique<IrGetItemKernel>(n, planIrGetItem(p, n));
  } catch (const std::exception& e) {
    return std::make_unique<UnsupportedKernel>(KernelProblem{DiagnosisClass::RuntimeError, e.what(), {}},
                                               "getitem(Tensor[] outputs, int index) -> Tensor");
  }
}


/// Why the dispatcher has no kernel for `n`: the op's name, the modules the program points to and,
/// when a Python is named, those whose source defines it, which the diagnosis offers to import.
KernelProblem missingOperator(const Program& p, const Node& n) {
  const std::string qualified = qualifiedOperatorName(n.target);  // "ns::name.overload"
  if (qualified == n.target) return {DiagnosisClass::OpNotFound, "'" + n.target + "' is not an operator the dispatcher knows", {}};
  const std::string op = qualified.substr(0, qualified.find('.', qualified.find("::")));
  const std::vector<std::string> hints = pythonModulesNamedFor(p, n.target);
  std::string pointsTo;
  for (const std::string& m : hints) pointsTo += (pointsTo.empty() ? "the program points to " : ", ") + m;
  const std::string python = operatorProblem(n.target);
  KernelProblem k{DiagnosisClass::OpNotFound, "the dispatcher has no operator " + qualified, {}};
  if (python.empty()) {
    k.message += " (an op defined in Python" + (pointsTo.empty() ? "" : "; " + pointsTo) +
                 ": name a Python whose modules define it with --python PATH --python-import MODULE; or a custom op "
                 "whose library is not loaded, or an op of another torch version)";
    return k;
  }
  k.message += " and the Python named does not define it: " + python;
  const PythonOpSources sources = pythonModulesDefining(op, hints, libraryPackagesFor(n.target, hints));
  k.pythonImports = sources.defining;
  if (!k.pythonImports.empty())
    k.message += "; " + k.pythonImports.front() + " defines it: add --python-import " + k.pythonImports.front();
  else if (!sources.naming.empty())
    k.message += "; no module the program points to defines it, though " + sources.naming.front() +
                 " names it: try --python-import " + sources.naming.front();
  else if (!pointsTo.empty())
    k.message += "; " + pointsTo + ", and none of their sources defines it";
  return k;
}

}  // namespace

std::unique_ptr<NodeKernel> unsupportedKernel(KernelProblem problem, std::string schema) {
  return std::make_unique<UnsupportedKernel>(std::move(problem), std::move(schema));
}

std::unique_ptr<NodeKernel> resolveNodeKernel(const Program& p, const Node& n, const MakeSubgraphRunner& make,
                                              MissingOperators& missing,
                                              DType floatingAs) {
  const bool ir = p.source.format == "ir-json";
  if (isGetItem(n) && ir) return irGetItemKernel(p, n);
  if (n.opcode != Opcode::CallFunction || isGetItem(n)) return std::make_unique<NoWorkKernel>();
  if (auto custom = findExecutor(n.target)) return std::make_unique<CustomExecutorKernel>(p, n, std::move(*custom));
  if (isSymbolicTarget(n.target)) return std::make_unique<SymbolicKernel>(n);
  if (isSubclassInnerTarget(n.target)) return subclassInnerKernel(p, n);
  if (!ir && isHigherOrderTarget(n.target)) {  // the IR JSON keeps no subgraphs: diagnosed below
    auto hop = resolveHigherOrder(p, n, make);
    if (auto* problem = std::get_if<HigherOrderProblem>(&hop))
      return std::make_unique<UnsupportedKernel>(KernelProblem{problem->kind, problem->message, {}});
    return std::make_unique<HigherOrderNodeKernel>(p, n, std::get<std::shared_ptr<HigherOrderKernel>>(std::move(hop)));
  }
  auto op = findOperator(n.target);
  if (!op) {
    if (isHigherOrderTarget(n.target))
      return std::make_unique<UnsupportedKernel>(
          KernelProblem{DiagnosisClass::UnsupportedHigherOrderOp, "the higher-order op " + n.target + " has no kernel yet", {}});
    auto known = missing.find(n.target);
    if (known == missing.end()) known = missing.emplace(n.target, missingOperator(p, n)).first;
    return std::make_unique<UnsupportedKernel>(known->second);
  }
  try {
    CallPlan plan = ir ? planIrCall(p, n, op->schema()) : planCall(p, n, op->schema());
    const Program* inPython = isPythonOperator(*op) ? &p : nullptr;  // checked against export's record, marked
    if (floatingAs != DType::Unknown && quantRole(n.target) != QuantRole::None)
      return std::make_unique<ExportDtypeKernel>(
          p, n, std::make_unique<DispatcherKernel>(n, *op, std::move(plan), ir, inPython), floatingAs);
    if (floatingAs != DType::Unknown) shadowFloatingDtypes(plan, floatingAs);
    return std::make_unique<DispatcherKernel>(n, *op, std::move(plan), ir, inPython);
  } catch (const std::exception& e) {
    return std::make_unique<UnsupportedKernel>(
        KernelProblem{DiagnosisClass::RuntimeError, std::string("cannot rebuild the call: ") + e.what(), {}},
        toString(op->schema()));
  }
}

}  // namespace torchir
