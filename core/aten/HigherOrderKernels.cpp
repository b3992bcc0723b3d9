#include "HigherOrderKernels.h"

#include <ATen/ATen.h>
#include <ATen/autocast_mode.h>
#include <ATen/native/TypeProperties.h>

#include "AutocastScope.h"
#include "IValueSummary.h"
#include "OperatorLookup.h"

namespace torchir {
namespace {

/// A while_loop that never ends is a bug in the program or its inputs; stop and say so.
constexpr int64_t kMaxLoopIterations = 1'000'000;

/// The values an argument passes, in order: tensors and symbols from the frame, numbers as given.
std::vector<c10::IValue> operandValues(const NodeArgument& a, const FrameValues& frame) {
  auto fromFrame = [&](ValueId v) -> c10::IValue {
    const c10::IValue& iv = frame[static_cast<std::size_t>(v)];
    if (iv.isNone()) throw MissingValue(v);
    return iv;
  };
  auto symbol = [&](const auto& s) { return s.isValue() ? fromFrame(s.value) : c10::IValue(s.constant); };
  auto symbols = [&](const auto& list) {
    std::vector<c10::IValue> out;
    for (const auto& s : list) out.push_back(symbol(s));
    return out;
  };
  const Argument& arg = a.arg;
  if (const auto* ts = arg.as<arg::Tensors>()) {
    std::vector<c10::IValue> out;
    for (const auto& t : ts->tensors) out.push_back(fromFrame(t.value));
    return out;
  }
  if (const auto* l = arg.as<arg::SymInts>()) return symbols(l->values);
  if (const auto* l = arg.as<arg::SymFloats>()) return symbols(l->values);
  if (const auto* l = arg.as<arg::SymBools>()) return symbols(l->values);
  if (const auto* t = arg.as<arg::Tensor>()) return {fromFrame(t->tensor.value)};
  if (const auto* s = arg.as<arg::SymInt>()) return {symbol(s->sym)};
  if (const auto* s = arg.as<arg::SymFloat>()) return {symbol(s->sym)};
  if (const auto* s = arg.as<arg::SymBool>()) return {symbol(s->sym)};
  if (const auto* i = arg.as<arg::Int>()) return {i->value};
  if (const auto* f = arg.as<arg::Float>()) return {f->value};
  if (const auto* b = arg.as<arg::Bool>()) return {b->value};
  if (arg.is<arg::None>()) return {c10::IValue()};
  throw std::runtime_error("cannot pass a serialized " + std::string(argumentTypeName(arg)) + " to a subgraph");
}

/// The subgraph a graph argument names, through its get_attr node.
const Subgraph& subgraphOf(const Program& p, const NodeArgument& a) {
  const auto* graph = a.arg.as<arg::Graph>();
  if (!graph) throw std::runtime_error("expected a graph argument");
  const Node& getAttr = p.node(p.value(graph->value).producer);
  if (getAttr.subgraph == kNone) throw std::runtime_error("graph '" + getAttr.name + "' was not read");
  return p.subgraphs.at(static_cast<std::size_t>(getAttr.subgraph));
}

const NodeArgument& input(const Node& n, std::size_t i) {
  if (i >= n.inputs.size())
    throw std::runtime_error(n.target + " takes at least " + std::to_string(i + 1) + " arguments, the node has " +
                             std::to_string(n.inputs.size()));
  return n.inputs[i];
}

ArgumentRecord record(const std::string& name, const std::string& type, ArgSource source, std::string detail,
                      ValueSummary value) {
  return ArgumentRecord{name, type, source, std::move(detail), std::move(value)};
}

ValueSummary summarizeList(const std::vector<c10::IValue>& values) {
  c10::impl::GenericList list(c10::AnyType::get());
  for (const auto& v : values) list.push_back(v);
  return summarize(c10::IValue(list));
}

ValueSummary graphSummary(const std::string& text) {
  ValueSummary s;
  s.kind = "GraphModule";
  s.text = text;
  return s;
}

bool truth(const c10::IValue& v) {
  if (v.isTensor()) {
    const at::Tensor& t = v.toTensor();
    if (t.numel() != 1) throw std::runtime_error("the predicate has " + std::to_string(t.numel()) + " elements, not one");
    return t.item<bool>();
  }
  if (v.isBool()) return v.toBool();
  if (v.isInt()) return v.toInt() != 0;
  if (v.isDouble()) return v.toDouble() != 0;
  throw std::runtime_error("the predicate is a " + v.tagKind() + ", not a tensor or a bool");
}

/// cond(pred, true_fn, false_fn, operands): runs the branch the predicate picks.
class CondKernel final : public HigherOrderKernel {
 public:
  CondKernel(const Program& p, const Node& n, const MakeSubgraphRunner& make)
      : m_node(n), m_trueName(subgraphOf(p, input(n, 1)).name), m_falseName(subgraphOf(p, input(n, 2)).name),
        m_true(make(subgraphOf(p, input(n, 1)))), m_false(make(subgraphOf(p, input(n, 2)))) {}

  std::string schema() const override {
    return "cond(Tensor pred, GraphModule true_fn, GraphModule false_fn, Tensor[] operands) -> Tensor[]";
  }

  std::vector<c10::IValue> run(const FrameValues& frame, NodeRecord& rec) override {
    const c10::IValue pred = operandValues(input(m_node, 0), frame).at(0);
    const auto operands = operandValues(input(m_node, 3), frame);
    const bool taken = truth(pred);
    rec.arguments = {record("pred", "Tensor", ArgSource::Input, "", summarize(pred)),
                     record("true_fn", "GraphModule", ArgSource::Attribute, m_trueName, graphSummary(taken ? "taken" : "not taken")),
                     record("false_fn", "GraphModule", ArgSource::Attribute, m_falseName, graphSummary(taken ? "not taken" : "taken")),
                     record("operands", "Tensor[]", ArgSource::Input, "", summarizeList(operands))};
    m_taken = (taken ? m_true : m_false).get();
    return m_taken->run(operands);
  }

