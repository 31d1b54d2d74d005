// The elementwise family (src/ops_elementwise.cpp), one program with three parts, each
// compiled only when the host defines its guard: SY_UNARY (the unary maps), SY_BINARY
// (broadcasting binary ops and where), SY_CAST (cast).

#ifdef SY_UNARY
// The unary elementwise maps: y[i] = UNARY_OP(x[i], p0, p1) for x in slot A, y in slot
// Y. UNARY_OP names one of the functions below (the host defines it); p0 and p1 are the
// op's attributes (alpha, beta, clip bounds) in the compute type. Semantics follow the
// reference kernels (plugins/cpu/src/ref/elementwise_ref.cpp).

// No contraction into fused multiply-adds: results stay those of the separate
// operations, as in the reference kernels.
#pragma OPENCL FP_CONTRACT OFF

#if IS_FLOAT_A
typedef CT_A ct;
#define SY_ONE ((ct)1)
#define SY_ZERO ((ct)0)
#if IS_F64_A
#define SY_C(x) x
#else
#define SY_C(x) x##f
#endif

inline ct sy_neg(ct x, ct p0, ct p1) { return -x; }
inline ct sy_abs(ct x, ct p0, ct p1) { return fabs(x); }
inline ct sy_sign(ct x, ct p0, ct p1) { return x > 0 ? SY_ONE : (x < 0 ? -SY_ONE : x); }
inline ct sy_exp(ct x, ct p0, ct p1) { return exp(x); }
inline ct sy_log(ct x, ct p0, ct p1) { return log(x); }
inline ct sy_sqrt(ct x, ct p0, ct p1) { return sqrt(x); }
inline ct sy_reciprocal(ct x, ct p0, ct p1) { return SY_ONE / x; }
inline ct sy_rsqrt(ct x, ct p0, ct p1) { return SY_ONE / sqrt(x); }
inline ct sy_sin(ct x, ct p0, ct p1) { return sin(x); }
inline ct sy_cos(ct x, ct p0, ct p1) { return cos(x); }
inline ct sy_tan(ct x, ct p0, ct p1) { return tan(x); }
inline ct sy_erf(ct x, ct p0, ct p1) { return erf(x); }
inline ct sy_tanh(ct x, ct p0, ct p1) { return tanh(x); }
// NaN outside the domain (|x| > 1, acosh's x < 1), as the reference kernels.
inline ct sy_asin(ct x, ct p0, ct p1) { return asin(x); }
inline ct sy_acos(ct x, ct p0, ct p1) { return acos(x); }
inline ct sy_atan(ct x, ct p0, ct p1) { return atan(x); }
inline ct sy_asinh(ct x, ct p0, ct p1) { return asinh(x); }
inline ct sy_acosh(ct x, ct p0, ct p1) { return acosh(x); }
inline ct sy_atanh(ct x, ct p0, ct p1) { return atanh(x); }
inline ct sy_floor(ct x, ct p0, ct p1) { return floor(x); }
inline ct sy_ceil(ct x, ct p0, ct p1) { return ceil(x); }
inline ct sy_round(ct x, ct p0, ct p1) { return rint(x); }  // half to even
inline ct sy_relu(ct x, ct p0, ct p1) { return x < 0 ? SY_ZERO : x; }

inline ct sy_sigmoid1(ct x) {
  if (x >= 0) return SY_ONE / (SY_ONE + exp(-x));
  const ct e = exp(x);  // NaN lands here and stays NaN
  return e / (SY_ONE + e);
}
inline ct sy_sigmoid(ct x, ct p0, ct p1) { return sy_sigmoid1(x); }

inline ct sy_softplus1(ct x) { return x > 0 ? x + log1p(exp(-x)) : log1p(exp(x)); }
inline ct sy_softplus(ct x, ct p0, ct p1) { return sy_softplus1(x); }

