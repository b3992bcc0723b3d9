#include "ConstantResults.h"

#include <ATen/Tensor.h>

#include "NodeKernels.h"

namespace torchir {

namespace {

bool valid(const Program& p, ValueId v) { return v >= 0 && static_cast<std::size_t>(v) < p.values.size(); }

/// The weights a run starts from and no call changes: the program writes back neither a buffer
/// it mutates (BufferMutation) nor a parameter (ParameterMutation) into its own input.
std::vector<bool> constantInputs(const Program& p) {
  std::set<std::string> mutated;
  for (const OutputSpec& s : p.outputs)
    if (s.kind == OutputKind::BufferMutation || s.kind == OutputKind::ParameterMutation) mutated.insert(s.target);
  std::vector<bool> constant(p.values.size(), false);
  for (const InputSpec& s : p.inputs) {
    if (!valid(p, s.value) || mutated.count(s.target)) continue;
    if (s.kind != InputKind::Parameter && s.kind != InputKind::Buffer && s.kind != InputKind::TensorConstant) continue;
    const auto it = p.weights.find(s.target);
    constant[static_cast<std::size_t>(s.value)] = it != p.weights.end() && it->second.runnable() && !it->second.subclass;
  }
  return constant;
}

std::size_t bytesOf(const c10::IValue& v) {
  if (v.isTensor()) {
    const at::Tensor& t = v.toTensor();
    return t.defined() ? static_cast<std::size_t>(t.numel()) * t.element_size() : 0;
  }
  std::size_t bytes = 0;
  if (v.isList())
    for (const c10::IValue& e : v.toListRef()) bytes += bytesOf(e);
  else if (v.isTuple())
    for (const c10::IValue& e : v.toTupleRef().elements()) bytes += bytesOf(e);
  return bytes;
}

}  // namespace

std::vector<bool> constantNodes(const Program& p, const std::vector<std::unique_ptr<NodeKernel>>& kernels,
                                const std::set<NodeId>& patched) {
  // Values that may share memory (a view and what it views, a call's result and the argument it
  // returns) form one class: a write to one is a write to every other.
  std::vector<std::size_t> classOf(p.values.size());
  for (std::size_t v = 0; v < classOf.size(); ++v) classOf[v] = v;
  auto root = [&](std::size_t v) {
    while (classOf[v] != v) v = classOf[v] = classOf[classOf[v]];
    return v;
  };
  for (const Node& n : p.nodes) {
    const NodeKernel& k = *kernels.at(static_cast<std::size_t>(n.id));
    if (!k.doesWork() || !k.outputsMayAlias()) continue;
    for (ValueId out : n.outputs)
      for (ValueId in : valuesNamedBy(n))
        if (valid(p, out) && valid(p, in)) classOf[root(static_cast<std::size_t>(out))] = root(static_cast<std::size_t>(in));
  }
  // A class some call may write changes within a run: none of its values, nor what is made from
  // them, is a constant. A call that does not say what it writes may write whatever it is given.
  std::vector<bool> writtenClass(p.values.size(), false);
  for (const Node& n : p.nodes) {
    const NodeKernel& k = *kernels.at(static_cast<std::size_t>(n.id));
    if (!k.doesWork() || (k.declaresItsWrites() && k.writtenArguments().empty())) continue;
    for (ValueId v : valuesNamedBy(n))
      if (valid(p, v)) writtenClass[root(static_cast<std::size_t>(v))] = true;
  }
  auto written = [&](ValueId v) { return writtenClass[root(static_cast<std::size_t>(v))]; };
  std::vector<bool> constantValue = constantInputs(p);
  std::vector<bool> constant(p.nodes.size(), false);
  for (const Node& n : p.nodes) {  // in graph order: a node's inputs are made before it
    const NodeKernel& k = *kernels.at(static_cast<std::size_t>(n.id));
    if (!k.doesWork() || !k.pure() || patched.count(n.id) || n.outputs.empty()) continue;
    bool fromConstants = true;
    for (ValueId v : valuesNamedBy(n))
      fromConstants = fromConstants && (v < 0 || (valid(p, v) && constantValue[static_cast<std::size_t>(v)] && !written(v)));
    bool unwritten = true;
    for (ValueId v : n.outputs) unwritten = unwritten && valid(p, v) && !written(v);
    if (!fromConstants || !unwritten) continue;
    constant[static_cast<std::size_t>(n.id)] = true;
    for (ValueId v : n.outputs) constantValue[static_cast<std::size_t>(v)] = true;
  }
  return constant;
}

const std::vector<c10::IValue>* ConstantResults::find(NodeId node) {
  const auto it = m_entries.find(node);
  if (it == m_entries.end()) return nullptr;
  m_recent.splice(m_recent.begin(), m_recent, it->second.recent);
  return &it->second.results;
}

void ConstantResults::keep(NodeId node, std::vector<c10::IValue> results) {
  std::size_t bytes = 0;
  for (const c10::IValue& v : results) bytes += bytesOf(v);
  if (bytes > m_bound || m_entries.count(node)) return;
  m_recent.push_front(node);
  m_entries[node] = Entry{std::move(results), bytes, m_recent.begin()};
  m_held += bytes;
  letGoPastTheBound();
}

void ConstantResults::setBound(std::size_t bytes) {
  m_bound = bytes;
  letGoPastTheBound();
}

void ConstantResults::letGoPastTheBound() {
  while (m_held > m_bound && !m_recent.empty()) {
    const auto it = m_entries.find(m_recent.back());
    m_held -= it->second.bytes;
    m_entries.erase(it);
    m_recent.pop_back();
  }
}

void ConstantResults::clear() {
  m_entries.clear();
  m_recent.clear();
  m_held = 0;
}

}  // namespace torchir
