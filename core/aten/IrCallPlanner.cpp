#include "IrCallPlanner.h"

#include <map>

#include "IValueSummary.h"
#include "IrAttributes.h"

namespace torchir {
namespace {

enum class Slot { Tensor, OptionalTensor, TensorList, OptionalTensorList, Other };

Slot slotOf(const c10::TypePtr& t) {
  auto isTensor = [](const c10::TypePtr& x) { return x->kind() == c10::TypeKind::TensorType; };
  auto isOptTensor = [&](const c10::TypePtr& x) {
    return x->kind() == c10::TypeKind::OptionalType && isTensor(x->castRaw<c10::OptionalType>()->getElementType());
  };
  if (isTensor(t)) return Slot::Tensor;
  if (isOptTensor(t)) return Slot::OptionalTensor;
  if (t->kind() == c10::TypeKind::ListType) {
    const auto& e = t->castRaw<c10::ListType>()->getElementType();
    if (isTensor(e)) return Slot::TensorList;
    if (isOptTensor(e)) return Slot::OptionalTensorList;
  }
  return Slot::Other;
}

/// Name tokens: "p_bn_running_var" and "bn.running_var" -> [.., "running", "var"].
std::vector<std::string> tokens(const std::string& s) {
  std::vector<std::string> out(1);
  for (char c : s) {
    if (c == '_' || c == '.') {
      if (!out.back().empty()) out.emplace_back();
    } else {
      out.back() += c;
    }
  }
  if (out.back().empty()) out.pop_back();
  return out;
}

/// One of the node's flat tensor inputs, with the names that may say which slot it fills.
struct IrInput {
  ValueId value = kNone;
  std::string name;       // the IR tensor name
  std::string weightKey;  // its state_dict key, for a weight
};

/// A schema argument and what the node gives it.
struct SlotUse {
  const c10::Argument* arg = nullptr;
  Slot slot = Slot::Other;
  const Literal* attr = nullptr;    // attrs[name]
  int listSize = -1;                // from _tensor_list_sizes; -1 when not given
  const Literal::List* noneMask = nullptr;  // from _tensor_list_none_masks
  bool takesInput() const { return !arg->kwarg_only() && !attr && (slot == Slot::Tensor || slot == Slot::OptionalTensor); }
};

class Planner {
 public:
  Planner(const Program& p, const Node& n, const c10::FunctionSchema& s) : m_schema(s) {
    for (const auto& a : n.inputs) {
      if (const auto* attr = a.arg.as<arg::Attribute>()) {
        m_attrs[a.name] = &attr->value;
        continue;
      }
      const auto* tensor = a.arg.as<arg::Tensor>();
      if (!tensor) fail("input '" + a.name + "' is a " + std::string(argumentTypeName(a.arg)) + ", not a tensor");
      IrInput in;
      in.value = tensor->tensor.value;
      in.name = tensor->tensor.name;
      if (const InputSpec* spec = p.inputSpecFor(in.value); spec && spec->kind != InputKind::UserInput) in.weightKey = spec->target;
      m_inputs.push_back(std::move(in));
    }
  }

  CallPlan plan() {
    readSlots();
    placeOptionalTensors();
    CallPlan plan;
    std::size_t next = 0;
    for (std::size_t i = 0; i < m_slots.size(); ++i) {
      auto [p, rec] = planArgument(m_slots[i], i, next);
      plan.args.push_back(std::move(p));
      plan.records.push_back(std::move(rec));
    }
    if (next != m_inputs.size())
      fail(std::to_string(m_inputs.size() - next) + " of the node's tensor inputs fit no argument");
    return plan;
  }

 private:
  [[noreturn]] void fail(const std::string& why) const { throw std::runtime_error(why); }

  /// A `_tensor_list_sizes` entry: a count of tensors the node has at most.
  int listSize(const Literal& size) const {
    const int64_t* n = size.asInt();
    if (!n || *n < 0 || static_cast<uint64_t>(*n) > m_inputs.size()) fail("a _tensor_list_sizes entry is not a count of the node's inputs");
    return static_cast<int>(*n);
  }

  const Literal* attr(const std::string& name) const {
    auto it = m_attrs.find(name);
    return it == m_attrs.end() ? nullptr : it->second;
  }

