#include "Repro.h"

#include "exec/AtenBackend.h"

#include <algorithm>
#include <filesystem>
#include <functional>
#include <limits>
#include <map>
#include <set>
#include <stdexcept>

namespace torchir {
namespace {

/// Collects the tensors a part takes from outside, at the moment its first user runs (a later node
/// may write a tensor in place), and passes everything on to the caller's observer.
class BoundaryCapture : public RunObserver {
 public:
  BoundaryCapture(const Session& session, const std::vector<bool>& inPart, RunObserver* outer)
      : m_session(session), m_inPart(inPart), m_outer(outer) {}

  bool cancelled() override { return m_outer && m_outer->cancelled(); }
  void beforeNode(NodeId next) override {
    if (m_outer) m_outer->beforeNode(next);
    if (!m_inPart[static_cast<std::size_t>(next)]) return;
    const Program& p = m_session.program();
    for (ValueId v : valuesNamedBy(p.node(next))) {
      const Value& value = p.value(v);
      if (value.kind != ValueKind::Tensor || m_taken.count(v)) continue;
      if (value.producer != kNone && m_inPart[static_cast<std::size_t>(value.producer)]) continue;
      if (auto t = m_session.tensor(v)) m_taken.emplace(v, std::move(*t));
    }
  }
  bool afterNode(NodeId node, Diagnosis& why) override { return m_outer && m_outer->afterNode(node, why); }

  const std::map<ValueId, TensorData>& taken() const { return m_taken; }

 private:
  const Session& m_session;
  const std::vector<bool>& m_inPart;
  RunObserver* m_outer;
  std::map<ValueId, TensorData> m_taken;
};

/// The number a symbolic value had in the run, from its producer's record.
struct SymbolValues {
  const Session& session;

  const ValueSummary& summary(ValueId v) const {
    const Program& p = session.program();
    const Value& value = p.value(v);
    const NodeRecord* r = value.producer == kNone ? nullptr : session.record(value.producer);
    if (!r || p.node(value.producer).opcode != Opcode::CallFunction)
      throw std::invalid_argument("symbol '" + value.name + "' is an input of the program, not a size the run computed");
    const auto& outs = p.node(value.producer).outputs;
    const auto at = std::find(outs.begin(), outs.end(), v) - outs.begin();
    if (static_cast<std::size_t>(at) >= r->outputs.size()) throw std::invalid_argument("symbol '" + value.name + "' has no value");
    return r->outputs[static_cast<std::size_t>(at)];
  }
  int64_t integer(ValueId v) const { return std::stoll(summary(v).text); }
  double floating(ValueId v) const { return std::stod(summary(v).text); }
  bool boolean(ValueId v) const { return summary(v).text == "True"; }

  template <class T>
  Symbolic<T> fold(const Symbolic<T>& s, T (SymbolValues::*read)(ValueId) const) const {
    if (!s.isValue()) return s;
    Symbolic<T> out;
    out.constant = (this->*read)(s.value);
    return out;
  }
  template <class T>
  std::vector<Symbolic<T>> foldAll(const std::vector<Symbolic<T>>& list, T (SymbolValues::*read)(ValueId) const) const {
    std::vector<Symbolic<T>> out;
    for (const auto& s : list) out.push_back(fold(s, read));
    return out;
  }