  std::vector<InnerRecord> lastRun() const override { return m_taken ? m_taken->lastRun() : std::vector<InnerRecord>{}; }

 private:
  const Node& m_node;
  std::string m_trueName, m_falseName;
  std::unique_ptr<SubgraphRunner> m_true, m_false;
  SubgraphRunner* m_taken = nullptr;  // the branch the last run took
};

/// while_loop(cond_fn, body_fn, carried, additional): body_fn maps the carried values to their
/// next ones while cond_fn says so; the additional inputs are passed to both unchanged.
class WhileLoopKernel final : public HigherOrderKernel {
 public:
  WhileLoopKernel(const Program& p, const Node& n, const MakeSubgraphRunner& make)
      : m_node(n), m_condName(subgraphOf(p, input(n, 0)).name), m_cond(make(subgraphOf(p, input(n, 0)))),
        m_body(make(subgraphOf(p, input(n, 1)))) {}

  std::string schema() const override {
    return "while_loop(GraphModule cond_fn, GraphModule body_fn, Tensor[] carried_inputs, Tensor[] additional_inputs) -> Tensor[]";
  }

  std::vector<c10::IValue> run(const FrameValues& frame, NodeRecord& rec) override {
    std::vector<c10::IValue> carried = operandValues(input(m_node, 2), frame);
    const std::vector<c10::IValue> additional =
        m_node.inputs.size() > 3 ? operandValues(m_node.inputs[3], frame) : std::vector<c10::IValue>{};
    rec.arguments = {record("carried_inputs", "Tensor[]", ArgSource::Input, "", summarizeList(carried)),
                     record("additional_inputs", "Tensor[]", ArgSource::Input, "", summarizeList(additional))};
    auto withAdditional = [&] {
      std::vector<c10::IValue> all = carried;
      all.insert(all.end(), additional.begin(), additional.end());
      return all;
    };
    int64_t iterations = 0;
    while (truth(m_cond->run(withAdditional()).at(0))) {
      if (++iterations > kMaxLoopIterations)
        throw std::runtime_error("while_loop ran " + std::to_string(kMaxLoopIterations) + " iterations and " +
                                 m_condName + " still holds: stopped");
      std::vector<c10::IValue> next = m_body->run(withAdditional());
      if (next.size() != carried.size())
        throw std::runtime_error("body_fn returned " + std::to_string(next.size()) + " values for " +
                                 std::to_string(carried.size()) + " carried inputs");
      carried = std::move(next);
    }
    ValueSummary count;
    count.kind = "int";
    count.text = std::to_string(iterations);
    rec.arguments.push_back(record("iterations", "int", ArgSource::Inferred, "counted", count));
    m_iterations = iterations;
    return carried;
  }

  /// The last iteration's body, then the test that ended the loop.
  std::vector<InnerRecord> lastRun() const override {
    std::vector<InnerRecord> out = m_iterations > 0 ? m_body->lastRun() : std::vector<InnerRecord>{};
    for (auto& r : m_cond->lastRun()) out.push_back(std::move(r));
    return out;
  }

 private:
  int64_t m_iterations = 0;
  const Node& m_node;
  std::string m_condName;
  std::unique_ptr<SubgraphRunner> m_cond, m_body;
};

/// A higher-order op of one body (the subgraph its graph argument `bodyArgument` names): the node,
/// the body's name and its runner, and the body's last run as the node's inner record.
class BodyKernel : public HigherOrderKernel {
 public:
  BodyKernel(const Program& p, const Node& n, const MakeSubgraphRunner& make, std::size_t bodyArgument)
      : m_node(n), m_name(subgraphOf(p, input(n, bodyArgument)).name), m_body(make(subgraphOf(p, input(n, bodyArgument)))) {}

  /// The last run of the body (a map's or scan's last row).
  std::vector<InnerRecord> lastRun() const override { return m_body->lastRun(); }

 protected:
  const Node& m_node;
  std::string m_name;
  std::unique_ptr<SubgraphRunner> m_body;
};

ValueSummary countSummary(std::size_t n) {
  ValueSummary count;
  count.kind = "int";
  count.text = std::to_string(n);
  return count;
}

/// map_impl(f, xs, pos_args): f runs on row i of every tensor of xs (their leading dimension, as
/// Python iterates a tensor) with pos_args after them; its results are stacked row by row into the
/// op's results (torch's map_dense).
class MapKernel final : public BodyKernel {
 public:
  MapKernel(const Program& p, const Node& n, const MakeSubgraphRunner& make)
      : BodyKernel(p, n, make, 0) {}

  std::string schema() const override { return "map_impl(GraphModule f, Tensor[] xs, Tensor[] pos_args) -> Tensor[]"; }

