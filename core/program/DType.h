#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace torchir {

/// Element types, numbered as c10::ScalarType so the engine converts with a cast.
enum class DType : int8_t {
  UInt8 = 0, Int8 = 1, Int16 = 2, Int32 = 3, Int64 = 4, Float16 = 5, Float32 = 6, Float64 = 7,
  Complex32 = 8, Complex64 = 9, Complex128 = 10, Bool = 11, BFloat16 = 15,
  Float8_e5m2 = 23, Float8_e4m3fn = 24, Float8_e5m2fnuz = 25, Float8_e4m3fnuz = 26, UInt16 = 27,
  Unknown = -1,
};

/// "float32", "int64", ... as pytorch-ir and safetensors readers see them.
std::string_view dtypeName(DType t);
/// "torch.float32" as Python prints it.
std::string dtypePythonName(DType t);
std::size_t dtypeItemSize(DType t);
/// Accepts "float32", "torch.float32", "float" style names and safetensors codes ("F32").
std::optional<DType> dtypeFromName(std::string_view name);
/// The serialized ExportedProgram numbering (schema.py ScalarType) to ours.
std::optional<DType> dtypeFromSerialized(int code);
/// Ours to the serialized numbering; nullopt for Unknown.
std::optional<int> dtypeToSerialized(DType t);

/// Integer dtypes (not bool): their elements are read as exact integers.
bool isIntegral(DType t);
/// Floating dtypes, reduced and 8-bit ones included.
bool isFloating(DType t);

}  // namespace torchir