  /// The argument with every symbol replaced by the number it had.
  Argument constant(const Argument& a) const {
    if (const auto* s = a.as<arg::SymInt>()) return arg::SymInt{fold(s->sym, &SymbolValues::integer)};
    if (const auto* s = a.as<arg::SymInts>()) return arg::SymInts{foldAll(s->values, &SymbolValues::integer)};
    if (const auto* s = a.as<arg::SymFloat>()) return arg::SymFloat{fold(s->sym, &SymbolValues::floating)};
    if (const auto* s = a.as<arg::SymFloats>()) return arg::SymFloats{foldAll(s->values, &SymbolValues::floating)};
    if (const auto* s = a.as<arg::SymBool>()) return arg::SymBool{fold(s->sym, &SymbolValues::boolean)};
    if (const auto* s = a.as<arg::SymBools>()) return arg::SymBools{foldAll(s->values, &SymbolValues::boolean)};
    if (const auto* m = a.as<arg::StringToArgument>()) {
      arg::StringToArgument out;
      for (const auto& [key, value] : m->entries) out.entries.emplace_back(key, constant(value));
      return out;
    }
    return a;
  }
};

bool isSymbolic(ValueKind k) { return k == ValueKind::SymInt || k == ValueKind::SymFloat || k == ValueKind::SymBool; }

/// Placeholders in the order torch's signatures keep them: parameters, buffers, constants, inputs.
int placeholderRank(InputKind k) {
  switch (k) {
    case InputKind::Parameter: return 0;
    case InputKind::Buffer: return 1;
    case InputKind::TensorConstant: return 2;
    default: return 3;
  }
}

/// torch.export.load pastes a placeholder's name unchanged into the Python it generates for
/// `module()` (`def forward(self, NAME)`, torch 2.14): a stranger's name there is a syntax error, or
/// code that runs when the repro is loaded (`x=__import__('os').system('...')` is a default
/// argument). So a repro's placeholders get names Python reads as names: FX's rule (every other
/// character as `_`, `_` before a leading digit), and `_` after a keyword or a name the generated
/// code uses itself. A name that is one already stays as it is.
std::string pythonIdentifier(const std::string& name) {
  static const std::set<std::string> reserved = {
      "False", "None", "True", "and", "as", "assert", "async", "await", "break", "class", "continue", "def", "del",
      "elif", "else", "except", "finally", "for", "from", "global", "if", "import", "in", "is", "lambda",
      "nonlocal", "not", "or", "pass", "raise", "return", "try", "while", "with", "yield",
      "self", "torch", "fx_pytree", "pytree"};
  std::string out;
  for (char c : name) {
    const bool word = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
    out += word ? c : '_';
  }
  if (out.empty() || (out[0] >= '0' && out[0] <= '9')) out.insert(0, 1, '_');
  if (reserved.count(out)) out += '_';
  return out;
}

/// The tensors an argument names, renamed where `names` has a new name for their value.
void renameTensors(Argument& a, const std::map<ValueId, std::string>& names) {
  const auto fix = [&](TensorRef& t) {
    if (const auto it = names.find(t.value); it != names.end()) t.name = it->second;
  };
  auto& v = static_cast<ArgumentVariant&>(a);
  if (auto* t = std::get_if<arg::Tensor>(&v)) fix(t->tensor);
  else if (auto* o = std::get_if<arg::OptionalTensor>(&v)) {
    if (o->tensor) fix(*o->tensor);
  } else if (auto* ts = std::get_if<arg::Tensors>(&v)) {
    for (auto& t : ts->tensors) fix(t);
  } else if (auto* os = std::get_if<arg::OptionalTensors>(&v)) {
    for (auto& t : os->tensors)
      if (t) fix(*t);
  } else if (auto* m = std::get_if<arg::StringToArgument>(&v)) {
    for (auto& entry : m->entries) renameTensors(entry.second, names);  // bounded: the reader limits nesting
  }
}

std::vector<Dim> concrete(const std::vector<int64_t>& sizes) {
  std::vector<Dim> dims;
  for (int64_t s : sizes) dims.push_back(Dim{s, ""});
  return dims;
}

}  // namespace

std::string ReproPart::describe() const { return std::string(kind == Node ? "node '" : "module '") + name + "'"; }

std::vector<NodeId> partNodes(const Program& p, const ReproPart& part) {
  if (p.source.format != "pt2")
    throw std::invalid_argument(p.source.path + ": repro files are cut from .pt2 programs (this is " + p.source.format + ")");
  std::vector<bool> in(p.nodes.size(), false);
  if (part.kind == ReproPart::Node) {
    const auto id = p.findNode(part.name);
    if (!id) throw std::invalid_argument(p.source.path + ": no node '" + part.name + "'");
    NodeId op = *id;
    while (isGetItem(p.node(op)) && p.node(op).picks()) op = p.node(op).picks()->producer;  // its op
    if (!isOpNode(p.node(op))) throw std::invalid_argument(p.source.path + ": node '" + part.name + "' does no op");
    in[static_cast<std::size_t>(op)] = true;
  } else {
    const auto module = std::find_if(p.modules.begin(), p.modules.end(), [&](const Module& m) { return m.path == part.name; });
    if (module == p.modules.end() || part.name.empty())
      throw std::invalid_argument(p.source.path + ": no module '" + part.name + "' in the nn_module_stack");
    std::vector<int> open{static_cast<int>(module - p.modules.begin())};
    while (!open.empty()) {
      const Module& m = p.modules[static_cast<std::size_t>(open.back())];
      open.pop_back();
      for (NodeId n : m.nodes)
        if (p.node(n).opcode == Opcode::CallFunction) in[static_cast<std::size_t>(n)] = true;
      open.insert(open.end(), m.children.begin(), m.children.end());
    }
  }
  // the getitem nodes of every op in the part (and of the lists those pick)
  for (const Node& n : p.nodes)
    if (const auto* pick = n.picks(); pick && isGetItem(n) && in[static_cast<std::size_t>(pick->producer)])
      in[static_cast<std::size_t>(n.id)] = true;
  std::vector<NodeId> nodes;
  for (const Node& n : p.nodes)
    if (in[static_cast<std::size_t>(n.id)]) nodes.push_back(n.id);
  if (std::none_of(nodes.begin(), nodes.end(), [&](NodeId n) { return isOpNode(p.node(n)); }))
    throw std::invalid_argument(p.source.path + ": " + part.describe() + " has no op");
  for (NodeId n : nodes)
    for (const NodeArgument& a : p.node(n).inputs)
      if (a.arg.is<arg::CustomObject>())
        throw std::invalid_argument(p.source.path + ": node '" + p.node(n).name + "' (" + p.node(n).target +
                                    ") takes a custom object, which a repro cannot hold");
  return nodes;
}

Repro extractRepro(Session& session, const ReproPart& part, RunObserver* observer) {
  const Program& p = session.program();
  const std::vector<NodeId> nodes = partNodes(p, part);
  std::vector<bool> inPart(p.nodes.size(), false);
  for (NodeId n : nodes) inPart[static_cast<std::size_t>(n)] = true;
  NodeId last = kNone;
  for (NodeId n : nodes) {
    const Node& node = p.node(n);
    if (!isOpNode(node)) continue;
    last = n;
    if (session.patches().count(n))
      throw std::invalid_argument("node '" + node.name + "' has a change to its call; a repro holds calls as exported");
  }

  BoundaryCapture capture(session, inPart, observer);
  // the part's values are all read at its end: the replay keeps every one
  const StepOutcome outcome = session.replayTo(last + 1, &capture, Replay::KeepEveryValue);
  const NodeRecord* lastRecord = session.record(last);
  if (!lastRecord || !lastRecord->executed) {
    if (outcome.reason == StopReason::Cancelled) throw std::runtime_error("cancelled");
    throw std::runtime_error("the run stopped before " + part.describe() + " had run" +
                             (outcome.diagnosis.message.empty() ? "" : ": node '" + outcome.diagnosis.nodeName + "': " +
                                                                           outcome.diagnosis.message));
  }

  const SymbolValues symbols{session};
  Repro r;
  Program& out = r.program;
  out.source = p.source;
  out.source.path = "";
  out.values = p.values;  // ids kept; the writer reads only the values its nodes name
  out.subgraphs = p.subgraphs;  // a higher-order op's graphs, written inline by name
  for (Value& v : out.values) v.users.clear(), v.producer = kNone;

  // The part's ops, symbols folded: a node that only computes sizes has no place in a static program.
  std::vector<Node> kept;
  std::vector<bool> keptNode(p.nodes.size(), false);
  for (NodeId n : nodes) {
    const Node& node = p.node(n);
    const bool onlySymbols = !node.outputs.empty() && std::all_of(node.outputs.begin(), node.outputs.end(), [&](ValueId v) {
      return isSymbolic(p.value(v).kind);
    });
    if (onlySymbols) continue;
    if (isGetItem(node) && !keptNode[static_cast<std::size_t>(node.picks()->producer)]) continue;
    Node copy = node;
    for (NodeArgument& a : copy.inputs) {
      a.arg = symbols.constant(a.arg);
      a.values.clear();
      collectValues(a.arg, a.values);
    }
    keptNode[static_cast<std::size_t>(n)] = true;
    kept.push_back(std::move(copy));
  }

  // What it takes from outside, and what it gives.
  std::vector<ValueId> taken;
  for (const Node& n : kept)
    for (ValueId v : valuesNamedBy(n)) {
      const Value& value = p.value(v);
      if (value.producer != kNone && keptNode[static_cast<std::size_t>(value.producer)]) continue;
      if (value.producer != kNone && p.node(value.producer).opcode == Opcode::GetAttr) continue;  // a graph, inline
      if (value.kind != ValueKind::Tensor)
        throw std::invalid_argument(part.describe() + " takes '" + value.name + "', which is not a tensor");
      if (std::find(taken.begin(), taken.end(), v) == taken.end()) taken.push_back(v);
    }
  std::vector<ValueId> given;
  auto give = [&](ValueId v) {
    if (p.value(v).kind == ValueKind::Tensor && std::find(given.begin(), given.end(), v) == given.end()) given.push_back(v);
  };
  for (const Node& n : kept) {
    if (isGetItem(n)) continue;
    for (ValueId v : n.outputs) {
      const Value& value = p.value(v);
      const bool usedOutside = part.kind == ReproPart::Node ||
                               std::any_of(value.users.begin(), value.users.end(),
                                           [&](NodeId u) { return !keptNode[static_cast<std::size_t>(u)]; }) ||
                               std::any_of(p.outputs.begin(), p.outputs.end(), [&](const OutputSpec& s) { return s.value == v; });
      if (usedOutside) give(v);
    }
  }
  if (given.empty())  // a module whose values all stay inside: its last op's
    for (ValueId v : p.node(last).outputs) give(v);
  if (given.empty()) throw std::invalid_argument(part.describe() + " gives no tensor");

  // Placeholders, with the values the run gave them.
  std::stable_sort(taken.begin(), taken.end(), [&](ValueId a, ValueId b) {
    const InputSpec* sa = p.inputSpecFor(a);
    const InputSpec* sb = p.inputSpecFor(b);
    return placeholderRank(sa ? sa->kind : InputKind::UserInput) < placeholderRank(sb ? sb->kind : InputKind::UserInput);
  });
  for (ValueId v : taken) {
    const auto it = capture.taken().find(v);
    if (it == capture.taken().end())
      throw std::runtime_error("the run holds no value for '" + p.value(v).name + "' where " + part.describe() + " takes it");
    const TensorData& t = it->second;
    Node placeholder;
    placeholder.id = static_cast<NodeId>(out.nodes.size());
    placeholder.opcode = Opcode::Placeholder;
    placeholder.name = placeholder.target = p.value(v).name;
    placeholder.outputs = {v};
    out.nodes.push_back(std::move(placeholder));
    Value& value = out.values[static_cast<std::size_t>(v)];
    value.dtype = t.dtype;
    value.shape = concrete(t.sizes);
    value.strides = t.strides;
    InputSpec spec;
    spec.value = v;
    const InputSpec* source = p.inputSpecFor(v);
    if (source && (source->kind == InputKind::Parameter || source->kind == InputKind::Buffer ||
                   source->kind == InputKind::TensorConstant)) {
      spec.kind = source->kind;
      spec.target = source->target;
      spec.persistent = source->persistent;
      value.strides = TensorData::contiguousStrides(t.sizes);  // weights are written contiguous
      out.weights[spec.target] = t;
    } else {
      r.inputs.push_back(t);
    }
    out.inputs.push_back(spec);
  }

  // The ops, renumbered, at the sizes they ran with.
  std::vector<NodeId> renumbered(p.nodes.size(), kNone);
  for (Node& n : kept) {
    const NodeId original = n.id;
    renumbered[static_cast<std::size_t>(original)] = static_cast<NodeId>(out.nodes.size());
    n.id = static_cast<NodeId>(out.nodes.size());
    if (isGetItem(n)) {
      auto pick = *n.picks();
      pick.producer = renumbered[static_cast<std::size_t>(pick.producer)];
      n.inputs.front().arg = pick;
    } else if (const NodeRecord* rec = session.record(original)) {
      for (std::size_t i = 0; i < n.outputs.size() && i < rec->outputs.size(); ++i) {
        Value& value = out.values[static_cast<std::size_t>(n.outputs[i])];
        if (value.kind != ValueKind::Tensor) continue;
        value.dtype = rec->outputs[i].dtype;
        value.shape = concrete(rec->outputs[i].sizes);
        value.strides = rec->outputs[i].strides;
      }
    }
    out.nodes.push_back(std::move(n));
  }
  Node output;
  output.id = static_cast<NodeId>(out.nodes.size());
  output.opcode = Opcode::Output;
  output.name = output.target = "output";
  output.returnsTuple = given.size() > 1;
  out.nodes.push_back(std::move(output));
  for (ValueId v : given) {
    OutputSpec spec;
    spec.value = v;
    out.outputs.push_back(spec);
    auto t = session.tensor(v);
    if (!t) throw std::runtime_error("the run holds no value for '" + p.value(v).name + "'");
    r.outputs.push_back(std::move(*t));
  }
  // Placeholders named as Python reads names (pythonIdentifier), `_1`, `_2`, ... after a name the
  // part has already, and renamed where the part's ops take them.
  std::set<std::string> usedNames;
  for (const Node& n : out.nodes) {
    usedNames.insert(n.name);
    for (ValueId v : n.outputs) usedNames.insert(out.value(v).name);
  }
  std::map<ValueId, std::string> renamed;
  for (Node& n : out.nodes) {
    if (n.opcode != Opcode::Placeholder || pythonIdentifier(n.name) == n.name) continue;
    const std::string base = pythonIdentifier(n.name);
    std::string name = base;
    for (int i = 1; usedNames.count(name); ++i) name = base + "_" + std::to_string(i);
    usedNames.insert(name);
    n.name = n.target = name;
    out.values[static_cast<std::size_t>(n.outputs.front())].name = name;
    renamed[n.outputs.front()] = name;
  }
  if (!renamed.empty())
    for (Node& n : out.nodes)
      for (NodeArgument& a : n.inputs) renameTensors(a.arg, renamed);

  // ops the run's Python defined: the repro imports the modules that define them, as the run did
  std::set<std::string> inPython;
  for (const Node& n : p.nodes)
    if (session.plannedSchema(n.id).find("  [run in Python") != std::string::npos) inPython.insert(n.target);
  for (const Node& n : r.program.nodes)
    if (inPython.count(n.target)) {
      r.pythonImports = atenBackend().pythonHost().imports;
      break;
    }
  r.description = part.describe() + " of " + std::filesystem::path(p.source.path).filename().string();
  if (part.kind == ReproPart::Node) r.description = part.describe() + " (" + p.node(last).target + ") of " +
                                                    std::filesystem::path(p.source.path).filename().string();
  return r;
}

}  // namespace torchir