  std::vector<c10::IValue> run(const FrameValues& frame, NodeRecord& rec) override {
    const std::vector<c10::IValue> xs = operandValues(input(m_node, 1), frame);
    const std::vector<c10::IValue> posArgs =
        m_node.inputs.size() > 2 ? operandValues(m_node.inputs[2], frame) : std::vector<c10::IValue>{};
    rec.arguments = {record("f", "GraphModule", ArgSource::Attribute, m_name, graphSummary("run on each row")),
                     record("xs", "Tensor[]", ArgSource::Input, "", summarizeList(xs)),
                     record("pos_args", "Tensor[]", ArgSource::Input, "", summarizeList(posArgs))};
    std::vector<std::vector<at::Tensor>> rowsOf;  // by tensor of xs: its rows
    for (const c10::IValue& x : xs) {
      if (!x.isTensor()) throw std::runtime_error("map_impl maps over tensors; xs holds a " + x.tagKind());
      const at::Tensor& t = x.toTensor();
      if (t.dim() == 0) throw std::runtime_error("map_impl maps over a tensor's leading dimension; xs holds a 0-d tensor");
      if (!rowsOf.empty() && t.size(0) != static_cast<int64_t>(rowsOf.front().size()))
        throw std::runtime_error("the tensors of xs have leading dimensions " + std::to_string(rowsOf.front().size()) +
                                 " and " + std::to_string(t.size(0)) + ": map_impl needs one");
      rowsOf.push_back(t.unbind(0));
    }
    const std::size_t rows = rowsOf.empty() ? 0 : rowsOf.front().size();
    // torch's map_dense has nothing to stack either: it fails on its out_spec
    if (rows == 0) throw std::runtime_error("map_impl over 0 rows: there is nothing to stack (eager's map fails too)");
    std::vector<std::vector<at::Tensor>> resultRows;  // by result: its rows
    for (std::size_t i = 0; i < rows; ++i) {
      std::vector<c10::IValue> operands;
      for (const auto& r : rowsOf) operands.emplace_back(r[i]);
      operands.insert(operands.end(), posArgs.begin(), posArgs.end());
      std::vector<c10::IValue> results = m_body->run(operands);
      if (i == 0) resultRows.resize(results.size());
      if (results.size() != resultRows.size())
        throw std::runtime_error(m_name + " returned " + std::to_string(results.size()) + " values for row " +
                                 std::to_string(i) + ", " + std::to_string(resultRows.size()) + " for row 0");
      for (std::size_t k = 0; k < results.size(); ++k) {
        if (!results[k].isTensor())
          throw std::runtime_error(m_name + " returned a " + results[k].tagKind() + ": map_impl stacks tensors");
        resultRows[k].push_back(results[k].toTensor());
      }
    }
    rec.arguments.push_back(record("iterations", "int", ArgSource::Inferred, "rows of xs", countSummary(rows)));
    std::vector<c10::IValue> out;
    for (const auto& r : resultRows) out.emplace_back(at::stack(r));
    return out;
  }
};

/// The results of running `body` as a function that returns tensors (a combine function).
std::vector<at::Tensor> tensorsOf(std::vector<c10::IValue> values, const std::string& body) {
  std::vector<at::Tensor> out;
  for (auto& v : values) {
    if (!v.isTensor()) throw std::runtime_error(body + " returned a " + v.tagKind() + ", not a tensor");
    out.push_back(std::move(v).toTensor());
  }
  return out;
}

std::vector<c10::IValue> asValues(const std::vector<at::Tensor>& tensors) {
  return std::vector<c10::IValue>(tensors.begin(), tensors.end());
}

/// scan(combine_fn, init, xs, additional_inputs): combine_fn maps (carry, row i of each xs) to
/// (next carry, the row's outputs); the results are the last carry and each output stacked over
/// the rows (torch's generic_scan; over no rows, init and empty outputs of the shape combine_fn
/// gives a row of zeros).
class ScanKernel final : public BodyKernel {
 public:
  ScanKernel(const Program& p, const Node& n, const MakeSubgraphRunner& make)
      : BodyKernel(p, n, make, 0) {}

  std::string schema() const override {
    return "scan(GraphModule combine_fn, Tensor[] init, Tensor[] xs, Tensor[] additional_inputs) -> Tensor[]";
  }

  std::vector<c10::IValue> run(const FrameValues& frame, NodeRecord& rec) override {
    const std::vector<c10::IValue> init = operandValues(input(m_node, 1), frame);
    const std::vector<at::Tensor> xs = tensorsOf(operandValues(input(m_node, 2), frame), "xs");
    const std::vector<c10::IValue> additional =
        m_node.inputs.size() > 3 ? operandValues(m_node.inputs[3], frame) : std::vector<c10::IValue>{};
    rec.arguments = {record("combine_fn", "GraphModule", ArgSource::Attribute, m_name, graphSummary("run on each row")),
                     record("init", "Tensor[]", ArgSource::Input, "", summarizeList(init)),
                     record("xs", "Tensor[]", ArgSource::Input, "", summarizeList(asValues(xs))),
                     record("additional_inputs", "Tensor[]", ArgSource::Input, "", summarizeList(additional))};
    int64_t rows = 0;
    for (std::size_t j = 0; j < xs.size(); ++j) {
      if (xs[j].dim() == 0) throw std::runtime_error("scan runs over a tensor's leading dimension; xs holds a 0-d tensor");
      if (j > 0 && xs[j].size(0) != rows)
        throw std::runtime_error("the tensors of xs have " + std::to_string(rows) + " and " + std::to_string(xs[j].size(0)) + " rows");
      rows = xs[j].size(0);
    }
    auto call = [&](const std::vector<c10::IValue>& carry, const std::vector<at::Tensor>& row) {
      std::vector<c10::IValue> operands = carry;
      operands.insert(operands.end(), row.begin(), row.end());
      operands.insert(operands.end(), additional.begin(), additional.end());
      std::vector<c10::IValue> results = m_body->run(operands);
      if (results.size() < carry.size())
        throw std::runtime_error(m_name + " returned " + std::to_string(results.size()) + " values for " +
                                 std::to_string(carry.size()) + " carried ones");
      return results;
    };
    if (xs.empty()) {  // nothing to scan: torch gives init back without calling combine_fn
      rec.arguments.push_back(record("iterations", "int", ArgSource::Inferred, "rows of xs", countSummary(0)));
      return init;
    }
    // row 0 first, as torch does, from copies of the first rows (zeros of a row's shape where
    // there is none: first_slice_copy)
    std::vector<at::Tensor> first;
    for (const at::Tensor& x : xs) first.push_back(rows > 0 ? at::select_copy(x, 0, 0) : at::zeros(x.sizes().slice(1), x.options()));
    std::vector<c10::IValue> results = call(init, first);
    std::vector<c10::IValue> carry(results.begin(), results.begin() + static_cast<std::ptrdiff_t>(init.size()));
    std::vector<std::vector<at::Tensor>> outRows(results.size() - init.size());
    for (std::size_t k = 0; k < outRows.size(); ++k)
      outRows[k].push_back(tensorsOf({results[init.size() + k]}, m_name).front());
    if (rows == 0) {
      std::vector<c10::IValue> out = init;
      for (const auto& o : outRows) {
        std::vector<int64_t> sizes{0};
        for (int64_t d : o.front().sizes()) sizes.push_back(d);
        out.emplace_back(at::empty(sizes, o.front().options()));
      }
      rec.arguments.push_back(record("iterations", "int", ArgSource::Inferred, "rows of xs", countSummary(0)));
      return out;
    }
    for (int64_t i = 1; i < rows; ++i) {
      std::vector<at::Tensor> row;
      for (const at::Tensor& x : xs) row.push_back(x.select(0, i));
      results = call(carry, row);
      if (results.size() != init.size() + outRows.size())
        throw std::runtime_error(m_name + " returned " + std::to_string(results.size()) + " values for row " +
                                 std::to_string(i) + ", " + std::to_string(init.size() + outRows.size()) + " for row 0");
      carry.assign(results.begin(), results.begin() + static_cast<std::ptrdiff_t>(init.size()));
      for (std::size_t k = 0; k < outRows.size(); ++k)
        outRows[k].push_back(tensorsOf({results[init.size() + k]}, m_name).front());
    }
    rec.arguments.push_back(record("iterations", "int", ArgSource::Inferred, "rows of xs", countSummary(static_cast<std::size_t>(rows))));
    std::vector<c10::IValue> out = carry;
    for (const auto& o : outRows) out.emplace_back(at::stack(o));
    return out;
  }

