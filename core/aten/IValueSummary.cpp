#include "IValueSummary.h"

#include <ATen/ATen.h>

#include <sstream>

#include "program/PythonRepr.h"

namespace torchir {
namespace {

std::string shapeText(at::IntArrayRef sizes) {
  std::string s = "[";
  for (std::size_t i = 0; i < sizes.size(); ++i) s += (i ? ", " : "") + std::to_string(sizes[i]);
  return s + "]";
}

}  // namespace

ValueSummary summarize(const c10::IValue& v) {
  ValueSummary s;
  if (v.isTensor()) {
    const at::Tensor& t = v.toTensor();
    s.kind = "Tensor";
    if (!t.defined()) {
      s.text = "undefined";
      return s;
    }
    s.dtype = static_cast<DType>(t.scalar_type());
    s.sizes = t.sizes().vec();
    s.strides = t.strides().vec();
    s.device = t.device().str();
    s.text = std::string(dtypeName(s.dtype)) + shapeText(t.sizes());
    // A number passed in a Tensor slot (`x * 0.7`) reads as the number the user wrote.
    if (t.unsafeGetTensorImpl()->is_wrapped_number() && t.numel() == 1) {
      if (t.scalar_type() == at::kBool) s.text = t.item<bool>() ? "True" : "False";
      else if (at::isIntegralType(t.scalar_type(), false)) s.text = std::to_string(t.item<int64_t>());
      else if (at::isFloatingType(t.scalar_type())) s.text = pythonFloatRepr(t.item<double>());
    }
    return s;
  }
  if (v.isNone()) return {"None", DType::Unknown, {}, {}, {}, "None"};
  if (v.isInt()) return {"int", DType::Unknown, {}, {}, {}, std::to_string(v.toInt())};
  if (v.isSymInt()) return {"SymInt", DType::Unknown, {}, {}, {}, std::to_string(v.toSymInt().guard_int(__FILE__, __LINE__))};
  if (v.isDouble()) return {"float", DType::Unknown, {}, {}, {}, pythonFloatRepr(v.toDouble())};
  if (v.isBool()) return {"bool", DType::Unknown, {}, {}, {}, v.toBool() ? "True" : "False"};
  if (v.isString()) return {"str", DType::Unknown, {}, {}, {}, pythonStringRepr(v.toStringRef())};
  if (v.isDevice()) return {"Device", DType::Unknown, {}, {}, v.toDevice().str(), v.toDevice().str()};
  if (v.isTensorList() || v.isOptionalTensorList() || (v.isList() && !v.toListRef().empty() && v.toListRef()[0].isTensor())) {
    s.kind = "Tensor[]";
    std::string text = "[";
    std::size_t i = 0;
    for (const auto& e : v.toListRef()) text += (i++ ? ", " : "") + (e.isNone() ? std::string("None") : summarize(e).text);
    s.text = text + "]";
    return s;
  }
  if (v.isList()) {
    s.kind = "list";
    std::string text = "[";
    std::size_t i = 0;
    for (const auto& e : v.toListRef()) text += (i++ ? ", " : "") + summarize(e).text;
    s.text = text + "]";
    return s;
  }
  std::ostringstream os;
  os << v;
  s.kind = v.tagKind();
  s.text = os.str();
  return s;
}

}  // namespace torchir
