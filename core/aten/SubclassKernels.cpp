#include "SubclassKernels.h"

#include <ATen/ATen.h>
#include <torch/library.h>

#include "IValueSummary.h"
#include "TensorBridge.h"

namespace torchir {
namespace {

constexpr const char* kSchema = "export::access_subclass_inner_tensor(Tensor src_subclass_tensor, str attr) -> Tensor";

/// The subclass a value stands for, where the program says: the weight its placeholder names.
const TensorSubclass* subclassOf(const Program& p, ValueId v) {
  const InputSpec* spec = v == kNone ? nullptr : p.inputSpecFor(v);
  if (!spec) return nullptr;
  const auto it = p.weights.find(spec->target);
  return it == p.weights.end() ? nullptr : it->second.subclass.get();
}

class SubclassInnerKernel final : public NodeKernel {
 public:
  SubclassInnerKernel(const Program& p, const Node& n, ValueId source, std::string attribute)
      : m_program(p), m_node(n), m_source(source), m_attribute(std::move(attribute)) {}
  std::string schema() const override { return kSchema; }

  void run(FrameValues& frame, torch::jit::Stack&, NodeRun& run) override {
    const c10::IValue& held = frame.at(static_cast<std::size_t>(m_source));
    const std::string& name = m_program.value(m_source).name;
    run.ownArgs = records(held);
    if (held.isNone()) throw MissingValue(m_source);
    if (!held.isGenericDict())
      throw std::runtime_error("'" + name + "' is a plain tensor, not a tensor subclass: it has no inner tensor '" +
                               m_attribute + "'");
    const auto dict = held.toGenericDict();
    const auto it = dict.find(m_attribute);
    if (it == dict.end()) {
      std::string names;
      for (const auto& e : dict) names += (names.empty() ? "" : ", ") + e.key().toStringRef();
      throw std::runtime_error("the tensor subclass '" + name + "' has no inner tensor '" + m_attribute + "' (it has " +
                               names + ")");
    }
    if (!m_node.outputs.empty()) frame[static_cast<std::size_t>(m_node.outputs.front())] = it->value();
  }

 private:
  std::vector<ArgumentRecord> records(const c10::IValue& held) const {
    ArgumentRecord source{"src_subclass_tensor", "Tensor", ArgSource::Input, "input " + m_program.value(m_source).name, {}};
    source.value.kind = "Tensor";
    if (const TensorSubclass* sub = subclassOf(m_program, m_source)) {
      const TensorData& outer = m_program.weights.at(m_program.inputSpecFor(m_source)->target);
      source.value.dtype = outer.dtype;
      source.value.sizes = outer.sizes;
      source.value.strides = outer.strides;
      source.value.device = "cpu";
      source.value.text = sub->summary();
    } else {
      source.value = summarize(held);
    }
    ValueSummary attr{"str", DType::Unknown, {}, {}, {}, "'" + m_attribute + "'"};
    return {std::move(source), {"attr", "str", ArgSource::Attribute, "", attr}};
  }

  const Program& m_program;
  const Node& m_node;
  ValueId m_source;
  std::string m_attribute;
};

/// Reached only by a plain tensor: a subclass weight runs through SubclassInnerKernel, never the
/// dispatcher. Python's words for the same call.
at::Tensor notASubclass(const at::Tensor& src, c10::string_view) {
  TORCH_CHECK(false, "Expected src_subclass_tensor to be a traceable wrapper subclass, but got a plain ",
              src.scalar_type(), " tensor");
}

}  // namespace

// The schema torch defines in Python (torch/export/custom_ops.py), so the IR converter and schema
// lookups know the op as they know any dispatcher op.
TORCH_LIBRARY_FRAGMENT(export, m) { m.def("access_subclass_inner_tensor(Tensor src_subclass_tensor, str attr) -> Tensor"); }
TORCH_LIBRARY_IMPL(export, CompositeExplicitAutograd, m) { m.impl("access_subclass_inner_tensor", TORCH_FN(notASubclass)); }

c10::IValue subclassValue(const TensorSubclass& subclass, const std::function<at::Tensor(at::Tensor)>& place) {
  c10::impl::GenericDict dict(c10::StringType::get(), c10::AnyType::get());
  for (const auto& [name, t] : subclass.inner)
    dict.insert(name, t.subclass ? subclassValue(*t.subclass, place) : c10::IValue(place(toAten(t))));
  return dict;
}

bool isSubclassInnerTarget(const std::string& target) {
  return target == "export.access_subclass_inner_tensor.default" ||
         target == "torch.ops.export.access_subclass_inner_tensor.default" ||
         target == "export.access_subclass_inner_tensor";
}

std::unique_ptr<NodeKernel> subclassInnerKernel(const Program& p, const Node& n) {
  ValueId source = kNone;
  std::string attribute;
  bool named = false;
  for (const NodeArgument& a : n.inputs) {
    if (!a.values.empty() && source == kNone) source = a.values.front();
    else if (const auto* s = a.arg.as<arg::String>()) attribute = s->value, named = true;
    else if (const auto* l = a.arg.as<arg::Attribute>(); l && l->value.asString()) attribute = *l->value.asString(), named = true;
  }
  if (source == kNone || !named)
    return unsupportedKernel({DiagnosisClass::RuntimeError, "access_subclass_inner_tensor needs a tensor and the name of an attribute", {}},
                             kSchema);
  return std::make_unique<SubclassInnerKernel>(p, n, source, attribute);
}

}  // namespace torchir