 private:
  std::size_t m_rows = 0;
};

/// associative_scan(combine_fn, xs, additional_inputs): an inclusive scan of xs along their leading
/// dimension with an associative combine_fn, computed as torch's generic_associative_scan does
/// (pairs of neighbours combined, recursively, then interleaved), so the same additions are made
/// in the same order and the bits are eager's.
class AssociativeScanKernel final : public BodyKernel {
 public:
  AssociativeScanKernel(const Program& p, const Node& n, const MakeSubgraphRunner& make)
      : BodyKernel(p, n, make, 0) {}

  std::string schema() const override {
    return "associative_scan(GraphModule combine_fn, Tensor[] xs, Tensor[] additional_inputs) -> Tensor[]";
  }

  std::vector<c10::IValue> run(const FrameValues& frame, NodeRecord& rec) override {
    const std::vector<at::Tensor> xs = tensorsOf(operandValues(input(m_node, 1), frame), "xs");
    m_additional = m_node.inputs.size() > 2 ? operandValues(m_node.inputs[2], frame) : std::vector<c10::IValue>{};
    rec.arguments = {record("combine_fn", "GraphModule", ArgSource::Attribute, m_name, graphSummary("combines pairs")),
                     record("xs", "Tensor[]", ArgSource::Input, "", summarizeList(asValues(xs))),
                     record("additional_inputs", "Tensor[]", ArgSource::Input, "", summarizeList(m_additional))};
    if (xs.empty()) throw std::runtime_error("associative_scan was given no tensors to scan");
    for (const at::Tensor& x : xs) {
      if (x.dim() == 0) throw std::runtime_error("associative_scan runs over a tensor's leading dimension; xs holds a 0-d tensor");
      if (x.size(0) != xs.front().size(0))
        throw std::runtime_error("the tensors of xs have " + std::to_string(xs.front().size(0)) + " and " +
                                 std::to_string(x.size(0)) + " rows: associative_scan needs one");
    }
    return asValues(scan(xs));
  }

 private:
  std::vector<at::Tensor> combine(const std::vector<at::Tensor>& lhs, const std::vector<at::Tensor>& rhs) {
    std::vector<c10::IValue> operands = asValues(lhs);
    for (const at::Tensor& t : rhs) operands.emplace_back(t);
    operands.insert(operands.end(), m_additional.begin(), m_additional.end());
    std::vector<at::Tensor> out = tensorsOf(m_body->run(operands), m_name);
    if (out.size() != lhs.size())
      throw std::runtime_error(m_name + " returned " + std::to_string(out.size()) + " values for " + std::to_string(lhs.size()));
    return out;
  }

  static std::vector<at::Tensor> sliced(const std::vector<at::Tensor>& elems, int64_t start, std::optional<int64_t> end,
                                        int64_t step) {
    std::vector<at::Tensor> out;
    for (const at::Tensor& e : elems) out.push_back(at::slice(e, 0, start, end, step));
    return out;
  }

  /// torch's _interleave along dim 0: a0 b0 a1 b1 ..., `a` one longer than `b` or as long.
  static at::Tensor interleave(const at::Tensor& a, at::Tensor b) {
    const bool truncated = a.size(0) == b.size(0) + 1;
    if (truncated) {
      std::vector<int64_t> pad(static_cast<std::size_t>(2 * b.dim()), 0);
      pad[pad.size() - 1] = 1;  // one more row after the end of dim 0
      b = at::constant_pad_nd(b, pad, 0);
    }
    at::Tensor out = at::flatten(at::stack({a, b}, 1), 0, 1);
    return truncated ? at::slice(out, 0, 0, b.size(0) + a.size(0) - 1) : out;
  }

