// reduce_sum reduce_mean reduce_max reduce_min reduce_prod and global_avg_pool: one
// work-item per output element. The host merges adjacent dims of x that are both kept or
// both reduced; meta = dims[rank], reduced[rank] (0/1), strides[rank] (elements of x).
// REDUCE_OP is 0 sum, 1 mean, 2 max, 3 min, 4 prod. Semantics of
// plugins/cpu/src/ref/reduction_ref.cpp: floats accumulate in the compute type, max/min
// propagate NaN, the empty set gives 0 / NaN (float mean) / 0 (integer mean) / lowest /
// highest / 1; integers wrap in 64 bits, and an integer mean sums exactly in 128 bits and
// truncates toward zero. `lo` and `hi`: the integer dtype's range (max/min's start).

#pragma OPENCL FP_CONTRACT OFF

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
