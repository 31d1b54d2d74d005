// The reduction family (src/ops_reduction.cpp). REDUCE_OP: reduce_sum reduce_mean
// reduce_max reduce_min reduce_prod and global_avg_pool (of conv_pool, which reuses this
// op): one work-item per output element. The host merges adjacent dims of x that are both kept or
// both reduced; meta = dims[rank], reduced[rank] (0/1), strides[rank] (elements of x).
// REDUCE_OP is 0 sum, 1 mean, 2 max, 3 min, 4 prod. Semantics of
// plugins/cpu/src/ref/reduction_ref.cpp: floats accumulate in the compute type, max/min
// propagate NaN, the empty set gives 0 / NaN (float mean) / 0 (integer mean) / lowest /
// highest / 1; integers wrap in 64 bits, and an integer mean sums exactly in 128 bits and
// truncates toward zero. `lo` and `hi`: the integer dtype's range (max/min's start).

#pragma OPENCL FP_CONTRACT OFF

#ifdef REDUCE_OP

// Signed 128-bit sum in (hi, lo) divided by n > 0, truncating toward zero.
inline long sy_mean128(long hi, ulong lo, ulong n) {
  const int negative = hi < 0;
  if (negative) {  // two's complement negation of (hi, lo)
    lo = ~lo + 1;
    hi = ~hi + (lo == 0 ? 1 : 0);
  }
  ulong uh = (ulong)hi, rem = 0, q = 0;
  // Long division, one bit at a time, of (uh, lo) by n; the quotient fits 64 bits.
  for (int bit = 127; bit >= 0; --bit) {
    const ulong top = rem >> 63;
    rem = (rem << 1) | (bit >= 64 ? (uh >> (bit - 64)) & 1 : (lo >> bit) & 1);
    if (top || rem >= n) {
      rem -= n;
      if (bit < 64) q |= (ulong)1 << bit;
    }
  }
  return negative ? (long)((ulong)0 - q) : (long)q;
}

__kernel void sy_reduce(__global const uchar* xb, ulong xo, __global uchar* yb, ulong yo,
                        ulong n_out, ulong group, int rank, __global const long* meta, long lo,
                        long hi) {
  const size_t o = get_global_id(0);
  if (o >= n_out) return;
  __global const ST_A* x = SY_CPTR(ST_A, xb, xo);
  __global ST_Y* y = SY_PTR(ST_Y, yb, yo);
  ulong r = o;
  long base = 0;
  for (int d = rank - 1; d >= 0; --d) {
    if (meta[rank + d]) continue;
    const ulong dim = (ulong)meta[d];
    base += (long)(r % dim) * meta[2 * rank + d];
    r /= dim;
  }
#if IS_FLOAT_A
  typedef CT_A ct;
#if REDUCE_OP == 2
  ct acc = -INFINITY;
#elif REDUCE_OP == 3
  ct acc = INFINITY;
#elif REDUCE_OP == 4
  ct acc = 1;
#else
  ct acc = 0;
#endif
#else
#if REDUCE_OP == 2
  long acc = lo;
#elif REDUCE_OP == 3
  long acc = hi;
#elif REDUCE_OP == 4
  ulong acc = 1;
#elif REDUCE_OP == 1
  long acc_hi = 0;
  ulong acc = 0;
#else
  ulong acc = 0;
#endif
#endif
  for (ulong t = 0; t < group; ++t) {
    ulong q = t;
    long off = base;
    for (int d = rank - 1; d >= 0; --d) {
      if (!meta[rank + d]) continue;
      const ulong dim = (ulong)meta[d];
      off += (long)(q % dim) * meta[2 * rank + d];
      q /= dim;
    }
    const CT_A v = LOAD_A(x, off);
#if IS_FLOAT_A
#if REDUCE_OP == 2 || REDUCE_OP == 3
    if (isnan(acc) || isnan(v)) {
      acc = NAN;
    } else {
#if REDUCE_OP == 2
      acc = fmax(acc, v);
#else
      acc = fmin(acc, v);
#endif
    }
#elif REDUCE_OP == 4
    acc *= v;
#else
    acc += v;
#endif
#else  // integers
#if REDUCE_OP == 2
    acc = max(acc, v);
#elif REDUCE_OP == 3
    acc = min(acc, v);
#elif REDUCE_OP == 4
    acc *= (ulong)v;
#elif REDUCE_OP == 1
    const ulong sum = acc + (ulong)v;
    acc_hi += (v < 0 ? -1 : 0) + (sum < acc ? 1 : 0);
    acc = sum;
#else
    acc += (ulong)v;
#endif
#endif
  }
#if IS_FLOAT_A && REDUCE_OP == 1
  STORE_Y(y, o, acc / (ct)group);  // 0 / 0: NaN for the empty set
#elif REDUCE_OP == 1
  STORE_Y(y, o, group == 0 ? 0 : sy_mean128(acc_hi, acc, group));
#else
  STORE_Y(y, o, acc);
#endif
}
#endif  // REDUCE_OP

