#include "switchyard/dtype.h"

#include <array>
#include <iterator>

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
    {DType::kI16, "i16", "I16", 2},
    {DType::kU16, "u16", "U16", 2},
    {DType::kU32, "u32", "U32", 4},
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
  return IsFloat(dtype) || dtype == DType::kI8 || dtype == DType::kI16 || dtype == DType::kI32 ||
         dtype == DType::kI64;
}

std::string DTypeSet::ToString() const {
  // Floats, then integers by width (signed first), then bool: not the enum's order, in
  // which the dtypes added later come last.
  static constexpr DType kOrder[] = {DType::kF32, DType::kF16, DType::kBF16, DType::kF64,
                                     DType::kI8,  DType::kU8,  DType::kI16,  DType::kU16,
                                     DType::kI32, DType::kU32, DType::kI64,  DType::kBool};
  static_assert(std::size(kOrder) == kNumDTypes);
  std::string text;
  for (DType d : kOrder) {
    if (!contains(d)) continue;
    if (!text.empty()) text += ' ';
    text += Info(d).name;
  }
  return text.empty() ? "(none)" : text;
}

}  // namespace sy
