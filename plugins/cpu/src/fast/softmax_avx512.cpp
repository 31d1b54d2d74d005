#include "fast/softmax_avx512.h"

#include <limits>

#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__) && defined(__linux__)
#define SY_SOFTMAX_AVX512 1
#include <immintrin.h>
#else
#define SY_SOFTMAX_AVX512 0
#endif

namespace sy::cpu::fast {

#if SY_SOFTMAX_AVX512

bool HasSoftmaxAvx512() {
  static const bool has = [] {
    __builtin_cpu_init();
    return __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("fma");
  }();
  return has;
}

namespace {

// Lanes [0, n) of a 16-lane vector, n < 16 at the tail of a row.
__attribute__((target("avx512f"))) inline __mmask16 TailMask(int64_t n) {
  return n >= 16 ? static_cast<__mmask16>(0xffff) : static_cast<__mmask16>((1u << n) - 1u);
}

// max(a, b) per lane. Through the masked form: GCC 12's _mm512_max_ps (as its roundscale
// and scalef) passes an undefined vector as the pass-through operand and warns about it
// (-Wmaybe-uninitialized).
__attribute__((target("avx512f"))) inline __m512 Max(__m512 a, __m512 b) {
  return _mm512_mask_max_ps(a, static_cast<__mmask16>(0xffff), a, b);
}

}  // namespace

__attribute__((target("avx512f"))) float RowMaxAvx512(const float* x, int64_t n) {
  const __m512 neg_inf = _mm512_set1_ps(-std::numeric_limits<float>::infinity());
  __m512 m0 = neg_inf, m1 = neg_inf;  // two chains: a max waits on the one before
  int64_t j = 0;
  for (; j + 32 <= n; j += 32) {
    m0 = Max(m0, _mm512_loadu_ps(x + j));
    m1 = Max(m1, _mm512_loadu_ps(x + j + 16));
  }
  for (; j < n; j += 16) {
    m0 = Max(m0, _mm512_mask_loadu_ps(neg_inf, TailMask(n - j), x + j));
  }
  // Through memory rather than _mm512_reduce_max_ps (the same GCC 12 warning as Max).
  alignas(64) float lanes[16];
  _mm512_store_ps(lanes, Max(m0, m1));
  float m = lanes[0];
  for (int u = 1; u < 16; ++u) m = lanes[u] > m ? lanes[u] : m;
  return m;
}

// Cephes' expf as fast::ExpNonPositive computes it (the argument clamped to -87, range
// reduction by n ln2 in two parts, the degree-6 polynomial), with FMA for each step and
// scalef for the power of two (2^n is normal for n >= -126, so p 2^n rounds once).
__attribute__((target("avx512f,fma"))) float ExpAndSumAvx512(float* x, int64_t n, float m) {
  const __m512 vm = _mm512_set1_ps(m);
  const __m512 lowest = _mm512_set1_ps(-87.0f);
  const __m512 log2e = _mm512_set1_ps(1.44269504088896341f);
  const __m512 ln2_hi = _mm512_set1_ps(0.693359375f);
  const __m512 ln2_lo = _mm512_set1_ps(-2.12194440e-4f);
  const __m512 c0 = _mm512_set1_ps(1.9875691500e-4f);
  const __m512 c1 = _mm512_set1_ps(1.3981999507e-3f);
  const __m512 c2 = _mm512_set1_ps(8.3334519073e-3f);
  const __m512 c3 = _mm512_set1_ps(4.1665795894e-2f);
  const __m512 c4 = _mm512_set1_ps(1.6666665459e-1f);
  const __m512 c5 = _mm512_set1_ps(5.0000001201e-1f);
  const __m512 one = _mm512_set1_ps(1.0f);
  const __mmask16 all = 0xffff;
  __m512 sum = _mm512_setzero_ps();
  for (int64_t j = 0; j < n; j += 16) {
    const __mmask16 lanes = TailMask(n - j);
    const __m512 v = _mm512_sub_ps(_mm512_maskz_loadu_ps(lanes, x + j), vm);
    // Below -87 (and -inf): 0, as are the lanes past the row's end.
    const __mmask16 live = _mm512_mask_cmp_ps_mask(lanes, v, lowest, _CMP_GE_OQ);
    const __m512 xc = Max(v, lowest);
    const __m512 t = _mm512_mul_ps(xc, log2e);  // masked forms below: see Max
    const __m512 nf =
        _mm512_mask_roundscale_ps(t, all, t, _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
    __m512 r = _mm512_fnmadd_ps(nf, ln2_hi, xc);
    r = _mm512_fnmadd_ps(nf, ln2_lo, r);
    __m512 p = _mm512_fmadd_ps(c0, r, c1);
    p = _mm512_fmadd_ps(p, r, c2);
    p = _mm512_fmadd_ps(p, r, c3);
    p = _mm512_fmadd_ps(p, r, c4);
    p = _mm512_fmadd_ps(p, r, c5);
    p = _mm512_add_ps(_mm512_fmadd_ps(p, _mm512_mul_ps(r, r), r), one);
    const __m512 e = _mm512_maskz_scalef_ps(live, p, nf);
    _mm512_mask_storeu_ps(x + j, lanes, e);
    sum = _mm512_add_ps(sum, e);
  }
  alignas(64) float lanes[16];  // pairwise, as the portable loop's partial sums
  _mm512_store_ps(lanes, sum);
  for (int w = 8; w > 0; w /= 2) {
    for (int u = 0; u < w; ++u) lanes[u] += lanes[u + w];
  }
  return lanes[0];
}

#else

bool HasSoftmaxAvx512() { return false; }
float RowMaxAvx512(const float*, int64_t) { return -std::numeric_limits<float>::infinity(); }
float ExpAndSumAvx512(float*, int64_t, float) { return 0.0f; }

#endif

}  // namespace sy::cpu::fast
