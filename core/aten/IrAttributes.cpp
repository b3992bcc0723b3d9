#include "IrAttributes.h"

#include <ATen/ATen.h>

#include <cmath>
#include <limits>

#include "program/DType.h"

namespace torchir {
namespace {

using nlohmann::json;

[[noreturn]] void misfit(const json& v, const c10::TypePtr& type) {
  throw std::runtime_error("cannot pass the attribute value " + v.dump() + " as " + type->str());
}

/// "torch.float32" -> "float32": users stringify torch objects with str().
std::string withoutTorchPrefix(const std::string& s) { return s.rfind("torch.", 0) == 0 ? s.substr(6) : s; }

std::optional<double> floatOf(const json& v) {
  if (v.is_number()) return v.get<double>();
  if (!v.is_string()) return std::nullopt;
  const std::string s = v.get<std::string>();  // non-finite floats some writers quote
  if (s == "Infinity" || s == "inf") return std::numeric_limits<double>::infinity();
  if (s == "-Infinity" || s == "-inf") return -std::numeric_limits<double>::infinity();
  if (s == "NaN" || s == "nan") return std::numeric_limits<double>::quiet_NaN();
  return std::nullopt;
}

int64_t intOf(const json& v, const c10::TypePtr& type) {
  if (v.is_number_integer()) return v.get<int64_t>();
  if (v.is_boolean()) return v.get<bool>() ? 1 : 0;
  if (v.is_number_float() && std::nearbyint(v.get<double>()) == v.get<double>()) return static_cast<int64_t>(v.get<double>());
  misfit(v, type);
}

int64_t scalarTypeOf(const json& v, const c10::TypePtr& type) {
  if (v.is_number_integer()) return v.get<int64_t>();  // already c10's numbering
  if (!v.is_string()) misfit(v, type);
  const auto d = dtypeFromName(v.get<std::string>());
  if (!d || *d == DType::Unknown) misfit(v, type);
  return static_cast<int64_t>(*d);  // DType is numbered as c10::ScalarType
}

int64_t layoutOf(const json& v, const c10::TypePtr& type) {
  if (v.is_number_integer()) return v.get<int64_t>();
  const std::string s = v.is_string() ? withoutTorchPrefix(v.get<std::string>()) : "";
  if (s == "strided") return static_cast<int64_t>(at::kStrided);
  if (s == "sparse_coo") return static_cast<int64_t>(at::kSparse);
  if (s == "sparse_csr") return static_cast<int64_t>(at::kSparseCsr);
  misfit(v, type);
}

int64_t memoryFormatOf(const json& v, const c10::TypePtr& type) {
  if (v.is_number_integer()) return v.get<int64_t>();
  const std::string s = v.is_string() ? withoutTorchPrefix(v.get<std::string>()) : "";
  if (s == "contiguous_format") return static_cast<int64_t>(at::MemoryFormat::Contiguous);
  if (s == "channels_last") return static_cast<int64_t>(at::MemoryFormat::ChannelsLast);
  if (s == "channels_last_3d") return static_cast<int64_t>(at::MemoryFormat::ChannelsLast3d);
  if (s == "preserve_format") return static_cast<int64_t>(at::MemoryFormat::Preserve);
  misfit(v, type);
}

c10::Device deviceOf(const json& v, const c10::TypePtr& type) {
  if (!v.is_string()) misfit(v, type);
  const std::string s = v.get<std::string>();
  if (s == "meta" || s.rfind("meta:", 0) == 0) return c10::Device(c10::kCPU);
  try {
    return c10::Device(s);
  } catch (const c10::Error&) {
    misfit(v, type);
  }
}

c10::IValue listOf(const json& v, const c10::TypePtr& type, std::optional<int32_t> listSize) {
  const c10::TypePtr& elem = type->castRaw<c10::ListType>()->getElementType();
  json items = v;
  if (!v.is_array()) {  // `kernel_size=2` for an int[2], as Python broadcasts it
    if (!v.is_number()) misfit(v, type);
    items = json::array();
    for (int32_t i = 0; i < listSize.value_or(1); ++i) items.push_back(v);
  }
  switch (elem->kind()) {
    case c10::TypeKind::IntType:
    case c10::TypeKind::SymIntType: {
      c10::List<int64_t> out;
      for (const auto& x : items) out.push_back(intOf(x, elem));
      return out;
    }
    case c10::TypeKind::FloatType: {
      c10::List<double> out;
      for (const auto& x : items) {
        const auto f = floatOf(x);
        if (!f) misfit(x, elem);
        out.push_back(*f);
      }
      return out;
    }
    case c10::TypeKind::BoolType: {
      c10::List<bool> out;
      for (const auto& x : items) {
        if (!x.is_boolean()) misfit(x, elem);
        out.push_back(x.get<bool>());
      }
      return out;
    }
    default: {
      c10::impl::GenericList out(elem);  // Scalar[], str[] and the like
      for (const auto& x : items) out.push_back(irAttributeValue(x, elem));
      return out;
    }
  }
}

}  // namespace

c10::IValue irWrappedNumber(const json& v) {
  at::Tensor t;
  if (v.is_boolean()) t = at::scalar_tensor(v.get<bool>(), at::kBool);
  else if (v.is_number_integer()) t = at::scalar_tensor(v.get<int64_t>(), at::kLong);
  else if (const auto f = floatOf(v)) t = at::scalar_tensor(*f, at::kDouble);
  else throw std::runtime_error("cannot pass the attribute value " + v.dump() + " as Tensor");
  t.unsafeGetTensorImpl()->set_wrapped_number(true);
  return t;
}

c10::IValue irAttributeValue(const json& v, const c10::TypePtr& type, std::optional<int32_t> listSize) {
  switch (type->kind()) {
    case c10::TypeKind::OptionalType:
      if (v.is_null()) return {};
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
      if (v.is_boolean()) return v.get<bool>();
      if (v.is_number_integer()) return v.get<int64_t>() != 0;
      break;
    case c10::TypeKind::NumberType:  // Scalar: keep Python's int/float/bool distinction
      if (v.is_boolean()) return v.get<bool>();
      if (v.is_number_integer()) return v.get<int64_t>();
      if (const auto f = floatOf(v)) return *f;
      break;
    case c10::TypeKind::StringType:
      if (v.is_string()) return v.get<std::string>();
      break;
    case c10::TypeKind::ScalarTypeType: return scalarTypeOf(v, type);
    case c10::TypeKind::LayoutType: return layoutOf(v, type);
    case c10::TypeKind::MemoryFormatType: return memoryFormatOf(v, type);
    case c10::TypeKind::DeviceObjType: return deviceOf(v, type);
    case c10::TypeKind::GeneratorType:
      if (v.is_null()) return {};
      break;
    default: break;
  }
  misfit(v, type);
}

}  // namespace torchir