// argmax argmin cumsum cumprod topk: x seen as [outer, n, inner] around one axis; one work-item
// per (outer, inner) line.
// - argmax / argmin: NaN is the largest (argmax) / smallest (argmin) value, the first NaN
//   wins; ties go to the first index, or the last with select_last_index.
// - cumsum, cumprod: floats accumulate in the compute type, integers wrap in 64 bits.
// - topk: sorted output; ties to the lower index; NaN larger than every number, NaNs tie.
//   Values are copied bit for bit (RT_A).

#ifdef ARG_OP
// ARG_OP: 1 argmax, 0 argmin. y: i64 [outer, inner].
__kernel void sy_arg(__global const uchar* xb, ulong xo, __global uchar* yb, ulong yo,
                     ulong outer, ulong n, ulong inner, int last) {
  const size_t t = get_global_id(0);
  if (t >= outer * inner) return;
  __global const ST_A* x = SY_CPTR(ST_A, xb, xo);
  __global long* y = SY_PTR(long, yb, yo);
  const ulong o = t / inner, in = t % inner;
  const ulong base = o * n * inner + in;
  long best = 0;
  CT_A bv = LOAD_A(x, base);
  for (ulong j = 1; j < n; ++j) {
    const CT_A c = LOAD_A(x, base + j * inner);
#if IS_FLOAT_A
    int more;
    if (isnan(bv)) {
      more = 0;
    } else if (isnan(c)) {
      more = 1;
    } else {
#if ARG_OP
      more = c > bv;
#else
      more = c < bv;
#endif
    }
    const int tie = c == bv || (isnan(c) && isnan(bv));
#else
#if ARG_OP
    const int more = c > bv;
#else
    const int more = c < bv;
#endif
    const int tie = c == bv;
#endif
    if (more || (last && tie)) {
      best = (long)j;
      bv = c;
    }
  }
  y[t] = best;
}
#endif  // ARG_OP

#ifdef CUMSUM
// CUMSUM 1: running sums; CUMSUM 2: running products (cumprod).
#if CUMSUM == 2
#define SY_CUM(acc, v) ((acc) * (v))
#define SY_CUM_START 1
#else
#define SY_CUM(acc, v) ((acc) + (v))
#define SY_CUM_START 0
#endif
__kernel void sy_cumsum(__global const uchar* xb, ulong xo, __global uchar* yb, ulong yo,
                        ulong outer, ulong n, ulong inner, int exclusive, int reverse) {
  const size_t t = get_global_id(0);
  if (t >= outer * inner) return;
  __global const ST_A* x = SY_CPTR(ST_A, xb, xo);
  __global ST_Y* y = SY_PTR(ST_Y, yb, yo);
  const ulong o = t / inner, in = t % inner;
#if IS_FLOAT_A
  CT_A acc = SY_CUM_START;
#else
  ulong acc = SY_CUM_START;
#endif
  for (ulong step = 0; step < n; ++step) {
    const ulong j = reverse ? n - 1 - step : step;
    const ulong i = (o * n + j) * inner + in;
#if IS_FLOAT_A
    const CT_A v = LOAD_A(x, i);
    const CT_A next = SY_CUM(acc, v);
    STORE_Y(y, i, exclusive ? acc : next);
#else
    const ulong v = (ulong)LOAD_A(x, i);
    const ulong next = SY_CUM(acc, v);
    STORE_Y(y, i, (long)(exclusive ? acc : next));
#endif
    acc = next;
  }
}
#endif  // CUMSUM

#ifdef TOPK
// Whether (a, ai) comes before (b, bi) in the output order.
inline int sy_topk_before(CT_A a, long ai, CT_A b, long bi, int largest) {
#if IS_FLOAT_A
  const int an = isnan(a), bn = isnan(b);
  if (an != bn) return largest ? an : bn;
  if (!an && a != b) return largest ? a > b : a < b;
#else
  if (a != b) return largest ? a > b : a < b;
#endif
  return ai < bi;
}

// values: slot A's dtype [outer, k, inner]; indices: i64 [outer, k, inner].
__kernel void sy_topk(__global const uchar* xb, ulong xo, __global uchar* vb, ulong vo,
                      __global uchar* ib, ulong io, ulong outer, ulong n, ulong inner, ulong k,
                      int largest) {
  const size_t t = get_global_id(0);
  if (t >= outer * inner) return;
  __global const ST_A* x = SY_CPTR(ST_A, xb, xo);
  __global const RT_A* xr = SY_CPTR(RT_A, xb, xo);
  __global RT_A* vals = SY_PTR(RT_A, vb, vo);
  __global long* idx = SY_PTR(long, ib, io);
  const ulong o = t / inner, in = t % inner;
  const ulong base = o * n * inner + in;
  CT_A prev = 0;
  long prev_i = -1;
  for (ulong j = 0; j < k; ++j) {
    long best_i = -1;
    CT_A best = 0;
    for (ulong c = 0; c < n; ++c) {
      const CT_A v = LOAD_A(x, base + c * inner);
      if (prev_i >= 0 && !sy_topk_before(prev, prev_i, v, (long)c, largest)) continue;
      if (best_i < 0 || sy_topk_before(v, (long)c, best, best_i, largest)) {
        best = v;
        best_i = (long)c;
      }
    }
    const ulong dst = (o * k + j) * inner + in;
    vals[dst] = xr[base + (ulong)best_i * inner];
    idx[dst] = best_i;
    prev = best;
    prev_i = best_i;
  }
}
#endif  // TOPK