  std::vector<at::Tensor> scan(const std::vector<at::Tensor>& elems) {
    const int64_t n = elems.front().size(0);
    if (n < 2) return elems;
    const std::vector<at::Tensor> odd = scan(combine(sliced(elems, 0, -1, 2), sliced(elems, 1, std::nullopt, 2)));
    std::vector<at::Tensor> even = n % 2 == 0 ? combine(sliced(odd, 0, -1, 1), sliced(elems, 2, std::nullopt, 2))
                                              : combine(odd, sliced(elems, 2, std::nullopt, 2));
    for (std::size_t k = 0; k < even.size(); ++k) {
      const at::Tensor head = at::slice(elems[k], 0, 0, 1);
      if (even[k].numel() > 0 && elems[k].size(0) > 0) even[k] = at::cat({head, even[k]}, 0);
      else if (even[k].numel() == 0) even[k] = head;
    }
    std::vector<at::Tensor> out;
    for (std::size_t k = 0; k < even.size(); ++k) out.push_back(interleave(even[k], odd[k]));
    return out;
  }

  std::vector<c10::IValue> m_additional;
};

/// wrap_with_autocast(device_type, dtype, enabled, cache_enabled, body, *operands): the body runs
/// under autocast as `with torch.autocast(...)` runs it: the same state set on entry (enabled, the
/// fast dtype, the cache), the nesting counted, the cast cache dropped when the outermost region
/// ends, and everything put back after, also when the body fails.
class AutocastKernel final : public BodyKernel {
 public:
  AutocastKernel(const Program& p, const Node& n, const MakeSubgraphRunner& make)
      : BodyKernel(p, n, make, 4) {
    if (const auto* d = input(n, 0).arg.as<arg::String>()) m_device = c10::Device(d->value).type();
    else if (!input(n, 0).arg.is<arg::None>()) throw std::runtime_error("wrap_with_autocast's device_type is not a string");
    if (const auto* t = input(n, 1).arg.as<arg::ScalarType>()) {
      const auto dtype = dtypeFromSerialized(t->code);
      if (!dtype) throw std::runtime_error("wrap_with_autocast names an unknown dtype " + std::to_string(t->code));
      m_dtype = static_cast<c10::ScalarType>(*dtype);
    }
    if (const auto* b = input(n, 2).arg.as<arg::Bool>()) m_enabled = b->value;
    if (const auto* b = input(n, 3).arg.as<arg::Bool>()) m_cacheEnabled = b->value;
    // torch.autocast turns itself off (with a warning) for a CPU region of another dtype
    if (m_device == c10::DeviceType::CPU && m_dtype && *m_dtype != c10::kBFloat16 && *m_dtype != c10::kHalf)
      m_enabled = false;
  }

  std::string schema() const override {
    return "wrap_with_autocast(str? device_type, ScalarType? dtype, bool enabled, bool? cache_enabled, GraphModule body, *operands)";
  }

  std::vector<c10::IValue> run(const FrameValues& frame, NodeRecord& rec) override {
    std::vector<c10::IValue> operands;
    for (std::size_t i = 5; i < m_node.inputs.size(); ++i)
      for (auto& v : operandValues(m_node.inputs[i], frame)) operands.push_back(std::move(v));
    ValueSummary region;
    region.kind = "autocast";
    region.text = std::string(c10::DeviceTypeName(m_device, true)) + ", " +
                  (m_dtype ? c10::toString(*m_dtype) : "the device's default") + (m_enabled ? "" : ", disabled");
    rec.arguments = {record("autocast", "autocast", ArgSource::Attribute, "given", region),
                     record("body", "GraphModule", ArgSource::Attribute, m_name, graphSummary("run under autocast")),
                     record("operands", "Tensor[]", ArgSource::Input, "", summarizeList(operands))};
    AutocastScope entered(m_device, m_enabled, m_dtype.value_or(at::autocast::get_autocast_dtype(m_device)),
                          m_cacheEnabled.value_or(at::autocast::is_autocast_cache_enabled()));
    return m_body->run(operands);
  }

 private:
  c10::DeviceType m_device = c10::DeviceType::CPU;
  std::optional<c10::ScalarType> m_dtype;
  bool m_enabled = true;
  std::optional<bool> m_cacheEnabled;
};

/// The call of the op a wrapper (out_dtype, with_effects) names, as a plain node: its arguments
/// from `first` on, positional ones named by the op's schema.
Node wrappedCall(const Node& n, std::size_t first, const c10::FunctionSchema& schema, const std::string& wrapper) {
  if (n.inputs.size() < first || n.inputs.size() - first > schema.arguments().size())
    throw std::runtime_error(schema.name() + " takes " + std::to_string(schema.arguments().size()) + " arguments, " +
                             wrapper + " gives " + std::to_string(n.inputs.size() < first ? 0 : n.inputs.size() - first));
  Node call;
  for (std::size_t i = first; i < n.inputs.size(); ++i) {
    NodeArgument a = n.inputs[i];
    if (!a.keyword) a.name = schema.arguments()[i - first].name();
    call.inputs.push_back(std::move(a));
  }
  call.target = n.target;
  call.name = n.name;
  return call;
}

/// A wrapper of one op (out_dtype, with_effects) whose arguments follow the op's own from
/// argument `first` on: the op and its call planned once, as any call of it (lists, numbers and
/// defaults converted by the schema's types).
class WrappedOpKernel : public HigherOrderKernel {
 protected:
  WrappedOpKernel(const Program& p, const Node& n, c10::OperatorHandle op, std::size_t first, const std::string& wrapper)
      : m_op(std::move(op)), m_call(wrappedCall(n, first, m_op.schema(), wrapper)), m_plan(planCall(p, m_call, m_op.schema())) {}

  /// The op's arguments from the frame; the record shows them as the op gets them.
  torch::jit::Stack arguments(const FrameValues& frame, NodeRecord& rec) const {
    torch::jit::Stack stack;
    pushArguments(m_plan, frame, stack);
    rec.arguments = m_plan.records;
    return stack;
  }
  static void showValues(NodeRecord& rec, const torch::jit::Stack& stack) {
    for (std::size_t i = 0; i < rec.arguments.size() && i < stack.size(); ++i) rec.arguments[i].value = summarize(stack[i]);
  }

