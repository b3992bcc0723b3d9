#include "ArgumentBuilder.h"

#include <ATen/ATen.h>

#include <set>
#include <sstream>

#include "IValueSummary.h"
#include "program/LenientJson.h"

namespace torchir {
namespace {

using nlohmann::json;

int64_t dtypeArg(const json& b) {
  const auto d = dtypeFromSerialized(b.get<int>());
  if (!d) throw std::runtime_error("unknown serialized dtype " + b.dump());
  return static_cast<int64_t>(*d);
}


/// Converts serialized arguments, taking tensors and symbols from the frame in order.
class Converter {
 public:
  Converter(const NodeArgument& a, const FrameValues& frame) : m_next(a.values.begin()), m_frame(frame) {}

  c10::IValue value(const json& arg, const c10::TypePtr& type) {
    const std::string kind = arg.begin().key();
    const json& b = arg.at(kind);
    switch (type->kind()) {
      case c10::TypeKind::OptionalType:
        if (kind == "as_none") return {};
        if (kind == "as_optional_tensor")
          return b.begin().key() == "as_none" ? c10::IValue() : c10::IValue(frameValue());
        return value(arg, type->castRaw<c10::OptionalType>()->getElementType());
      case c10::TypeKind::TensorType:
        if (kind == "as_tensor") return frameValue();
        if (kind == "as_optional_tensor") return frameValue();
        if (kind == "as_sym_int" || kind == "as_sym_float") return wrappedSymbol(symbol(b));  // `x * b` with b = x.shape[0]
        return wrappedNumber(kind, b);  // a number in a Tensor slot, as Python passes `x * 0.5`
      case c10::TypeKind::ListType: return list(kind, b, type->castRaw<c10::ListType>()->getElementType());
      case c10::TypeKind::IntType:
      case c10::TypeKind::SymIntType:
        if (kind == "as_sym_int") return symbol(b);
        return b.get<int64_t>();
      case c10::TypeKind::FloatType:
      case c10::TypeKind::SymFloatType:
        if (kind == "as_sym_float") return symbol(b);
        return serializedFloat(b);
      case c10::TypeKind::BoolType:
      case c10::TypeKind::SymBoolType:
        if (kind == "as_sym_bool") return symbol(b);
        return b.get<bool>();
      case c10::TypeKind::NumberType:
        if (kind == "as_int") return b.get<int64_t>();
        if (kind == "as_float") return serializedFloat(b);
        if (kind == "as_bool") return b.get<bool>();
        if (kind == "as_sym_int" || kind == "as_sym_float") return symbol(b);
        break;
      case c10::TypeKind::StringType: return b.get<std::string>();
      case c10::TypeKind::ScalarTypeType: return dtypeArg(b);
      case c10::TypeKind::LayoutType: return c10Layout(b.get<int>());
      case c10::TypeKind::MemoryFormatType: return c10MemoryFormat(b.get<int>());
      case c10::TypeKind::DeviceObjType: {
        std::string dev = b.at("type").get<std::string>();
        if (dev == "meta") dev = "cpu";  // a meta export creates tensors on the CPU when it runs
        if (b.contains("index") && b.at("index").is_number_integer()) dev += ":" + b.at("index").dump();
        return c10::Device(dev);
      }
      case c10::TypeKind::GeneratorType:
        if (kind == "as_none") return {};
        break;
      default: break;
    }
    throw std::runtime_error("cannot pass a serialized " + kind + " as " + type->str());
  }

 private:
  c10::IValue frameValue() {
    const ValueId v = *m_next++;
    const c10::IValue& iv = m_frame[static_cast<std::size_t>(v)];
    if (iv.isNone()) throw MissingValue(v);
    return iv;
  }

  c10::IValue symbol(const json& b) {
    const std::string k = b.begin().key();
    if (k == "as_name") return frameValue();
    if (k == "as_int") return b.at(k).get<int64_t>();
    if (k == "as_float") return serializedFloat(b.at(k));
    return b.at(k).get<bool>();
  }

  static c10::IValue wrappedSymbol(const c10::IValue& v) {
    at::Tensor t = v.isInt() ? at::scalar_tensor(v.toInt(), at::kLong) : at::scalar_tensor(v.toDouble(), at::kDouble);
    t.unsafeGetTensorImpl()->set_wrapped_number(true);
    return t;
  }

  static c10::IValue wrappedNumber(const std::string& kind, const json& b) {
    at::Tensor t;
    if (kind == "as_int") t = at::scalar_tensor(b.get<int64_t>(), at::kLong);
    else if (kind == "as_float") t = at::scalar_tensor(serializedFloat(b), at::kDouble);
    else if (kind == "as_bool") t = at::scalar_tensor(b.get<bool>(), at::kBool);
    else throw std::runtime_error("cannot pass a serialized " + kind + " as Tensor");
    t.unsafeGetTensorImpl()->set_wrapped_number(true);
    return t;
  }

  c10::IValue list(const std::string& kind, const json& b, const c10::TypePtr& elem) {
    const auto ek = elem->kind();
    if (ek == c10::TypeKind::TensorType) {
      c10::List<at::Tensor> out;
      for (std::size_t i = 0; i < b.size(); ++i) out.push_back(frameValue().toTensor());
      return out;
    }
    if (ek == c10::TypeKind::OptionalType) {
      c10::List<std::optional<at::Tensor>> out;
      for (const auto& t : b) {
        if (t.begin().key() == "as_none") out.push_back(std::nullopt);
        else out.push_back(frameValue().toTensor());
      }
      return out;
    }
    if (ek == c10::TypeKind::IntType || ek == c10::TypeKind::SymIntType) {
      c10::List<int64_t> out;
      for (const auto& x : b) out.push_back(kind == "as_sym_ints" ? symbol(x).toInt() : x.get<int64_t>());
      return out;
    }
    if (ek == c10::TypeKind::FloatType) {
      c10::List<double> out;
      for (const auto& x : b) out.push_back(serializedFloat(x));
      return out;
    }
    if (ek == c10::TypeKind::BoolType) {
      c10::List<bool> out;
      for (const auto& x : b) out.push_back(x.get<bool>());
      return out;
    }
    throw std::runtime_error("cannot pass a serialized " + kind + " as " + elem->str() + "[]");
  }

  std::vector<ValueId>::const_iterator m_next;
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
      p.constant = Converter(*given, kNoFrame).value(given->arg, p.type);
      rec.source = ArgSource::Attribute;
      rec.sourceDetail = "given";
      rec.value = summarize(p.constant);
    } else if (given) {
      const bool plainTensor = given->values.size() == 1 && given->arg.begin().key() == "as_tensor" &&
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
      case ArgPlan::Converted: stack.push_back(Converter(*p.given, frame).value(p.given->arg, p.type)); break;
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
