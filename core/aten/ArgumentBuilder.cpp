#include "ArgumentBuilder.h"

#include <ATen/ATen.h>

#include <set>
#include <sstream>

#include "IValueSummary.h"

namespace torchir {
namespace {

int64_t dtypeArg(int code) {
  const auto d = dtypeFromSerialized(code);
  if (!d) throw std::runtime_error("unknown serialized dtype " + std::to_string(code));
  return static_cast<int64_t>(*d);
}

[[noreturn]] void misfit(const Argument& a, const c10::TypePtr& type) {
  throw std::runtime_error("cannot pass a serialized " + std::string(argumentTypeName(a)) + " as " + type->str());
}

/// Converts typed arguments to the IValue an op schema wants, taking tensors and symbols from the frame.
class Converter {
 public:
  explicit Converter(const FrameValues& frame) : m_frame(frame) {}

  c10::IValue value(const Argument& a, const c10::TypePtr& type) {
    switch (type->kind()) {
      case c10::TypeKind::OptionalType:
        if (a.is<arg::None>()) return {};
        if (const auto* o = a.as<arg::OptionalTensor>()) return o->tensor ? frameValue(o->tensor->value) : c10::IValue();
        return value(a, type->castRaw<c10::OptionalType>()->getElementType());
      case c10::TypeKind::TensorType:
        if (const auto* t = a.as<arg::Tensor>()) return frameValue(t->tensor.value);
        if (const auto* o = a.as<arg::OptionalTensor>(); o && o->tensor) return frameValue(o->tensor->value);
        if (const auto* si = a.as<arg::SymInt>()) return wrappedSymbol(symbol(si->sym));  // `x * b` with b = x.shape[0]
        if (const auto* sf = a.as<arg::SymFloat>()) return wrappedSymbol(symbol(sf->sym));
        return wrappedNumber(a, type);  // a number in a Tensor slot, as Python passes `x * 0.5`
      case c10::TypeKind::ListType: return list(a, type->castRaw<c10::ListType>()->getElementType(), type);
      case c10::TypeKind::IntType:
      case c10::TypeKind::SymIntType:
        if (const auto* si = a.as<arg::SymInt>()) return symbol(si->sym);
        if (const auto* i = a.as<arg::Int>()) return i->value;
        break;
      case c10::TypeKind::FloatType:
      case c10::TypeKind::SymFloatType:
        if (const auto* sf = a.as<arg::SymFloat>()) return symbol(sf->sym);
        if (const auto* f = a.as<arg::Float>()) return f->value;
        if (const auto* i = a.as<arg::Int>()) return static_cast<double>(i->value);
        break;
      case c10::TypeKind::BoolType:
      case c10::TypeKind::SymBoolType:
        if (const auto* sb = a.as<arg::SymBool>()) return symbol(sb->sym);
        if (const auto* b = a.as<arg::Bool>()) return b->value;
        break;
      case c10::TypeKind::NumberType:
        if (const auto* i = a.as<arg::Int>()) return i->value;
        if (const auto* f = a.as<arg::Float>()) return f->value;
        if (const auto* b = a.as<arg::Bool>()) return b->value;
        if (const auto* si = a.as<arg::SymInt>()) return symbol(si->sym);
        if (const auto* sf = a.as<arg::SymFloat>()) return symbol(sf->sym);
        if (const auto* sb = a.as<arg::SymBool>()) return symbol(sb->sym);  // _assert_scalar(u0 >= 0, ...)
        break;
      case c10::TypeKind::StringType:
        if (const auto* s = a.as<arg::String>()) return s->value;
        break;
      case c10::TypeKind::ScalarTypeType:
        if (const auto* t = a.as<arg::ScalarType>()) return dtypeArg(t->code);
        break;
      case c10::TypeKind::LayoutType:
        if (const auto* l = a.as<arg::Layout>()) return c10Layout(l->code);
        break;
      case c10::TypeKind::MemoryFormatType:
        if (const auto* m = a.as<arg::MemoryFormat>()) return c10MemoryFormat(m->code);
        break;
      case c10::TypeKind::DeviceObjType:
        if (const auto* d = a.as<arg::Device>()) {
          std::string dev = d->type == "meta" ? "cpu" : d->type;  // a meta export creates tensors on the CPU when it runs
          if (d->index) dev += ":" + std::to_string(*d->index);
          return c10::Device(dev);
        }
        break;
      case c10::TypeKind::GeneratorType:
        if (a.is<arg::None>()) return {};
        break;
      default: break;
    }
    misfit(a, type);
  }

 private:
  c10::IValue frameValue(ValueId v) const {
    const c10::IValue& iv = m_frame[static_cast<std::size_t>(v)];
    if (iv.isNone()) throw MissingValue(v);
    return iv;
  }

  template <class T>
  c10::IValue symbol(const Symbolic<T>& s) const {
    return s.isValue() ? frameValue(s.value) : c10::IValue(s.constant);
  }

