#include "FailureExplainer.h"

#include <algorithm>
#include <cctype>
#include <map>

namespace torchir {
namespace {

bool mentions(const std::string& text, std::initializer_list<const char*> words) {
  std::string lower = text;
  std::transform(lower.begin(), lower.end(), lower.begin(), [](unsigned char c) { return std::tolower(c); });
  for (const char* w : words)
    if (lower.find(w) != std::string::npos) return true;
  return false;
}

std::string joinArgs(const std::vector<const ArgumentRecord*>& args, bool withShape) {
  std::string s;
  for (std::size_t i = 0; i < args.size(); ++i) {
    s += (i ? (i + 1 == args.size() ? " and " : ", ") : "") + ("'" + args[i]->name + "'");
    s += " (" + std::string(dtypeName(args[i]->value.dtype));
    if (withShape) {
      s += "[";
      for (std::size_t k = 0; k < args[i]->value.sizes.size(); ++k)
        s += (k ? ", " : "") + std::to_string(args[i]->value.sizes[k]);
      s += "]";
    }
    s += ")";
  }
  return s;
}

}  // namespace

void explainFailure(Diagnosis& d) {
  std::vector<const ArgumentRecord*> tensors;
  for (const auto& a : d.arguments)
    if (a.value.kind == "Tensor" && a.value.dtype != DType::Unknown) tensors.push_back(&a);
  std::map<DType, std::vector<const ArgumentRecord*>> byDtype;
  std::map<std::string, std::vector<const ArgumentRecord*>> byDevice;
  for (const auto* t : tensors) {
    byDtype[t->value.dtype].push_back(t);
    byDevice[t->value.device].push_back(t);
  }

  if (byDtype.size() > 1 || mentions(d.message, {"dtype", "scalar type", "expected both", "same type"})) {
    d.kind = DiagnosisClass::DtypeMismatch;
    if (byDtype.size() > 1) {
      std::string parts;
      for (const auto& [dtype, args] : byDtype) parts += (parts.empty() ? "" : "; ") + joinArgs(args, false);
      d.explanation = "The tensors passed to " + d.opType + " have different dtypes: " + parts +
                      ". ATen does not cast between them here. Cast the inputs to one dtype (e.g. .float() or "
                      ".half() before this op), or supply weights/inputs of the dtype the program was exported with.";
    } else {
      d.explanation = d.opType + " was given a dtype it does not accept. Check the argument dtypes below against the "
                                 "op's schema, and cast before this op.";
    }
  } else if (byDevice.size() > 1 || mentions(d.message, {"same device", "device type"})) {
    d.kind = DiagnosisClass::DeviceMismatch;
    d.explanation = "The tensors passed to " + d.opType + " live on different devices. Move them to one device.";
  } else if (mentions(d.message, {"size", "shape", "dimension", "cannot be multiplied", "must match", "broadcast"})) {
    d.kind = DiagnosisClass::ShapeMismatch;
    d.explanation = "The shapes of " + joinArgs(tensors, true) + " do not fit " + d.opType +
                    ". Check the inputs' shapes against the ones the program was exported with.";
  } else {
    d.kind = DiagnosisClass::RuntimeError;
    d.explanation = d.opType + " raised an error. The arguments below are what it was called with.";
  }
}

}  // namespace torchir
