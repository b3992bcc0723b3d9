#include "ExecTypes.h"

#include "Session.h"

namespace torchir {

std::string_view argSourceName(ArgSource s) {
  switch (s) {
    case ArgSource::Input: return "input";
    case ArgSource::Attribute: return "attribute";
    case ArgSource::Default: return "default";
    case ArgSource::Inferred: return "inferred";
    case ArgSource::Patched: return "user change";
  }
  return "?";
}

std::string_view diagnosisClassName(DiagnosisClass c) {
  switch (c) {
    case DiagnosisClass::None: return "none";
    case DiagnosisClass::DtypeMismatch: return "dtype mismatch";
    case DiagnosisClass::ShapeMismatch: return "shape mismatch";
    case DiagnosisClass::DeviceMismatch: return "device mismatch";
    case DiagnosisClass::MissingData: return "missing data";
    case DiagnosisClass::OpNotFound: return "op not found";
    case DiagnosisClass::UnsupportedHigherOrderOp: return "unsupported higher-order op";
    case DiagnosisClass::SymbolOutOfRange: return "symbolic dimension out of range";
    case DiagnosisClass::NanOrInf: return "NaN or Inf";
    case DiagnosisClass::DtypeDiffersFromExport: return "dtype differs from export";
    case DiagnosisClass::ShapeDiffersFromExport: return "shape differs from export";
    case DiagnosisClass::RuntimeError: return "runtime error";
    case DiagnosisClass::Divergence: return "divergence";
    case DiagnosisClass::PythonError: return "error in Python";
  }
  return "?";
}

std::string_view stopReasonName(StopReason r) {
  switch (r) {
    case StopReason::Stepped: return "stepped";
    case StopReason::Finished: return "finished";
    case StopReason::Breakpoint: return "breakpoint";
    case StopReason::StopCondition: return "stop condition";
    case StopReason::Failed: return "failed";
    case StopReason::Cancelled: return "cancelled";
  }
  return "?";
}

}  // namespace torchir