inline ct sy_silu(ct x, ct p0, ct p1) {
  if (isinf(x)) return x > 0 ? x : -SY_ZERO;
  return x * sy_sigmoid1(x);
}
inline ct sy_mish(ct x, ct p0, ct p1) {
  if (isinf(x)) return x > 0 ? x : -SY_ZERO;
  return x * tanh(sy_softplus1(x));
}
inline ct sy_gelu(ct x, ct p0, ct p1) {
  if (isinf(x)) return x > 0 ? x : -SY_ZERO;
  return SY_C(0.5) * x * erfc(-x * SY_C(0.70710678118654752440));
}
inline ct sy_gelu_tanh(ct x, ct p0, ct p1) {
  if (isinf(x)) return x > 0 ? x : -SY_ZERO;
  const ct k = SY_C(0.79788456080286535588);  // sqrt(2 / pi)
  const ct z = k * (x + SY_C(0.044715) * x * x * x);
  return x * sy_sigmoid1((ct)2 * z);
}
inline ct sy_hard_sigmoid1(ct x, ct alpha, ct beta) {
#if IS_F64_A
  const ct y = alpha * x + beta;  // as the reference computes it
#else
  // Fused: alpha and beta carry their float rounding errors, which nearly cancel where
  // alpha x + beta crosses 0; a rounded product would not (13 ulp at alpha = 0.3).
  const ct y = fma(alpha, x, beta);
#endif
  if (isnan(y)) return y;
  return y < 0 ? SY_ZERO : (y > 1 ? SY_ONE : y);
}
inline ct sy_hard_sigmoid(ct x, ct p0, ct p1) { return sy_hard_sigmoid1(x, p0, p1); }
inline ct sy_hard_swish(ct x, ct p0, ct p1) {
  if (isinf(x)) return x > 0 ? x : -SY_ZERO;
  return x * sy_hard_sigmoid1(x, SY_ONE / (ct)6, SY_C(0.5));
}
inline ct sy_softsign(ct x, ct p0, ct p1) {
  if (isinf(x)) return copysign(SY_ONE, x);
  return x / (SY_ONE + fabs(x));
}
inline ct sy_leaky_relu(ct x, ct p0, ct p1) { return x < 0 ? p0 * x : x; }
inline ct sy_elu(ct x, ct p0, ct p1) { return x < 0 ? p0 * expm1(x) : x; }
// p0 = gamma, p1 = gamma * alpha (multiplied in double by the host).
inline ct sy_selu(ct x, ct p0, ct p1) { return x > 0 ? p0 * x : p1 * expm1(x); }
// p0 = min, p1 = max (-inf / +inf when absent); NaN passes through.
inline ct sy_clip(ct x, ct p0, ct p1) {
  if (x < p0) x = p0;
  if (x > p1) x = p1;
  return x;
}

#else  // integers and bool, in long; wrapping through ulong
typedef long ct;
inline ct sy_neg(ct x, ct p0, ct p1) { return (long)((ulong)0 - (ulong)x); }
inline ct sy_abs(ct x, ct p0, ct p1) { return x < 0 ? (long)((ulong)0 - (ulong)x) : x; }
inline ct sy_sign(ct x, ct p0, ct p1) { return x > 0 ? 1 : (x < 0 ? -1 : 0); }
// p0, p1: the bounds, already ceil/floor-ed and saturated to the dtype by the host.
inline ct sy_clip(ct x, ct p0, ct p1) { return min(max(x, p0), p1); }
inline ct sy_not(ct x, ct p0, ct p1) { return x == 0 ? 1 : 0; }
inline ct sy_bitwise_not(ct x, ct p0, ct p1) { return ~x; }
#endif

__kernel void sy_unary(__global const uchar* xb, ulong xo, __global uchar* yb, ulong yo,
                       ulong n, ct p0, ct p1) {
  const size_t i = get_global_id(0);
  if (i >= n) return;
  __global const ST_A* x = SY_CPTR(ST_A, xb, xo);
  __global ST_Y* y = SY_PTR(ST_Y, yb, yo);
  STORE_Y(y, i, UNARY_OP(LOAD_A(x, i), p0, p1));
}
#endif  // SY_UNARY

#ifdef SY_BINARY
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
inline ct sy_bitwise_and(ct a, ct b) { return a & b; }
inline ct sy_bitwise_or(ct a, ct b) { return a | b; }
inline ct sy_bitwise_xor(ct a, ct b) { return a ^ b; }
#ifdef SHIFT_BITS
// Values are sign- or zero-extended to long, so the 64-bit shift stored in the narrow
// type is its shift. Outside [0, SHIFT_BITS): 0, or -1 for a right shift of a negative.
inline ct sy_shift_left(ct a, ct b) {
  return (b < 0 || b >= SHIFT_BITS) ? 0 : (long)((ulong)a << b);
}
inline ct sy_shift_right(ct a, ct b) {
  return (b < 0 || b >= SHIFT_BITS) ? (a < 0 ? -1 : 0) : a >> b;
}
#endif
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
#endif  // SY_BINARY

#ifdef SY_CAST
// cast: x in slot A, y in slot Y; CAST_EXPR(v) (chosen by the host, src/ops_elementwise.cpp)
// turns LOAD_A's value into what STORE_Y stores. Semantics of the reference kernel:
// float -> integer truncates toward zero and saturates, NaN -> 0 (convert_*_sat_rtz);
// anything -> bool is v != 0 (NaN -> true); integers wrap; every cast to a float dtype
// rounds once (f64 and the integers go to f16 / bf16 through a float rounded to odd).
__kernel void sy_cast(__global const uchar* xb, ulong xo, __global uchar* yb, ulong yo,
                      ulong n) {
  const size_t i = get_global_id(0);
  if (i >= n) return;
  __global const ST_A* x = SY_CPTR(ST_A, xb, xo);
  __global ST_Y* y = SY_PTR(ST_Y, yb, yo);
  const CT_A v = LOAD_A(x, i);
  STORE_Y(y, i, CAST_EXPR(v));
}
#endif  // SY_CAST
