#include "switchyard/dtype.h"

#include <array>

namespace sy {
namespace {

struct DTypeInfo {
  DType dtype;
  std::string_view name;
  std::string_view safetensors_name;
  size_t size;
};

constexpr std::array<DTypeInfo, kNumDTypes> kDTypes = {{
    {DType::kF32, "f32", "F32", 4},
    {DType::kF16, "f16", "F16", 2},
    {DType::kBF16, "bf16", "BF16", 2},
    {DType::kF64, "f64", "F64", 8},
    {DType::kI8, "i8", "I8", 1},
    {DType::kU8, "u8", "U8", 1},
    {DType::kI32, "i32", "I32", 4},
    {DType::kI64, "i64", "I64", 8},
    {DType::kBool, "bool", "BOOL", 1},
}};

const DTypeInfo& Info(DType dtype) { return kDTypes[static_cast<size_t>(dtype)]; }

}  // namespace

std::string_view DTypeName(DType dtype) { return Info(dtype).name; }
std::string_view SafetensorsDTypeName(DType dtype) { return Info(dtype).safetensors_name; }
size_t DTypeSize(DType dtype) { return Info(dtype).size; }

std::optional<DType> ParseDTypeName(std::string_view name) {
  for (const DTypeInfo& info : kDTypes) {
    if (info.name == name) return info.dtype;
  }
  return std::nullopt;
}

std::optional<DType> ParseSafetensorsDTypeName(std::string_view name) {
  for (const DTypeInfo& info : kDTypes) {
    if (info.safetensors_name == name) return info.dtype;
  }
  return std::nullopt;
}

bool IsFloat(DType dtype) { return DTypeSet::Float().contains(dtype); }
bool IsInteger(DType dtype) { return DTypeSet::Integer().contains(dtype); }
bool IsSigned(DType dtype) {
  return IsFloat(dtype) || dtype == DType::kI8 || dtype == DType::kI32 || dtype == DType::kI64;
}

std::string DTypeSet::ToString() const {
  std::string text;
  for (const DTypeInfo& info : kDTypes) {
    if (!contains(info.dtype)) continue;
    if (!text.empty()) text += ' ';
    text += info.name;
  }
  return text.empty() ? "(none)" : text;
}

}  // namespace sy
