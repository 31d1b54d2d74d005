// Element types of rml-graph v1 and sets of them (the op catalogue's dtype classes).
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace sy {

// The numeric values are part of no file format; names are (see DTypeName). They equal
// the plugin ABI's sy_dtype codes (plugin.h); new ones are appended.
enum class DType : uint8_t {
  kF32,
  kF16,
  kBF16,
  kF64,
  kI8,
  kU8,
  kI32,
  kI64,
  kBool,
  kI16,
  kU16,
  kU32
};
inline constexpr int kNumDTypes = 12;

// "f32", "f16", ... as written in graph JSON.
std::string_view DTypeName(DType dtype);
std::optional<DType> ParseDTypeName(std::string_view name);

// "F32", "F16", "BF16", ... as written in safetensors headers.
std::string_view SafetensorsDTypeName(DType dtype);
std::optional<DType> ParseSafetensorsDTypeName(std::string_view name);

size_t DTypeSize(DType dtype);
bool IsFloat(DType dtype);    // f32 f16 bf16 f64
bool IsInteger(DType dtype);  // i8 u8 i32 i64 i16 u16 u32
bool IsSigned(DType dtype);   // floats and i8 i16 i32 i64

// A set of dtypes, e.g. the class "F I" of an op's input.
class DTypeSet {
 public:
  constexpr DTypeSet() = default;
  constexpr DTypeSet(std::initializer_list<DType> dtypes) {
    for (DType d : dtypes) bits_ |= Bit(d);
  }
  static constexpr DTypeSet Float() {
    return {DType::kF32, DType::kF16, DType::kBF16, DType::kF64};
  }
  static constexpr DTypeSet Integer() {
    return {DType::kI8,  DType::kU8,  DType::kI32, DType::kI64,
            DType::kI16, DType::kU16, DType::kU32};
  }
  static constexpr DTypeSet Bool() { return {DType::kBool}; }
  static constexpr DTypeSet Numeric() { return Float() | Integer(); }
  static constexpr DTypeSet All() { return Numeric() | Bool(); }
  static constexpr DTypeSet IndexTypes() { return {DType::kI32, DType::kI64}; }

  constexpr bool contains(DType d) const { return (bits_ & Bit(d)) != 0; }
  constexpr bool empty() const { return bits_ == 0; }
  constexpr DTypeSet operator|(DTypeSet other) const { return FromBits(bits_ | other.bits_); }
  constexpr bool operator==(const DTypeSet&) const = default;

  // "f32 f16 bf16 f64", floats, integers by width, bool; "(none)" when empty.
  std::string ToString() const;

 private:
  static constexpr uint16_t Bit(DType d) {
    return static_cast<uint16_t>(1u << static_cast<int>(d));
  }
  static constexpr DTypeSet FromBits(uint16_t bits) {
    DTypeSet s;
    s.bits_ = bits;
    return s;
  }
  uint16_t bits_ = 0;
};

}  // namespace sy