  /// Schema arguments with their attrs, list sizes and none masks.
  void readSlots() {
    for (const auto& [name, v] : m_attrs) {
      if (name == "_tensor_list_sizes" || name == "_tensor_list_none_masks") continue;
      bool known = false;
      for (const auto& a : m_schema.arguments()) known |= a.name() == name;
      if (!known) fail("attrs['" + name + "'] is not an argument of " + m_schema.name());
    }
    const Literal* sizesAttr = attr("_tensor_list_sizes");
    const Literal::List* sizes = sizesAttr ? sizesAttr->asList() : nullptr;
    if (sizesAttr && !sizes) fail("attrs['_tensor_list_sizes'] is not a list");
    std::size_t k = 0;
    for (const auto& a : m_schema.arguments()) {
      SlotUse u;
      u.arg = &a;
      u.slot = slotOf(a.real_type());
      u.attr = attr(a.name());
      const bool list = u.slot == Slot::TensorList || u.slot == Slot::OptionalTensorList;
      // pytorch-ir counts the positional tensor lists it saw, in order; a list's size counts its tensors.
      if (list && !a.kwarg_only() && sizes && k < sizes->size()) u.listSize = listSize((*sizes)[k++]);
      m_slots.push_back(u);
    }
    pairNoneMasks();
  }

  /// Masks exist only for lists holding a None, so the k-th mask need not be the k-th list's: a
  /// mask goes to the next Tensor?[] list whose tensor count it fits.
  void pairNoneMasks() {
    const Literal* masksAttr = attr("_tensor_list_none_masks");
    if (!masksAttr) return;
    const Literal::List* masks = masksAttr->asList();
    if (!masks) fail("attrs['_tensor_list_none_masks'] is not a list");
    std::size_t s = 0;
    for (const auto& entry : *masks) {
      const Literal::List* mask = entry.asList();
      if (!mask) fail("a _tensor_list_none_masks entry is not a list");
      int present = 0;
      for (const auto& isNone : *mask) {
        if (!isNone.asBool()) fail("a _tensor_list_none_masks entry holds a value other than True or False");
        present += *isNone.asBool() ? 0 : 1;
      }
      while (s < m_slots.size() && !(m_slots[s].slot == Slot::OptionalTensorList && m_slots[s].listSize == present)) ++s;
      if (s == m_slots.size()) fail("a _tensor_list_none_masks entry fits no Tensor?[] argument");
      m_slots[s++].noneMask = mask;
    }
  }

  /// Which optional tensor slots the inputs fill. The IR drops None tensors, so with fewer inputs
  /// than slots position alone cannot tell (batch_norm(x, None, bias, mean, var) arrives as four
  /// inputs for five slots); the names of the inputs usually can.
  void placeOptionalTensors() {
    int required = 0, inLists = 0;
    std::vector<std::size_t> optional;
    for (std::size_t i = 0; i < m_slots.size(); ++i) {
      const SlotUse& u = m_slots[i];
      if (u.takesInput() && u.slot == Slot::Tensor) ++required;
      if (u.takesInput() && u.slot == Slot::OptionalTensor) optional.push_back(i);
      if (u.listSize > 0) inLists += u.listSize;
    }
    fillUnsizedList(required, inLists);
    const int present = static_cast<int>(m_inputs.size()) - required - inLists;
    if (present < 0 || present > static_cast<int>(optional.size()))
      fail("the node has " + std::to_string(m_inputs.size()) + " tensor inputs; the schema takes " + std::to_string(required) +
           " tensors, " + std::to_string(inLists) + " in lists and up to " + std::to_string(optional.size()) + " optional ones");
    m_present.assign(m_slots.size(), false);
    if (present == 0 || present == static_cast<int>(optional.size())) {
      for (std::size_t i : optional) m_present[i] = present > 0;
      return;
    }
    if (optional.size() > 16) fail("too many optional tensor arguments to place");
    m_ambiguousFrom = optional.front();
    // Every way to choose `present` of the optional slots, inputs keeping their order; the one
    // whose inputs' names match their slots best wins, if it wins alone.
    int bestScore = 0, bestCount = 0;
    uint32_t best = 0;
    for (uint32_t mask = 0; mask < (1u << optional.size()); ++mask) {
      if (__builtin_popcount(mask) != present) continue;
      std::vector<bool> chosen(m_slots.size(), false);
      for (std::size_t b = 0; b < optional.size(); ++b) chosen[optional[b]] = mask & (1u << b);
      const int score = nameScore(chosen);
      if (score > bestScore) bestScore = score, bestCount = 1, best = mask;
      else if (score == bestScore) ++bestCount;
    }
    m_byName = bestScore > 0 && bestCount == 1;
    for (std::size_t b = 0; b < optional.size(); ++b)
      m_present[optional[b]] = m_byName ? (best & (1u << b)) != 0 : static_cast<int>(b) < present;  // else the seed's rule
  }

