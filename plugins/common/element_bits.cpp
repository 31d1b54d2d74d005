#include "element_bits.h"

#include <cmath>
#include <cstring>
#include <limits>

#include "switchyard/half.h"

namespace sy::plugin {

float DoubleToFloatOdd(double d) {
  float f = static_cast<float>(d);
  if (f - f == 0.0f && static_cast<double>(f) != d) {
    uint32_t bits;
    std::memcpy(&bits, &f, 4);
    if (std::fabs(static_cast<double>(f)) > std::fabs(d)) --bits;
    bits |= 1u;
    std::memcpy(&f, &bits, 4);
  }
  return f;
}

int64_t SaturatingToInt(double v) {
  if (std::isnan(v)) return 0;
  if (v >= 9223372036854775808.0) return INT64_MAX;
  if (v < -9223372036854775808.0) return INT64_MIN;
  return static_cast<int64_t>(v);
}

uint64_t FloatBits(DType dtype, double value) {
  uint64_t bits = 0;
  switch (dtype) {
    case DType::kF32: {
      const float f = static_cast<float>(value);
      uint32_t u;
      std::memcpy(&u, &f, 4);
      return u;
    }
    case DType::kF64:
      std::memcpy(&bits, &value, 8);
      return bits;
    case DType::kF16:
      return FloatToHalf(DoubleToFloatOdd(value));
    case DType::kBF16:
      return FloatToBFloat16(DoubleToFloatOdd(value));
    default:
      return 0;
  }
}

uint64_t IntBits(DType dtype, int64_t value) {
  const auto u = static_cast<uint64_t>(value);
  switch (DTypeSize(dtype)) {
    case 1:
      return dtype == DType::kBool ? (value != 0 ? 1 : 0) : (u & 0xffu);
    case 2:
      return u & 0xffffu;
    case 4:
      return u & 0xffffffffu;
    default:
      return u;
  }
}

uint64_t ValueBits(DType dtype, double value) {
  if (IsFloat(dtype)) return FloatBits(dtype, value);
  if (dtype == DType::kBool) return value != 0.0 ? 1 : 0;
  return IntBits(dtype, SaturatingToInt(value));
}

std::pair<int64_t, int64_t> IntRange(DType dtype) {
  switch (dtype) {
    case DType::kI8:
      return {-128, 127};
    case DType::kU8:
      return {0, 255};
    case DType::kI32:
      return {std::numeric_limits<int32_t>::min(), std::numeric_limits<int32_t>::max()};
    case DType::kI16:
      return {std::numeric_limits<int16_t>::min(), std::numeric_limits<int16_t>::max()};
    case DType::kU16:
      return {0, std::numeric_limits<uint16_t>::max()};
    case DType::kU32:
      return {0, std::numeric_limits<uint32_t>::max()};
    case DType::kBool:
      return {0, 1};
    default:
      return {std::numeric_limits<int64_t>::min(), std::numeric_limits<int64_t>::max()};
  }
}

int64_t SaturateToInt(double v, int64_t lo, int64_t hi) {
  if (v <= static_cast<double>(lo)) return lo;
  if (v >= static_cast<double>(hi)) return hi;
  return static_cast<int64_t>(v);
}

}  // namespace sy::plugin