  c10::OperatorHandle m_op;
  Node m_call;  // the op's call as a plain node: the plan points into its arguments
  CallPlan m_plan;
};

/// out_dtype(op, dtype, *args): the op computed in `dtype` (an int8 matmul accumulated in int32):
/// the arguments cast to the dtype they promote to with a tensor of `dtype`, the op called, its
/// result cast to `dtype` (torch's out_dtype_fallback; its int_mm path is for CUDA only).
class OutDtypeKernel final : public WrappedOpKernel {
 public:
  OutDtypeKernel(const Program& p, const Node& n, c10::OperatorHandle op, c10::ScalarType dtype)
      : WrappedOpKernel(p, n, std::move(op), 2, "out_dtype"), m_dtype(dtype) {}

  std::string schema() const override {
    return "out_dtype(OpOverload op, ScalarType output_dtype, *args) -> Tensor  [" + toString(m_op.schema()) + "]";
  }

  std::vector<c10::IValue> run(const FrameValues& frame, NodeRecord& rec) override {
    torch::jit::Stack stack = arguments(frame, rec);
    at::native::ResultTypeState state;
    for (const c10::IValue& a : stack)
      if (a.isTensor()) state = at::native::update_result_type_state(a.toTensor(), state);
    state = at::native::update_result_type_state(at::ones({1}, at::TensorOptions().dtype(m_dtype)), state);
    const c10::ScalarType promoted = at::native::result_type(state);
    for (c10::IValue& a : stack)
      if (a.isTensor()) a = a.toTensor().to(promoted);
    showValues(rec, stack);
    ValueSummary dtype;
    dtype.kind = "ScalarType";
    dtype.text = c10::toString(m_dtype);
    rec.arguments.push_back(record("output_dtype", "ScalarType", ArgSource::Attribute, "given", dtype));
    m_op.callBoxed(stack);
    if (stack.size() != 1 || !stack.front().isTensor())
      throw std::runtime_error(m_op.schema().name() + " returned no single tensor: out_dtype casts one");
    return {stack.front().toTensor().to(m_dtype)};
  }

 private:
  c10::ScalarType m_dtype;
};

/// with_effects(token, op, *args, **kwargs): an op with a side effect (a print, a custom op
/// registered with an effect), ordered by the token it takes and gives back: the op called as
/// any call of it, then a new token (torch's, an empty tensor) before the op's results.
class WithEffectsKernel final : public WrappedOpKernel {
 public:
  WithEffectsKernel(const Program& p, const Node& n, c10::OperatorHandle op)
      : WrappedOpKernel(p, n, std::move(op), 2, "with_effects") {}

  std::string schema() const override {
    return "with_effects(Tensor token, OpOverload op, *args, **kwargs) -> (Tensor, ...)  [" + toString(m_op.schema()) + "]";
  }

  std::vector<c10::IValue> run(const FrameValues& frame, NodeRecord& rec) override {
    torch::jit::Stack stack = arguments(frame, rec);
    showValues(rec, stack);
    m_op.callBoxed(stack);
    std::vector<c10::IValue> results{at::empty({0})};
    for (c10::IValue& r : stack) results.push_back(std::move(r));
    return results;
  }
};

/// hints_wrapper(body, args, kwargs, hints=...): hints for a compiler around a body that simply
/// runs on args (a body taking keyword arguments is refused: export passes none).
class HintsWrapperKernel final : public BodyKernel {
 public:
  HintsWrapperKernel(const Program& p, const Node& n, const MakeSubgraphRunner& make)
      : BodyKernel(p, n, make, 0) {
    if (n.inputs.size() > 2 && !n.inputs[2].keyword)
      if (const auto* kwargs = n.inputs[2].arg.as<arg::StringToArgument>(); kwargs && !kwargs->entries.empty())
        throw std::runtime_error("hints_wrapper passes keyword arguments to its body; torchir passes positional ones");
  }

  std::string schema() const override { return "hints_wrapper(GraphModule body, Tensor[] args, Dict kwargs, *, Dict hints)"; }

  std::vector<c10::IValue> run(const FrameValues& frame, NodeRecord& rec) override {
    const std::vector<c10::IValue> args = operandValues(input(m_node, 1), frame);
    rec.arguments = {record("body", "GraphModule", ArgSource::Attribute, m_name, graphSummary("run")),
                     record("args", "Tensor[]", ArgSource::Input, "", summarizeList(args))};
    return m_body->run(args);
  }
};

/// wrap_with_set_grad_enabled(enabled, graph, *operands): the engine runs under InferenceMode,
/// where no autograd is recorded either way, so the body simply runs.
class SetGradKernel final : public BodyKernel {
 public:
  SetGradKernel(const Program& p, const Node& n, const MakeSubgraphRunner& make)
      : BodyKernel(p, n, make, 1) {}

  std::string schema() const override { return "wrap_with_set_grad_enabled(bool enabled, GraphModule body, *operands)"; }

  std::vector<c10::IValue> run(const FrameValues& frame, NodeRecord& rec) override {
    std::vector<c10::IValue> operands;
    for (std::size_t i = 2; i < m_node.inputs.size(); ++i)
      for (auto& v : operandValues(m_node.inputs[i], frame)) operands.push_back(std::move(v));
    rec.arguments = {record("enabled", "bool", ArgSource::Attribute, "given", summarize(operandValues(input(m_node, 0), frame).at(0))),
                     record("body", "GraphModule", ArgSource::Attribute, m_name, graphSummary("run")),
                     record("operands", "Tensor[]", ArgSource::Input, "", summarizeList(operands))};
    return m_body->run(operands);
  }
};

/// auto_functionalized(_v2)(op, **kwargs): the functional form of an op that mutates its
/// arguments. The op runs on clones; the results are the op's returns followed by the mutated
/// clones (v1: each mutated argument; v2: every base in `_all_bases`), which later nodes use in
/// place of the mutated tensors.
class AutoFunctionalizedKernel final : public HigherOrderKernel {
 public:
  /// Where a v2 call's mutable tensor is found: a view of base `base` of `_all_bases` (-1: None).
  struct View {
    int64_t base = -1;
    std::vector<int64_t> size, stride;
    int64_t storageOffset = 0;
    int64_t sliceDim = -1, sliceStart = 0, sliceEnd = 0;
  };
  /// A mutable argument: one view, or one per element of a Tensor[] (`isList`).
  struct Mutable {
    std::size_t slot = 0;
    bool isList = false;
    std::vector<View> views;
  };

