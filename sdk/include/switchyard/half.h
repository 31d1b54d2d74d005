// Conversions between f32 and the 16-bit float formats (IEEE binary16 and bfloat16).
// f16/bf16 values are stored as raw uint16_t bits; kernels compute in f32.
#pragma once

#include <cstdint>
#include <cstring>

namespace sy {

inline uint32_t FloatBits(float f) {
  uint32_t u;
  std::memcpy(&u, &f, sizeof u);
  return u;
}
inline float BitsToFloat(uint32_t u) {
  float f;
  std::memcpy(&f, &u, sizeof f);
  return f;
}

// Round to nearest even; NaN stays NaN (quiet), overflow becomes infinity.
inline uint16_t FloatToBFloat16(float f) {
  uint32_t u = FloatBits(f);
  if ((u & 0x7fffffffu) > 0x7f800000u) return static_cast<uint16_t>((u >> 16) | 0x0040u);
  u += 0x7fffu + ((u >> 16) & 1u);
  return static_cast<uint16_t>(u >> 16);
}
inline float BFloat16ToFloat(uint16_t h) { return BitsToFloat(static_cast<uint32_t>(h) << 16); }

// IEEE binary16, round to nearest even, subnormals handled, overflow to infinity.
inline uint16_t FloatToHalf(float f) {
  const uint32_t u = FloatBits(f);
  const uint32_t sign = (u >> 16) & 0x8000u;
  const uint32_t abs = u & 0x7fffffffu;
  if (abs > 0x7f800000u) return static_cast<uint16_t>(sign | 0x7e00u);   // NaN
  if (abs >= 0x477ff000u) return static_cast<uint16_t>(sign | 0x7c00u);  // rounds to inf
  if (abs < 0x38800000u) {
    // Subnormal or zero in half: scale by 2^24 in float, whose rounding is round-to-even.
    const float scaled = BitsToFloat(abs) * 16777216.0f;  // |f| * 2^24
    const uint32_t mant = static_cast<uint32_t>(scaled);
    const float rest = scaled - static_cast<float>(mant);
    uint32_t rounded = mant;
    if (rest > 0.5f || (rest == 0.5f && (mant & 1u))) ++rounded;
    return static_cast<uint16_t>(sign | rounded);
  }
  // Normal: rebias exponent (127 -> 15) and round the 13 dropped mantissa bits.
  uint32_t bits = abs - 0x38000000u;
  bits += 0x0fffu + ((bits >> 13) & 1u);
  return static_cast<uint16_t>(sign | (bits >> 13));
}

inline float HalfToFloat(uint16_t h) {
  const uint32_t sign = static_cast<uint32_t>(h & 0x8000u) << 16;
  const uint32_t exp = (h >> 10) & 0x1fu;
  const uint32_t mant = h & 0x3ffu;
  if (exp == 0) {
    // Zero or subnormal: mant * 2^-24.
    const float value = static_cast<float>(mant) * (1.0f / 16777216.0f);
    return BitsToFloat(FloatBits(value) | sign);
  }
  if (exp == 31) return BitsToFloat(sign | 0x7f800000u | (mant << 13));
  return BitsToFloat(sign | ((exp + 112u) << 23) | (mant << 13));
}

}  // namespace sy