  /// A positional tensor list without a size (an IR written without _tensor_list_sizes) takes
  /// the inputs the single tensors leave.
  void fillUnsizedList(int required, int& inLists) {
    for (auto& u : m_slots) {
      const bool list = u.slot == Slot::TensorList || u.slot == Slot::OptionalTensorList;
      if (!list || u.listSize >= 0 || u.arg->kwarg_only() || u.attr || u.arg->default_value()) continue;
      u.listSize = std::max(0, static_cast<int>(m_inputs.size()) - required - inLists);
      inLists += u.listSize;
      m_unsizedList = true;
    }
  }

  /// How many single-tensor slots get an input whose name ends like the slot's (`b_bn_running_var`
  /// for `running_var`, `p_bias` for `bias`), with the given optional slots present.
  int nameScore(const std::vector<bool>& chosen) const {
    int score = 0;
    std::size_t next = 0;
    for (std::size_t i = 0; i < m_slots.size() && next < m_inputs.size(); ++i) {
      const SlotUse& u = m_slots[i];
      if (u.listSize > 0) next += static_cast<std::size_t>(u.listSize);
      if (!u.takesInput() || (u.slot == Slot::OptionalTensor && !chosen[i])) continue;
      if (next < m_inputs.size() && nameFits(m_inputs[next], u.arg->name())) ++score;
      ++next;
    }
    return score;
  }

  static bool nameFits(const IrInput& in, const std::string& slot) {
    const auto want = tokens(slot);
    if (want.empty()) return false;
    for (const std::string* name : {&in.name, &in.weightKey}) {
      const auto have = tokens(*name);
      if (!have.empty() && have.back() == want.back()) return true;
    }
    return false;
  }

  std::pair<ArgPlan, ArgumentRecord> planArgument(const SlotUse& u, std::size_t index, std::size_t& next) const {
    const c10::Argument& a = *u.arg;
    ArgPlan p;
    p.type = a.real_type();
    ArgumentRecord rec;
    rec.name = a.name();
    rec.declaredType = declaredTypeOf(a);
    const bool inferred = m_ambiguousFrom && index >= *m_ambiguousFrom &&
                          (u.slot == Slot::Tensor || u.slot == Slot::OptionalTensor) && u.takesInput();
    auto constant = [&](c10::IValue v, ArgSource source, std::string detail) {
      p.constant = std::move(v);
      rec.source = source;
      rec.sourceDetail = std::move(detail);
      rec.value = summarize(p.constant);
    };
    if (u.listSize >= 0) {
      planList(u, p, rec, next);
    } else if (u.takesInput() && (u.slot == Slot::Tensor || m_present[index])) {
      if (next >= m_inputs.size()) fail("argument '" + a.name() + "' has no tensor input left");
      const IrInput& in = m_inputs[next++];
      p.kind = ArgPlan::FrameValue;
      p.value = in.value;
      rec.source = inferred ? ArgSource::Inferred : ArgSource::Input;
      rec.sourceDetail = inferred ? in.name + why(true) : in.name;
    } else if (u.attr) {
      const bool tensor = u.slot == Slot::Tensor || u.slot == Slot::OptionalTensor;
      c10::IValue v = tensor && !u.attr->isNone() ? irWrappedNumber(*u.attr) : irAttributeValue(*u.attr, p.type, a.N());
      constant(std::move(v), ArgSource::Attribute, "attrs['" + a.name() + "']");
    } else if (inferred) {
      constant(c10::IValue(), ArgSource::Inferred, "None" + why(false));
    } else if (a.default_value()) {
      constant(*a.default_value(), ArgSource::Default, "schema default");
    } else if (p.type->kind() == c10::TypeKind::OptionalType) {
      // pytorch-ir omits a None tensor (batch_norm's weight has no default)
      constant(c10::IValue(), ArgSource::Default, "None: not among the node's inputs or attrs");
    } else {
      fail("argument '" + a.name() + "' is in neither the node's inputs nor its attrs and has no default");
    }
    return {std::move(p), std::move(rec)};
  }