  AutoFunctionalizedKernel(const Program& p, const Node& n, c10::OperatorHandle op, bool v2)
      : m_node(n), m_op(std::move(op)), m_v2(v2) {
    // The call's arguments by schema name: for v1 the node passes them all by name; for v2 a
    // mutable one is `_<name>_base_index` into `_all_bases` (plus view information), and a
    // mutable Tensor[] is `_<name>_length` and `_<name>_<i>_base_index`, ... per element.
    const auto& schema = m_op.schema();
    for (const auto& a : n.inputs)
      if (a.name == "_all_bases") m_bases = &a;
    for (std::size_t i = 0; i < schema.arguments().size(); ++i) {
      const auto& sa = schema.arguments()[i];
      const bool mutated = sa.alias_info() && sa.alias_info()->isWrite();
      if (!mutated || !m_v2) {
        for (const auto& a : n.inputs)
          if (a.name == sa.name()) m_call.inputs.push_back(a);
        if (mutated) m_mutables.push_back(Mutable{i, false, {}});
        continue;
      }
      Mutable m{i, false, {}};
      m.isList = sa.type()->kind() == c10::TypeKind::ListType;
      // Planned as the base tensors themselves (they have the right type); run() puts in the
      // clones' views.
      NodeArgument stand;
      stand.name = sa.name();
      if (m.isList) {
        const int64_t length = requiredInt(n, "_" + sa.name() + "_length");
        arg::Tensors tensors;
        for (int64_t e = 0; e < length; ++e) {
          m.views.push_back(readView(n, "_" + sa.name() + "_" + std::to_string(e) + "_"));
          if (m.views.back().base < 0) throw std::runtime_error("element " + std::to_string(e) + " of the mutable list '" + sa.name() + "' has no base");
          const ValueId v = baseValue(m.views.back(), "_" + sa.name() + "_" + std::to_string(e) + "_");
          tensors.tensors.push_back({v, p.value(v).name});
          stand.values.push_back(v);
        }
        stand.arg = std::move(tensors);
      } else {
        m.views.push_back(readView(n, "_" + sa.name() + "_"));
        if (m.views.back().base >= 0) {
          const ValueId v = baseValue(m.views.back(), "_" + sa.name() + "_");
          stand.arg = arg::Tensor{{v, p.value(v).name}};
          stand.values = {v};
        } else {
          stand.arg = arg::None{};
        }
      }
      m_call.inputs.push_back(std::move(stand));
      m_mutables.push_back(std::move(m));
    }
    m_call.target = n.target;
    m_call.name = n.name;
    m_plan = planCall(p, m_call, schema);
  }

  std::string schema() const override { return toString(m_op.schema()); }

  std::vector<c10::IValue> run(const FrameValues& frame, NodeRecord& rec) override {
    torch::jit::Stack stack;
    pushArguments(m_plan, frame, stack);
    std::vector<c10::IValue> clones;
    if (m_v2) {
      if (m_bases)
        for (const auto& b : operandValues(*m_bases, frame)) clones.push_back(b.toTensor().clone());
      for (const auto& m : m_mutables) {
        if (!m.isList) {
          if (m.views.at(0).base >= 0) stack[m.slot] = viewOf(m.views[0], clones);
          continue;
        }
        c10::List<at::Tensor> list;
        for (const View& v : m.views) list.push_back(viewOf(v, clones));
        stack[m.slot] = std::move(list);
      }
    } else {
      for (const auto& m : m_mutables) {
        if (stack[m.slot].isTensor()) stack[m.slot] = stack[m.slot].toTensor().clone();
        clones.push_back(stack[m.slot]);
      }
    }
    rec.arguments = m_plan.records;
    for (std::size_t i = 0; i < rec.arguments.size() && i < stack.size(); ++i) rec.arguments[i].value = summarize(stack[i]);
    m_op.callBoxed(stack);
    // Python's `(out, *mutated)`: an op returning nothing contributes one None, a tuple its items.
    std::vector<c10::IValue> results;
    if (stack.empty()) results.emplace_back();
    for (auto& v : stack) results.push_back(std::move(v));
    for (auto& c : clones) results.push_back(std::move(c));
    return results;
  }

 private:
  static const Argument* keyword(const Node& n, const std::string& name) {
    for (const auto& a : n.inputs)
      if (a.name == name) return &a.arg;
    return nullptr;
  }

  /// `<prefix>base_index` and the view information that may follow it.
  static View readView(const Node& n, const std::string& prefix) {
    View v;
    const Argument* index = keyword(n, prefix + "base_index");
    if (!index) throw std::runtime_error("no " + prefix + "base_index for a mutable argument");
    if (const auto* i = index->as<arg::Int>()) v.base = i->value;
    else if (!index->is<arg::None>())
      throw std::runtime_error(prefix + "base_index is a " + std::string(argumentTypeName(*index)) + ", not an int");
    if (const Argument* size = keyword(n, prefix + "size")) {
      v.size = ints(*size, prefix + "size");
      v.stride = ints(required(n, prefix + "stride"), prefix + "stride");
      v.storageOffset = requiredInt(n, prefix + "storage_offset");
    } else if (keyword(n, prefix + "slice_dim")) {
      v.sliceDim = requiredInt(n, prefix + "slice_dim");
      v.sliceStart = requiredInt(n, prefix + "slice_start");
      v.sliceEnd = requiredInt(n, prefix + "slice_end");
    }
    return v;
  }