  static c10::IValue wrappedSymbol(const c10::IValue& v) {
    at::Tensor t = v.isInt() ? at::scalar_tensor(v.toInt(), at::kLong) : at::scalar_tensor(v.toDouble(), at::kDouble);
    t.unsafeGetTensorImpl()->set_wrapped_number(true);
    return t;
  }

  static c10::IValue wrappedNumber(const Argument& a, const c10::TypePtr& type) {
    at::Tensor t;
    if (const auto* i = a.as<arg::Int>()) t = at::scalar_tensor(i->value, at::kLong);
    else if (const auto* f = a.as<arg::Float>()) t = at::scalar_tensor(f->value, at::kDouble);
    else if (const auto* b = a.as<arg::Bool>()) t = at::scalar_tensor(b->value, at::kBool);
    else misfit(a, type);
    t.unsafeGetTensorImpl()->set_wrapped_number(true);
    return t;
  }

  c10::IValue list(const Argument& a, const c10::TypePtr& elem, const c10::TypePtr& type) {
    switch (elem->kind()) {
      case c10::TypeKind::TensorType:
        if (const auto* ts = a.as<arg::Tensors>()) {
          c10::List<at::Tensor> out;
          out.reserve(ts->tensors.size());
          for (const auto& t : ts->tensors) out.push_back(frameValue(t.value).toTensor());
          return out;
        }
        break;
      case c10::TypeKind::OptionalType: {
        c10::List<std::optional<at::Tensor>> out;
        if (const auto* os = a.as<arg::OptionalTensors>()) {
          for (const auto& t : os->tensors)
            out.push_back(t ? std::optional(frameValue(t->value).toTensor()) : std::nullopt);
          return out;
        }
        if (const auto* ts = a.as<arg::Tensors>()) {
          for (const auto& t : ts->tensors) out.push_back(frameValue(t.value).toTensor());
          return out;
        }
        break;
      }
      case c10::TypeKind::IntType:
      case c10::TypeKind::SymIntType: {
        c10::List<int64_t> out;
        if (const auto* is = a.as<arg::Ints>()) {
          for (int64_t i : is->values) out.push_back(i);
          return out;
        }
        if (const auto* ss = a.as<arg::SymInts>()) {
          for (const auto& s : ss->values) out.push_back(symbol(s).toInt());
          return out;
        }
        break;
      }
      case c10::TypeKind::FloatType: {
        c10::List<double> out;
        if (const auto* fs = a.as<arg::Floats>()) {
          for (double f : fs->values) out.push_back(f);
          return out;
        }
        if (const auto* is = a.as<arg::Ints>()) {
          for (int64_t i : is->values) out.push_back(static_cast<double>(i));
          return out;
        }
        break;
      }
      case c10::TypeKind::BoolType:
        if (const auto* bs = a.as<arg::Bools>()) {
          c10::List<bool> out;
          for (bool b : bs->values) out.push_back(b);
          return out;
        }
        break;
      default: break;
    }
    misfit(a, type);
  }

