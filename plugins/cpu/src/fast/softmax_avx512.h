// The two row loops of the fused attention's softmax written for AVX-512 with FMA: the
// loops GCC vectorises from fast::ExpNonPositive (vec_math.h) spend about twice the
// instructions per element without FMA, and these two loops were 30% of the attention
// kernel's time on ViT-S/16 (docs/performance.md, "Fused attention"). Available where the
// CPU has AVX-512F; the callers keep the portable loops for every other CPU.
//
// Results: within 2 ulp of e^(x - m) per element, as fast::ExpNonPositive (FMA rounds the
// polynomial's steps once instead of twice, so results may differ from the portable
// loops' in the last bit; both are tested against double-precision exp).
#pragma once

#include <cstdint>

namespace sy::cpu::fast {

// Whether this CPU runs the functions below (AVX-512F and FMA, and a GCC build on x86-64
// Linux, where they are compiled).
bool HasSoftmaxAvx512();

// The largest of x[0..n); -inf when n is 0. x holds no NaN.
float RowMaxAvx512(const float* x, int64_t n);

// x[j] = e^(x[j] - m) in place for j < n (every x[j] <= m, or -inf); returns their sum.
// Exponents below -87 give 0, as fast::ExpNonPositive.
float ExpAndSumAvx512(float* x, int64_t n, float m);

}  // namespace sy::cpu::fast
