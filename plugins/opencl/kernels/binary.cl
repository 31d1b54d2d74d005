// Broadcasting binary and ternary elementwise ops (NumPy rules): y[i] = BINARY_OP(a[.],
// b[.]) and where. The host collapses the output shape and the inputs' element strides
// (0 along broadcast dims) into `meta`: dims[rank], then each input's strides[rank].
// Semantics follow plugins/cpu/src/ref/elementwise_binary_ref.cpp.

// No contraction into fused multiply-adds: results stay those of the separate
// operations, as in the reference kernels.
#pragma OPENCL FP_CONTRACT OFF

// The element offset of output element i in each input.
#define SY_OFFSETS2(i, rank, meta, oa, ob)                   \
  do {                                                      \
    ulong r_ = (i);                                         \
    oa = 0;                                                 \
    ob = 0;                                                 \
    for (int d_ = (rank)-1; d_ >= 0; --d_) {                \
      const ulong dim_ = (ulong)(meta)[d_];                  \
      const ulong q_ = r_ / dim_;                           \
      const long k_ = (long)(r_ - q_ * dim_);               \
      r_ = q_;                                              \
      oa += k_ * (meta)[(rank) + d_];                        \
      ob += k_ * (meta)[2 * (rank) + d_];                    \
    }                                                       \
  } while (0)

#ifdef BINARY_OP

#if IS_FLOAT_A
typedef CT_A ct;
inline ct sy_add(ct a, ct b) { return a + b; }
inline ct sy_sub(ct a, ct b) { return a - b; }
inline ct sy_mul(ct a, ct b) { return a * b; }
inline ct sy_div(ct a, ct b) { return a / b; }
inline ct sy_pow(ct a, ct b) { return pow(a, b); }
inline ct sy_max(ct a, ct b) {
  if (isnan(a) || isnan(b)) return isnan(a) ? a : b;
  return a < b ? b : a;
}
inline ct sy_min(ct a, ct b) {
  if (isnan(a) || isnan(b)) return isnan(a) ? a : b;
  return b < a ? b : a;
}
inline ct sy_fmod(ct a, ct b) { return fmod(a, b); }
// The sign of the divisor (Python's %).
inline ct sy_mod(ct a, ct b) {
  ct r = fmod(a, b);
  if (r == 0) return copysign((ct)0, b);
  if ((r < 0) != (b < 0)) r += b;
  return r;
}
// x < 0 ? slope * x : x
inline ct sy_prelu(ct a, ct b) { return a < 0 ? b * a : a; }
#else
typedef long ct;
inline ct sy_add(ct a, ct b) { return (long)((ulong)a + (ulong)b); }
inline ct sy_sub(ct a, ct b) { return (long)((ulong)a - (ulong)b); }
inline ct sy_mul(ct a, ct b) { return (long)((ulong)a * (ulong)b); }
// b != 0 (checked by the kernel). Truncates toward zero; LONG_MIN / -1 wraps.
inline ct sy_div(ct a, ct b) { return b == -1 ? (long)((ulong)0 - (ulong)a) : a / b; }
inline ct sy_max(ct a, ct b) { return a < b ? b : a; }
inline ct sy_min(ct a, ct b) { return b < a ? b : a; }
inline ct sy_fmod(ct a, ct b) { return b == -1 ? 0 : a % b; }
inline ct sy_mod(ct a, ct b) {
  if (b == -1) return 0;
  long r = a % b;
  if (r != 0 && ((r < 0) != (b < 0))) r += b;
  return r;
}
#endif
// Comparisons (bool out); for bool inputs LOAD gives 0/1 already.
inline long sy_equal(ct a, ct b) { return a == b; }
inline long sy_less(ct a, ct b) { return a < b; }
inline long sy_less_equal(ct a, ct b) { return a <= b; }
inline long sy_greater(ct a, ct b) { return a > b; }
inline long sy_greater_equal(ct a, ct b) { return a >= b; }
inline long sy_and(ct a, ct b) { return (a != 0) && (b != 0); }
inline long sy_or(ct a, ct b) { return (a != 0) || (b != 0); }
inline long sy_xor(ct a, ct b) { return (a != 0) != (b != 0); }

// `err[slot]` is set when CHECK_DIVISOR is defined and an (integer) divisor is 0.
__kernel void sy_binary(__global const uchar* ab, ulong ao, __global const uchar* bb, ulong bo,
                        __global uchar* yb, ulong yo, ulong n, int rank,
                        __global const long* meta, __global int* err, uint slot) {
  const size_t i = get_global_id(0);
  if (i >= n) return;
  __global const ST_A* a = SY_CPTR(ST_A, ab, ao);
  __global const ST_B* b = SY_CPTR(ST_B, bb, bo);
  __global ST_Y* y = SY_PTR(ST_Y, yb, yo);
  long ia, ib;
  SY_OFFSETS2(i, rank, meta, ia, ib);
  const ct bv = LOAD_B(b, ib);
#ifdef CHECK_DIVISOR
  if (bv == 0) {
    err[slot] = 1;
    STORE_Y(y, i, 0);
    return;
  }
#endif
  STORE_Y(y, i, BINARY_OP(LOAD_A(a, ia), bv));
}
#endif  // BINARY_OP

#ifdef WHERE_OP
// where(cond, a, b): slots A (cond, bool), B and C (the values), Y; bit-exact copies of
// the chosen element (RT_Y: an unsigned type of the element's size).
__kernel void sy_where(__global const uchar* cb, ulong co, __global const uchar* ab, ulong ao,
                       __global const uchar* bb, ulong bo, __global uchar* yb, ulong yo,
                       ulong n, int rank, __global const long* meta) {
  const size_t i = get_global_id(0);
  if (i >= n) return;
  __global const uchar* c = SY_CPTR(uchar, cb, co);
  __global const RT_Y* a = SY_CPTR(RT_Y, ab, ao);
  __global const RT_Y* b = SY_CPTR(RT_Y, bb, bo);
  __global RT_Y* y = SY_PTR(RT_Y, yb, yo);
  ulong r = i;
  long ic = 0, ia = 0, ib = 0;
  for (int d = rank - 1; d >= 0; --d) {
    const ulong dim = (ulong)meta[d];
    const ulong q = r / dim;
    const long k = (long)(r - q * dim);
    r = q;
    ic += k * meta[rank + d];
    ia += k * meta[2 * rank + d];
    ib += k * meta[3 * rank + d];
  }
  y[i] = c[ic] != 0 ? a[ia] : b[ib];
}
#endif  // WHERE_OP
