// Internal to the fast kernels: branch-free f32 math the compiler vectorises (no libm
// calls, selects instead of branches), chunk sizes for ParallelFor, and f16/bf16 <->
// f32 block conversion.
//
// Accuracy (checked against the double-precision reference kernels in
// tests/unit/plugins/cpu/fast/): Exp within 2 ulp over the whole float range, subnormal
// results included; Tanh and Sigmoid within a few ulp; Erf within 2.55 ulp and GeluErf
// within 4.19 (over every f32 input, against double libm). NaN propagates; +-inf give the
// limits.
#pragma once

#include <bit>
#include <cstdint>
#include <cstring>

#include "switchyard/dtype.h"
#include "switchyard/half.h"

// Hot leaf loops compiled three times, for AVX-512, AVX2 and the x86-64 baseline (SSE2),
// one chosen by the CPU's flags when the plugin loads (GCC's target_clones, resolved
// through an ifunc): the rest of the plugin is built for the baseline so that it runs on
// every x86-64 CPU, and a baseline loop moves 4 floats per instruction where AVX-512 moves
// 16 (AllFinite: 16 GB/s baseline, 75-84 GB/s cloned on the AVX-512 development machine).
// Only for functions whose inner loops call nothing but the inline helpers of this file:
// a clone does not inline a function of the TU compiled for the baseline, and an
// out-of-line call per element would cost more than the wider vectors gain.
#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__) && defined(__linux__)
#define SY_CPU_ISA_CLONES __attribute__((target_clones("avx512f", "avx2", "default")))
#else
#define SY_CPU_ISA_CLONES
#endif

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

// Whether integer products whose partial sums are bounded by `bound` (K * max|a| * max|b|,
// formed in double) are exact when summed in f32 (below 2^24) or f64 (below 2^53), in any
// order, with a margin for the double product's own rounding. The integer matmuls widen
// their operands where this holds.
inline bool ExactInF32(double bound) { return bound < 0x1p24 * (1 - 0x1p-20); }
inline bool ExactInF64(double bound) { return bound < 0x1p53 * (1 - 0x1p-20); }

// Double sums over a row are kept as kSumLanes interleaved partial sums (two AVX-512
// registers; fewer leave the vector units waiting on one add's latency) and combined
// pairwise in a fixed order, so that the result does not depend on the CPU.
inline constexpr int kSumLanes = 16;

inline double CombineSums(double (&acc)[kSumLanes]) {
  for (int w = kSumLanes / 2; w > 0; w /= 2) {
    for (int j = 0; j < w; ++j) acc[j] += acc[j + w];
  }
  return acc[0];
}

// e^r for the reduced argument |r| <= ln2 / 2: Cephes' degree-6 polynomial, shared by Exp
// and ExpNonPositive.
inline float ExpReduced(float r) {
  float p = 1.9875691500e-4f;
  p = p * r + 1.3981999507e-3f;
  p = p * r + 8.3334519073e-3f;
  p = p * r + 4.1665795894e-2f;
  p = p * r + 1.6666665459e-1f;
  p = p * r + 5.0000001201e-1f;
  p = p * (r * r) + r + 1.0f;
  return p;
}

// e^x: Cephes' expf (range reduction by n ln2 in two parts, degree-6 polynomial), with
// 2^n applied as two factors so that results down to the subnormals round only once.
// `factor` (default 1) multiplies the result before 2^n is applied, so that a product
// e^x f that lands in the subnormals is rounded there once too; |f| must stay below 2
// (the clamp of x to -104 relies on e^-104 f rounding to 0).
inline float Exp(float x, float factor = 1.0f) {
  const bool nan = x != x;
  float xc = x > 88.8f ? 88.8f : x;  // above ~88.72 the result is +inf anyway
  xc = xc < -104.0f ? -104.0f : xc;  // below ~-103.97 it rounds to 0
  xc = nan ? 0.0f : xc;              // keep the integer conversion below defined
  const float t = xc * 1.44269504088896341f + 12582912.0f;  // round to nearest integer
  const float nf = t - 12582912.0f;
  float r = xc - nf * 0.693359375f;
  r = r - nf * -2.12194440e-4f;
  const float p = ExpReduced(r);
  const int32_t n = static_cast<int32_t>(nf);  // in [-150, 128]
  const int32_t n1 = n / 2;
  const int32_t n2 = n - n1;  // both in [-75, 64]: normal powers of two
  const float s1 = std::bit_cast<float>(static_cast<uint32_t>(n1 + 127) << 23);
  const float s2 = std::bit_cast<float>(static_cast<uint32_t>(n2 + 127) << 23);
  return nan ? x : (p * factor * s1) * s2;
}

