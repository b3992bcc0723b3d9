#include "IrAttributes.h"

#include <ATen/ATen.h>

#include <cmath>
#include <limits>

#include "program/DType.h"

namespace torchir {
namespace {

[[noreturn]] void misfit(const Literal& v, const c10::TypePtr& type) {
  throw std::runtime_error("cannot pass the attribute value " + pythonLiteral(v) + " as " + type->str());
}

/// "torch.float32" -> "float32": users stringify torch objects with str().
std::string withoutTorchPrefix(const std::string& s) { return s.rfind("torch.", 0) == 0 ? s.substr(6) : s; }

std::optional<double> floatOf(const Literal& v) {
  if (const auto* f = v.asFloat()) return *f;
  if (const auto* i = v.asInt()) return static_cast<double>(*i);
  const auto* text = v.asString();
  if (!text) return std::nullopt;
  const std::string& s = *text;  // non-finite floats some writers quote
  if (s == "Infinity" || s == "inf") return std::numeric_limits<double>::infinity();
  if (s == "-Infinity" || s == "-inf") return -std::numeric_limits<double>::infinity();
  if (s == "NaN" || s == "nan") return std::numeric_limits<double>::quiet_NaN();
  return std::nullopt;
}

int64_t intOf(const Literal& v, const c10::TypePtr& type) {
  if (const auto* i = v.asInt()) return *i;
  if (const auto* b = v.asBool()) return *b ? 1 : 0;
  if (const auto* f = v.asFloat(); f && std::nearbyint(*f) == *f && std::fabs(*f) < 9.2e18) return static_cast<int64_t>(*f);
  misfit(v, type);
}

/// A string attribute without "torch.", or "" for any other kind.
std::string nameOf(const Literal& v) { return v.asString() ? withoutTorchPrefix(*v.asString()) : std::string(); }

int64_t scalarTypeOf(const Literal& v, const c10::TypePtr& type) {
  if (const auto* i = v.asInt()) return *i;  // already c10's numbering
  if (!v.asString()) misfit(v, type);
  const auto d = dtypeFromName(*v.asString());
  if (!d || *d == DType::Unknown) misfit(v, type);
  return static_cast<int64_t>(*d);  // DType is numbered as c10::ScalarType
}

int64_t layoutOf(const Literal& v, const c10::TypePtr& type) {
  if (const auto* i = v.asInt()) return *i;
  const std::string s = nameOf(v);
  if (s == "strided") return static_cast<int64_t>(at::kStrided);
  if (s == "sparse_coo") return static_cast<int64_t>(at::kSparse);
  if (s == "sparse_csr") return static_cast<int64_t>(at::kSparseCsr);
  misfit(v, type);
}

int64_t memoryFormatOf(const Literal& v, const c10::TypePtr& type) {
  if (const auto* i = v.asInt()) return *i;
  const std::string s = nameOf(v);
  if (s == "contiguous_format") return static_cast<int64_t>(at::MemoryFormat::Contiguous);
  if (s == "channels_last") return static_cast<int64_t>(at::MemoryFormat::ChannelsLast);
  if (s == "channels_last_3d") return static_cast<int64_t>(at::MemoryFormat::ChannelsLast3d);
  if (s == "preserve_format") return static_cast<int64_t>(at::MemoryFormat::Preserve);
  misfit(v, type);
}

c10::Device deviceOf(const Literal& v, const c10::TypePtr& type) {
  if (!v.asString()) misfit(v, type);
  const std::string& s = *v.asString();
  if (s == "meta" || s.rfind("meta:", 0) == 0) return c10::Device(c10::kCPU);
  try {
    return c10::Device(s);
  } catch (const c10::Error&) {
    misfit(v, type);
  }
}

c10::IValue listOf(const Literal& v, const c10::TypePtr& type, std::optional<int32_t> listSize) {
  const c10::TypePtr& elem = type->castRaw<c10::ListType>()->getElementType();
  Literal::List broadcast;
  const Literal::List* items = v.asList();
  if (!items) {  // `kernel_size=2` for an int[2], as Python broadcasts it
    if (!v.asInt() && !v.asFloat()) misfit(v, type);
    broadcast.assign(static_cast<std::size_t>(std::max(1, listSize.value_or(1))), v);
    items = &broadcast;
  }
  switch (elem->kind()) {
    case c10::TypeKind::IntType:
    case c10::TypeKind::SymIntType: {
      c10::List<int64_t> out;
      for (const auto& x : *items) out.push_back(intOf(x, elem));
      return out;
    }
    case c10::TypeKind::FloatType: {
      c10::List<double> out;
      for (const auto& x : *items) {
        const auto f = floatOf(x);
        if (!f) misfit(x, elem);
        out.push_back(*f);
      }
      return out;
    }
    case c10::TypeKind::BoolType: {
      c10::List<bool> out;
      for (const auto& x : *items) {
        if (!x.asBool()) misfit(x, elem);
        out.push_back(*x.asBool());
      }
      return out;
    }
    default: {
      c10::impl::GenericList out(elem);  // Scalar[], str[] and the like
      for (const auto& x : *items) out.push_back(irAttributeValue(x, elem));
      return out;
    }
  }
}

}  // namespace

c10::IValue irWrappedNumber(const Literal& v) {
  at::Tensor t;
  if (const auto* b = v.asBool()) t = at::scalar_tensor(*b, at::kBool);
  else if (const auto* i = v.asInt()) t = at::scalar_tensor(*i, at::kLong);
  else if (const auto f = floatOf(v)) t = at::scalar_tensor(*f, at::kDouble);
  else throw std::runtime_error("cannot pass the attribute value " + pythonLiteral(v) + " as Tensor");
  t.unsafeGetTensorImpl()->set_wrapped_number(true);
  return t;
}

c10::IValue irAttributeValue(const Literal& v, const c10::TypePtr& type, std::optional<int32_t> listSize) {
  switch (type->kind()) {
    case c10::TypeKind::OptionalType:
      if (v.isNone()) return {};
      return irAttributeValue(v, type->castRaw<c10::OptionalType>()->getElementType(), listSize);
    case c10::TypeKind::TensorType: return irWrappedNumber(v);
    case c10::TypeKind::ListType: return listOf(v, type, listSize);
    case c10::TypeKind::IntType:
    case c10::TypeKind::SymIntType: return intOf(v, type);
    case c10::TypeKind::FloatType:
    case c10::TypeKind::SymFloatType:
      if (const auto f = floatOf(v)) return *f;
      break;
    case c10::TypeKind::BoolType:
    case c10::TypeKind::SymBoolType:
      if (const auto* b = v.asBool()) return *b;
      if (const auto* i = v.asInt()) return *i != 0;
      break;
    case c10::TypeKind::NumberType:  // Scalar: keep Python's int/float/bool distinction
      if (const auto* b = v.asBool()) return *b;
      if (const auto* i = v.asInt()) return *i;
      if (const auto f = floatOf(v)) return *f;
      break;
    case c10::TypeKind::StringType:
      if (const auto* s = v.asString()) return *s;
      break;
    case c10::TypeKind::ScalarTypeType: return scalarTypeOf(v, type);
    case c10::TypeKind::LayoutType: return layoutOf(v, type);
    case c10::TypeKind::MemoryFormatType: return memoryFormatOf(v, type);
    case c10::TypeKind::DeviceObjType: return deviceOf(v, type);
    case c10::TypeKind::GeneratorType:
      if (v.isNone()) return {};
      break;
    default: break;
  }
  misfit(v, type);
}

}  // namespace torchir