  /// Why an optional tensor's placement was inferred, for the argument view.
  std::string why(bool given) const {
    if (m_byName)
      return given ? ": placed here by its name; the IR drops None optional tensors, so position alone is ambiguous"
                   : ": no input's name fits it; the IR drops None optional tensors, so position alone is ambiguous";
    return given ? ": placed by position as pytorch-ir does; the IR drops None optional tensors and no input name decides"
                 : ": by position as pytorch-ir does; the IR drops None optional tensors and no input name decides";
  }

  void planList(const SlotUse& u, ArgPlan& p, ArgumentRecord& rec, std::size_t& next) const {
    const std::size_t n = static_cast<std::size_t>(u.listSize);
    if (next + n > m_inputs.size()) fail("argument '" + u.arg->name() + "' needs " + std::to_string(n) + " tensors, fewer are left");
    std::string names;
    auto take = [&] {
      const IrInput& in = m_inputs[next++];
      names += (names.empty() ? "" : ", ") + in.name;
      return in.value;
    };
    p.kind = u.slot == Slot::OptionalTensorList ? ArgPlan::OptionalFrameList : ArgPlan::FrameList;
    if (u.noneMask) {
      for (const auto& isNone : *u.noneMask) {
        if (!*isNone.asBool()) p.values.push_back(take());
        else {
          p.values.push_back(kNone);
          names += (names.empty() ? "" : ", ") + std::string("None");
        }
      }
    } else {
      for (std::size_t i = 0; i < n; ++i) p.values.push_back(take());
    }
    rec.source = m_unsizedList ? ArgSource::Inferred : ArgSource::Input;
    rec.sourceDetail = m_unsizedList ? names + ": no _tensor_list_sizes, so the inputs the single tensors leave" : names;
  }

  const c10::FunctionSchema& m_schema;
  std::vector<IrInput> m_inputs;
  std::map<std::string, const Literal*> m_attrs;
  std::vector<SlotUse> m_slots;
  std::vector<bool> m_present;                 // per slot: an optional tensor that gets an input
  std::optional<std::size_t> m_ambiguousFrom;  // the first slot whose input position was a guess
  bool m_byName = false;
  bool m_unsizedList = false;
};

}  // namespace

CallPlan planIrCall(const Program& program, const Node& node, const c10::FunctionSchema& schema) {
  CallPlan plan = Planner(program, node, schema).plan();
  markWrappedNumbers(plan, schema);
  return plan;
}

CallPlan planIrGetItem(const Program& program, const Node& node) {
  CallPlan plan;
  ArgPlan list;
  list.kind = ArgPlan::FrameList;
  ArgumentRecord listRec{"outputs", "Tensor[]", ArgSource::Input, "", {}};
  const Literal* index = nullptr;
  for (const auto& a : node.inputs) {
    if (const auto* attr = a.arg.as<arg::Attribute>()) {
      if (a.name == "index") index = &attr->value;
      continue;
    }
    if (a.values.size() != 1) throw std::runtime_error("getitem's inputs must be tensors");
    list.values.push_back(a.values.front());
    listRec.sourceDetail += (listRec.sourceDetail.empty() ? "" : ", ") + program.value(a.values.front()).name;
  }
  const int64_t i = index && index->asInt() ? *index->asInt() : 0;  // pytorch-ir's default
  if (i < 0 || i >= static_cast<int64_t>(list.values.size()))
    throw std::runtime_error("getitem index " + std::to_string(i) + " is outside its " + std::to_string(list.values.size()) + " inputs");
  ArgPlan pick;
  pick.constant = i;
  ArgumentRecord atRec{"index", "int", index ? ArgSource::Attribute : ArgSource::Default,
                       index ? "attrs['index']" : "pytorch-ir's default", summarize(pick.constant)};
  plan.args = {std::move(list), std::move(pick)};
  plan.records = {std::move(listRec), std::move(atRec)};
  return plan;
}

}  // namespace torchir