// e^x for x <= 0 (-inf included), as softmax takes it after subtracting the maximum:
// Exp's polynomial without what only other arguments need (NaN, overflow, subnormal
// results: below -87 the result is 0, which next to the maximum's e^0 = 1 is 1e-38 off at
// most). 1.6x the speed of Exp; within 1 ulp (8.1e-8 relative) wherever it is not 0.
inline float ExpNonPositive(float x) {
  const bool tiny = x < -87.0f;  // -inf too
  const float xc = tiny ? -87.0f : x;
  const float nf = (xc * 1.44269504088896341f + 12582912.0f) - 12582912.0f;  // round(x / ln2)
  float r = xc - nf * 0.693359375f;
  r = r - nf * -2.12194440e-4f;
  const float p = ExpReduced(r);
  const int32_t n = static_cast<int32_t>(nf);  // in [-126, 0]: 2^n is a normal float
  return tiny ? 0.0f : p * std::bit_cast<float>(static_cast<uint32_t>(n + 127) << 23);
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

// The Gaussian tail with its exponential factored out: e^(a^2/2) Phi(-a), Phi the
// standard normal CDF (= erfc(a / sqrt 2) e^(a^2/2) / 2), for 0 <= a <= 15. A rational
// function of degree 4 / 5 fitted for least maximum relative error on [0, 15] (6.3e-9):
// the quantity is smooth and ~1/a, unlike Phi(-a) itself. Evaluated in double: in f32
// the ten Horner steps and the division alone cost up to 8 ulp (measured), in double
// nothing but the final rounding.
inline float NormalTailScaled(float af) {
  const double a = af;
  double p = 0.0041530831896652947;
  p = p * a + 0.040880261849416577;
  p = p * a + 0.183966757627103;
  p = p * a + 0.43928050736141548;
  p = p * a + 0.50000000318063429;
  double q = 0.010410124084551274;
  q = q * a + 0.10247773688615898;
  q = q * a + 0.47140235736455016;
  q = q * a + 1.2055388577815987;
  q = q * a + 1.6764460215498984;
  q = q * a + 1.0;
  return static_cast<float>(p / q);
}

// e^(-k t^2) f for t >= 0 (k = 1 or 1/2, k t^2 <= 112.5, |f| < 2) without the rounding
// of t^2 to f32, which would cost a relative error of k t^2 2^-24 (7e-6 at 112.5): w =
// -k t^2 is exact in double (24 + 24 bits), split into an f32 hi and the rest lo, and
// e^w = e^hi (1 + lo) to within lo^2 since |lo| < 4e-6.
inline float ExpNegSquare(float t, double k, float f) {
  const double w = -k * static_cast<double>(t) * static_cast<double>(t);
  const float hi = static_cast<float>(w);
  const float lo = static_cast<float>(w - static_cast<double>(hi));
  return Exp(hi, f * (1.0f + lo));
}

// erf: x P(x^2) below |x| = 1 (degree-6 fit of erf(x) / x in x^2, relative error 1.2e-9),
// 1 - erfc(|x|) with the sign of x above, erfc(t) = 2 e^(-t^2) NormalTailScaled(t sqrt 2)
// (erfc < 0.16 there, so its few-ulp error shrinks in the difference). |x| is clamped at
// 4, where erf already rounds to 1; NaN passes the clamp and propagates.
inline float Erf(float x) {
  const float s = x * x;
  float p = 7.853853275e-05f;
  p = p * s - 8.010191178e-04f;
  p = p * s + 5.188327407e-03f;
  p = p * s - 2.685381179e-02f;
  p = p * s + 1.128358515e-01f;
  p = p * s - 3.761262582e-01f;
  p = p * s + 1.128379166e+00f;
  const float small = x * p;
  const uint32_t sign = std::bit_cast<uint32_t>(x) & 0x80000000u;
  float a = std::bit_cast<float>(std::bit_cast<uint32_t>(x) & 0x7fffffffu);
  const bool is_small = a < 1.0f;
  a = a > 4.0f ? 4.0f : a;
  const float erfc = ExpNegSquare(a, 1.0, 2.0f * NormalTailScaled(a * 1.41421356f));
  const float large = std::bit_cast<float>(std::bit_cast<uint32_t>(1.0f - erfc) | sign);
  return is_small ? small : large;
}

// x Phi(x) (gelu's erf form): x (1 - E) for x >= 0 and x E below, E = Phi(-|x|) =
// e^(-x^2/2) NormalTailScaled(|x|), so the negative tail keeps its relative accuracy down
// to the subnormals. |x| is clamped at 15, beyond which E rounds to 0: +inf gives +inf,
// -inf and every x below about -14.4 give -0 (the sign carried through Exp's factor), NaN
// propagates through the clamp.
inline float GeluErf(float x) {
  float a = std::bit_cast<float>(std::bit_cast<uint32_t>(x) & 0x7fffffffu);
  a = a > 15.0f ? 15.0f : a;
  const float m = NormalTailScaled(a);
  const bool negative = x < 0.0f;
  // One exp for both sides: x E directly (one rounding into the subnormals) or E.
  const float e = ExpNegSquare(a, 0.5, negative ? -a * m : m);
  return negative ? e : x * (1.0f - e);
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
