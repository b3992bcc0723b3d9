#include "DType.h"

#include <array>

namespace torchir {
namespace {
struct DTypeInfo {
  DType type;
  std::string_view name;  // pytorch-ir / torch name without "torch."
  std::size_t size;
  std::string_view safetensors;
  int serialized;  // torch/_export/serde/schema.py ScalarType
};
constexpr std::array<DTypeInfo, 18> kTypes{{
    {DType::UInt8, "uint8", 1, "U8", 1},
    {DType::Int8, "int8", 1, "I8", 2},
    {DType::Int16, "int16", 2, "I16", 3},
    {DType::Int32, "int32", 4, "I32", 4},
    {DType::Int64, "int64", 8, "I64", 5},
    {DType::Float16, "float16", 2, "F16", 6},
    {DType::Float32, "float32", 4, "F32", 7},
    {DType::Float64, "float64", 8, "F64", 8},
    {DType::Complex32, "complex32", 4, "C32", 9},
    {DType::Complex64, "complex64", 8, "C64", 10},
    {DType::Complex128, "complex128", 16, "C128", 11},
    {DType::Bool, "bool", 1, "BOOL", 12},
    {DType::BFloat16, "bfloat16", 2, "BF16", 13},
    {DType::UInt16, "uint16", 2, "U16", 28},
    {DType::Float8_e4m3fn, "float8_e4m3fn", 1, "F8_E4M3", 29},
    {DType::Float8_e5m2, "float8_e5m2", 1, "F8_E5M2", 30},
    {DType::Float8_e4m3fnuz, "float8_e4m3fnuz", 1, "F8_E4M3FNUZ", 31},
    {DType::Float8_e5m2fnuz, "float8_e5m2fnuz", 1, "F8_E5M2FNUZ", 32},
}};

const DTypeInfo* find(DType t) {
  for (const auto& i : kTypes)
    if (i.type == t) return &i;
  return nullptr;
}
}  // namespace

std::string_view dtypeName(DType t) {
  const auto* i = find(t);
  return i ? i->name : std::string_view("unknown");
}

std::string dtypePythonName(DType t) { return "torch." + std::string(dtypeName(t)); }

std::size_t dtypeItemSize(DType t) {
  const auto* i = find(t);
  return i ? i->size : 0;
}

std::optional<DType> dtypeFromName(std::string_view name) {
  if (name.substr(0, 6) == "torch.") name.remove_prefix(6);
  for (const auto& i : kTypes)
    if (i.name == name || i.safetensors == name) return i.type;
  // Python's aliases
  if (name == "float") return DType::Float32;
  if (name == "double") return DType::Float64;
  if (name == "half") return DType::Float16;
  if (name == "long") return DType::Int64;
  if (name == "int") return DType::Int32;
  if (name == "short") return DType::Int16;
  return std::nullopt;
}

std::optional<DType> dtypeFromSerialized(int code) {
  for (const auto& i : kTypes)
    if (i.serialized == code) return i.type;
  return std::nullopt;
}

std::optional<int> dtypeToSerialized(DType t) {
  const auto* i = find(t);
  if (!i) return std::nullopt;
  return i->serialized;
}

bool isIntegral(DType t) {
  return t == DType::UInt8 || t == DType::Int8 || t == DType::Int16 || t == DType::Int32 || t == DType::Int64 ||
         t == DType::UInt16;
}

bool isFloating(DType t) {
  switch (t) {
    case DType::Float16: case DType::Float32: case DType::Float64: case DType::BFloat16:
    case DType::Float8_e5m2: case DType::Float8_e4m3fn: case DType::Float8_e5m2fnuz: case DType::Float8_e4m3fnuz:
      return true;
    default:
      return false;
  }
}

}  // namespace torchir