  static const Argument& required(const Node& n, const std::string& name) {
    if (const Argument* arg = keyword(n, name)) return *arg;
    throw std::runtime_error("the node has no " + name);
  }

  static int64_t requiredInt(const Node& n, const std::string& name) {
    if (const auto* i = required(n, name).as<arg::Int>()) return i->value;
    throw std::runtime_error(name + " is not an int");
  }

  static std::vector<int64_t> ints(const Argument& a, const std::string& name) {
    if (const auto* is = a.as<arg::Ints>()) return is->values;
    throw std::runtime_error(name + " is not an int[]");
  }

  ValueId baseValue(const View& v, const std::string& prefix) const {
    if (!m_bases || static_cast<std::size_t>(v.base) >= m_bases->values.size())
      throw std::runtime_error(prefix + "base_index " + std::to_string(v.base) + " is outside _all_bases");
    return m_bases->values[static_cast<std::size_t>(v.base)];
  }

  static at::Tensor viewOf(const View& v, const std::vector<c10::IValue>& clones) {
    const at::Tensor base = clones.at(static_cast<std::size_t>(v.base)).toTensor();
    return !v.size.empty() ? base.as_strided(v.size, v.stride, v.storageOffset)
           : v.sliceDim >= 0 ? base.slice(v.sliceDim, v.sliceStart, v.sliceEnd)
                            : base;
  }

  const Node& m_node;
  c10::OperatorHandle m_op;
  bool m_v2;
  Node m_call;  // the op's call as a plain node: the plan points into its arguments
  const NodeArgument* m_bases = nullptr;
  std::vector<Mutable> m_mutables;
  CallPlan m_plan;
};

}  // namespace

std::variant<std::shared_ptr<HigherOrderKernel>, HigherOrderProblem> resolveHigherOrder(
    const Program& p, const Node& n, const MakeSubgraphRunner& make) {
  const std::string& t = n.target;
  try {
    if (t == "cond") return std::make_shared<CondKernel>(p, n, make);
    if (t == "while_loop") return std::make_shared<WhileLoopKernel>(p, n, make);
    if (t == "map_impl") return std::make_shared<MapKernel>(p, n, make);
    if (t == "scan") return std::make_shared<ScanKernel>(p, n, make);
    if (t == "hints_wrapper") return std::make_shared<HintsWrapperKernel>(p, n, make);
    if (t == "associative_scan") return std::make_shared<AssociativeScanKernel>(p, n, make);
    if (t == "wrap_with_autocast") return std::make_shared<AutocastKernel>(p, n, make);
    if (t == "out_dtype") {
      const auto* wrapped = input(n, 0).arg.as<arg::Operator>();
      const auto* dtype = input(n, 1).arg.as<arg::ScalarType>();
      if (!wrapped || !dtype) throw std::runtime_error("out_dtype takes an operator and a dtype first");
      auto op = findOperator(wrapped->name);
      if (!op)
        return HigherOrderProblem{DiagnosisClass::OpNotFound, "out_dtype wraps " + qualifiedOperatorName(wrapped->name) +
                                                                  ", which the dispatcher does not hold"};
      const auto d = dtypeFromSerialized(dtype->code);
      if (!d) throw std::runtime_error("out_dtype names an unknown dtype " + std::to_string(dtype->code));
      return std::make_shared<OutDtypeKernel>(p, n, *op, static_cast<c10::ScalarType>(*d));
    }
    if (t == "wrap_with_set_grad_enabled") return std::make_shared<SetGradKernel>(p, n, make);
    if (t == "with_effects") {
      const auto* wrapped = input(n, 1).arg.as<arg::Operator>();
      if (!wrapped) throw std::runtime_error("with_effects takes a token and an operator first");
      auto op = findOperator(wrapped->name);
      if (!op)
        return HigherOrderProblem{DiagnosisClass::OpNotFound, "with_effects wraps " + qualifiedOperatorName(wrapped->name) +
                                                                  ", which the dispatcher does not hold"};
      return std::make_shared<WithEffectsKernel>(p, n, *op);
    }
    if (t == "auto_functionalized" || t == "auto_functionalized_v2") {
      const NodeArgument& opArg = input(n, 0);
      const auto* wrapped = opArg.arg.as<arg::Operator>();
      if (!wrapped) throw std::runtime_error(t + "'s first argument is not an operator");
      auto op = findOperator(wrapped->name);
      if (!op)
        return HigherOrderProblem{DiagnosisClass::OpNotFound,
                                  t + " wraps " + qualifiedOperatorName(wrapped->name) + ", which the dispatcher does not "
                                  "hold (a custom op defined in Python, or in a library that is not loaded)"};
      return std::make_shared<AutoFunctionalizedKernel>(p, n, *op, t == "auto_functionalized_v2");
    }
  } catch (const std::exception& e) {
    return HigherOrderProblem{DiagnosisClass::RuntimeError, "cannot plan " + t + ": " + e.what()};
  }
  // a user's Triton kernel, compiled for a GPU when the program runs under torch.compile
  if (t.rfind("triton_kernel_wrapper", 0) == 0)
    return HigherOrderProblem{DiagnosisClass::UnsupportedHigherOrderOp,
                              t + " calls a Triton kernel: it needs a CUDA or ROCm GPU and Triton, and torchir runs "
                              "no Triton kernel (export the model with the kernel's PyTorch reference instead)"};
  return HigherOrderProblem{DiagnosisClass::UnsupportedHigherOrderOp,
                            "the higher-order op " + t + " has no kernel (torchir runs cond, while_loop, map_impl, scan, "
                            "associative_scan, wrap_with_autocast, wrap_with_set_grad_enabled, hints_wrapper, out_dtype, with_effects, "
                            "auto_functionalized and auto_functionalized_v2)"};
}

}  // namespace torchir
