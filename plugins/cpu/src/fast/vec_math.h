// Internal to the fast kernels: branch-free f32 math the compiler vectorises (no libm
// calls, selects instead of branches), chunk sizes for ParallelFor, and f16/bf16 <->
// f32 block conversion.
//
// Accuracy (checked against the double-precision reference kernels in
// tests/unit/plugins/cpu/fast/): Exp within 2 ulp over the whole float range, subnormal
// results included; Tanh and Sigmoid within a few ulp. NaN propagates; +-inf give the
// limits.
#pragma once

#include <bit>
#include <cstdint>
#include <cstring>

#include "switchyard/dtype.h"
#include "switchyard/half.h"

namespace sy::cpu::fast {

// Minimum indices per ParallelFor chunk. Below two chunks' worth a loop runs inline, so
// small tensors (the dispatch-bound case) pay nothing for threading; the figures keep a
// chunk at several microseconds of work, well above the cost of waking a worker.
inline constexpr int64_t kCheapGrain = 16384;  // elements of a few-flop body (add, relu)
inline constexpr int64_t kCostlyGrain = 4096;  // elements of a body with exp, tanh, erf

// The row grain for a loop over rows of `row_elements` elements each.
inline int64_t RowGrain(int64_t element_grain, int64_t row_elements) {
  return row_elements >= element_grain ? 1 : element_grain / (row_elements > 0 ? row_elements : 1);
}

// Whether f32 data can be read through a float pointer (host buffers always are; checked
// anyway, as the BLAS kernels do, since the ABI does not promise it).
inline bool IsF32Aligned(const void* p) {
  return reinterpret_cast<uintptr_t>(p) % alignof(float) == 0;
}

inline float Select(bool c, float a, float b) { return c ? a : b; }

// e^x: Cephes' expf (range reduction by n ln2 in two parts, degree-6 polynomial), with
// 2^n applied as two factors so that results down to the subnormals round only once.
inline float Exp(float x) {
  const bool nan = x != x;
  float xc = x > 88.8f ? 88.8f : x;  // above ~88.72 the result is +inf anyway
  xc = xc < -104.0f ? -104.0f : xc;  // below ~-103.97 it rounds to 0
  xc = nan ? 0.0f : xc;              // keep the integer conversion below defined
  const float t = xc * 1.44269504088896341f + 12582912.0f;  // round to nearest integer
  const float nf = t - 12582912.0f;
  float r = xc - nf * 0.693359375f;
  r = r - nf * -2.12194440e-4f;
  float p = 1.9875691500e-4f;
  p = p * r + 1.3981999507e-3f;
  p = p * r + 8.3334519073e-3f;
  p = p * r + 4.1665795894e-2f;
  p = p * r + 1.6666665459e-1f;
  p = p * r + 5.0000001201e-1f;
  p = p * (r * r) + r + 1.0f;
  const int32_t n = static_cast<int32_t>(nf);  // in [-150, 128]
  const int32_t n1 = n / 2;
  const int32_t n2 = n - n1;  // both in [-75, 64]: normal powers of two
  const float s1 = std::bit_cast<float>(static_cast<uint32_t>(n1 + 127) << 23);
  const float s2 = std::bit_cast<float>(static_cast<uint32_t>(n2 + 127) << 23);
  return nan ? x : (p * s1) * s2;
}

// 1 / (1 + e^-x) for x >= 0, e^x / (1 + e^x) below, so that nothing overflows (as the
// reference kernel); one division either way. `correction` (default 1) multiplies
// e^-|x|: SigmoidOf below passes the part of the argument that f32 could not hold.
inline float Sigmoid(float x, float correction = 1.0f) {
  const float e = Exp(x < 0.0f ? x : -x) * correction;  // e^-|x|, NaN stays NaN
  return (x >= 0.0f ? 1.0f : e) / (1.0f + e);
}

// sigmoid(t) for a double t, to within a few f32 ulp also where |t| is large: t = hi + lo
// with hi = f32(t), and e^-|t| = e^-|hi| (1 -+ lo). Rounding t to f32 alone would cost a
// relative error of |t| / 2 ulp (gelu's tanh form reaches |t| ~ 20 on results that
// still matter).
inline float SigmoidOf(double t) {
  const float hi = static_cast<float>(t);
  float lo = static_cast<float>(t - static_cast<double>(hi));
  lo = hi < 256.0f && hi > -256.0f ? lo : 0.0f;  // e^-|hi| is 0 there; keeps inf, NaN out
  return Sigmoid(hi, 1.0f + (hi < 0.0f ? lo : -lo));
}

// tanh: Cephes' odd polynomial below |x| = 0.625, 1 - 2 / (e^2|x| + 1) above (with the
// sign of x), which saturates to +-1 and keeps NaN.
inline float Tanh(float x) {
  const uint32_t sign = std::bit_cast<uint32_t>(x) & 0x80000000u;
  const float a = std::bit_cast<float>(std::bit_cast<uint32_t>(x) & 0x7fffffffu);
  const float z = x * x;
  float p = -5.70498872745e-3f;
  p = p * z + 2.06390887954e-2f;
  p = p * z - 5.37397155531e-2f;
  p = p * z + 1.33314422036e-1f;
  p = p * z - 3.33332819422e-1f;
  const float small = p * z * x + x;
  const float large_abs = 1.0f - 2.0f / (Exp(2.0f * a) + 1.0f);
  const float large = std::bit_cast<float>(std::bit_cast<uint32_t>(large_abs) | sign);
  return a < 0.625f ? small : large;
}

// f16 / bf16 storage: kernels compute in f32 on blocks converted to and from it.
inline void LoadF32(DType dtype, const std::byte* data, int64_t begin, int64_t count, float* out) {
  for (int64_t i = 0; i < count; ++i) {
    uint16_t h;
    std::memcpy(&h, data + (begin + i) * 2, 2);
    out[i] = dtype == DType::kF16 ? HalfToFloat(h) : BFloat16ToFloat(h);
  }
}
inline void StoreF32(DType dtype, const float* in, int64_t begin, int64_t count, std::byte* data) {
  for (int64_t i = 0; i < count; ++i) {
    const uint16_t h = dtype == DType::kF16 ? FloatToHalf(in[i]) : FloatToBFloat16(in[i]);
    std::memcpy(data + (begin + i) * 2, &h, 2);
  }
}

}  // namespace sy::cpu::fast