  const FrameValues& m_frame;
};

}  // namespace

int64_t c10MemoryFormat(int serialized) {
  switch (serialized) {
    case 2: return static_cast<int64_t>(at::MemoryFormat::ChannelsLast);
    case 3: return static_cast<int64_t>(at::MemoryFormat::ChannelsLast3d);
    case 4: return static_cast<int64_t>(at::MemoryFormat::Preserve);
    default: return static_cast<int64_t>(at::MemoryFormat::Contiguous);
  }
}

int64_t c10Layout(int serialized) {
  return serialized == 7 || serialized == 0 ? static_cast<int64_t>(at::kStrided) : static_cast<int64_t>(at::kSparse);
}

std::string declaredTypeOf(const c10::Argument& a) {
  // The argument without its name and default, printed as the schema prints it.
  const c10::Argument bare("", a.type(), a.real_type(), a.N(), std::nullopt, false,
                           a.alias_info() ? std::optional<c10::AliasInfo>(*a.alias_info()) : std::nullopt);
  std::ostringstream os;
  os << bare;
  return os.str();
}

void shadowFloatingDtypes(CallPlan& plan, DType to) {
  for (std::size_t i = 0; i < plan.args.size(); ++i) {
    ArgPlan& p = plan.args[i];
    c10::TypePtr type = p.type;
    if (type->kind() == c10::TypeKind::OptionalType) type = type->castRaw<c10::OptionalType>()->getElementType();
    if (p.kind != ArgPlan::Constant || type->kind() != c10::TypeKind::ScalarTypeType || !p.constant.isInt()) continue;
    if (!at::isFloatingType(static_cast<at::ScalarType>(p.constant.toInt()))) continue;
    p.constant = static_cast<int64_t>(to);
    if (i < plan.records.size()) plan.records[i].value = summarize(p.constant);
  }
}

CallPlan planCall(const Program& program, const Node& node, const c10::FunctionSchema& schema) {
  CallPlan plan;
  static const FrameValues kNoFrame;
  for (const auto& sa : schema.arguments()) {
    const NodeArgument* given = nullptr;
    for (const auto& a : node.inputs)
      if (a.name == sa.name()) given = &a;
    ArgPlan p;
    p.type = sa.real_type();
    ArgumentRecord rec;
    rec.name = sa.name();
    rec.declaredType = declaredTypeOf(sa);
    if (given && given->values.empty()) {
      p.constant = Converter(kNoFrame).value(given->arg, p.type);
      rec.source = ArgSource::Attribute;
      rec.sourceDetail = "given";
      rec.value = summarize(p.constant);
    } else if (given) {
      const bool plainTensor = given->values.size() == 1 && given->arg.is<arg::Tensor>() &&
                               p.type->kind() == c10::TypeKind::TensorType;
      p.kind = plainTensor ? ArgPlan::FrameValue : ArgPlan::Converted;
      p.value = given->values.front();
      p.given = given;
      rec.source = ArgSource::Input;
      rec.sourceDetail = program.value(given->values.front()).name;
    } else if (sa.default_value()) {
      p.constant = *sa.default_value();
      rec.source = ArgSource::Default;
      rec.sourceDetail = "schema default";
      rec.value = summarize(p.constant);
    } else {
      throw std::runtime_error("argument '" + sa.name() + "' is neither given nor has a default");
    }
    plan.args.push_back(std::move(p));
    plan.records.push_back(std::move(rec));
  }
  markWrappedNumbers(plan, schema);
  return plan;
}

void markWrappedNumbers(CallPlan& plan, const c10::FunctionSchema& schema) {
  // TensorIterator binary ops that promote their inputs to the common dtype before the kernel.
  static const std::set<std::string> kPromotingBinaryOps = {
      "aten::add", "aten::sub", "aten::mul", "aten::div", "aten::rsub", "aten::eq", "aten::ne",
      "aten::lt", "aten::le", "aten::gt", "aten::ge", "aten::maximum", "aten::minimum", "aten::add_",
      "aten::sub_", "aten::mul_", "aten::div_"};
  if (plan.args.size() < 2 || !kPromotingBinaryOps.count(schema.name())) return;
  // An in-place op writes slot 0 (`self`): only its other operand may be a number.
  const bool inPlace = schema.name().back() == '_';
  for (std::size_t i = inPlace ? 1 : 0; i < 2; ++i) {
    ArgPlan& number = plan.args[i];
    const ArgPlan& peer = plan.args[1 - i];
    if (number.kind != ArgPlan::Constant || !number.constant.isTensor() || peer.kind != ArgPlan::FrameValue) continue;
    const at::Tensor& t = number.constant.toTensor();
    if (!t.unsafeGetTensorImpl()->is_wrapped_number() || t.scalar_type() != at::kDouble) continue;
    at::Tensor asFloat = t.to(at::kFloat);  // the cast TensorIterator would make
    asFloat.unsafeGetTensorImpl()->set_wrapped_number(true);
    number.asFloat = std::move(asFloat);
    number.peer = 1 - i;
    number.kind = ArgPlan::WrappedNumber;
  }
}

namespace {
at::Tensor frameTensor(const FrameValues& frame, ValueId v) {
  const c10::IValue& iv = frame[static_cast<std::size_t>(v)];
  if (!iv.isTensor()) throw MissingValue(v);
  return iv.toTensor();
}
}  // namespace

void pushArguments(const CallPlan& plan, const FrameValues& frame, torch::jit::Stack& stack) {
  for (const auto& p : plan.args) {
    switch (p.kind) {
      case ArgPlan::Constant: stack.push_back(p.constant); break;
      case ArgPlan::WrappedNumber: {
        const c10::IValue& peer = frame[static_cast<std::size_t>(plan.args[p.peer].value)];
        const bool float32 = peer.isTensor() && peer.toTensor().scalar_type() == at::kFloat;
        stack.push_back(float32 ? p.asFloat : p.constant);
        break;
      }
      case ArgPlan::FrameValue: {
        const c10::IValue& v = frame[static_cast<std::size_t>(p.value)];
        if (v.isNone()) throw MissingValue(p.value);
        stack.push_back(v);
        break;
      }
      case ArgPlan::Converted: stack.push_back(Converter(frame).value(p.given->arg, p.type)); break;
      case ArgPlan::FrameList: {
        c10::List<at::Tensor> list;
        for (ValueId v : p.values) list.push_back(frameTensor(frame, v));
        stack.push_back(std::move(list));
        break;
      }
      case ArgPlan::OptionalFrameList: {
        c10::List<std::optional<at::Tensor>> list;
        for (ValueId v : p.values) list.push_back(v == kNone ? std::nullopt : std::optional(frameTensor(frame, v)));
        stack.push_back(std::move(list));
        break;
      }
    }
  }
}

}  // namespace torchir
