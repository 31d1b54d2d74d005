// The movement family (src/ops_movement.cpp): data movement, bit for bit, on elements of
// RT (an unsigned type of the element's size): strided copies (transpose, expand), 2-D
// block copies (concat), the index map (slice, split, pad, tile, depth_to_space,
// space_to_depth) and trilu.

// y[i] = x[base + sum_d index_d(i) * stride_d] over the output's dims: transpose (strides
// permuted), expand (0 along broadcast dims). meta: dims[rank], strides[rank], base.
__kernel void sy_strided_copy(__global const uchar* xb, ulong xo, __global uchar* yb, ulong yo,
                              ulong n, int rank, __global const long* meta) {
  const size_t i = get_global_id(0);
  if (i >= n) return;
  __global const RT* x = SY_CPTR(RT, xb, xo);
  __global RT* y = SY_PTR(RT, yb, yo);
  ulong r = i;
  long off = meta[2 * rank];
  for (int d = rank - 1; d >= 0; --d) {
    const ulong dim = (ulong)meta[d];
    const ulong q = r / dim;
    off += (long)(r - q * dim) * meta[rank + d];
    r = q;
  }
  y[i] = x[off];
}

// One input of a concat: x is [outer, cols] and lands at column `col0` of y, [outer,
// y_cols] (both in elements).
__kernel void sy_copy_2d(__global const uchar* xb, ulong xo, __global uchar* yb, ulong yo,
                         ulong n, ulong cols, ulong y_cols, ulong col0) {
  const size_t i = get_global_id(0);
  if (i >= n) return;
  __global const RT* x = SY_CPTR(RT, xb, xo);
  __global RT* y = SY_PTR(RT, yb, yo);
  const ulong o = i / cols;
  const ulong j = i - o * cols;
  y[o * y_cols + col0 + j] = x[i];
}

// y[i] = x[sum_d c_d * xstride_d] over y's dims, with the input coordinate
// c_d = idx_d * step_d - sub_d (saturating to LONG_MAX) and, outside [0, xdim_d), by
// `mode`: 0 never outside (slice, split, the space/depth permutations), 1 constant
// (y = fill), 2 edge, 3 reflect (pad), 4 wrap (tile). meta: ydims[r], xdims[r],
// xstrides[r], steps[r], subs[r].
__kernel void sy_index_map(__global const uchar* xb, ulong xo, __global uchar* yb, ulong yo,
                           ulong n, int rank, __global const long* meta, int mode, ulong fill) {
  const size_t i = get_global_id(0);
  if (i >= n) return;
  __global const RT* x = SY_CPTR(RT, xb, xo);
  __global RT* y = SY_PTR(RT, yb, yo);
  ulong r = i;
  long off = 0;
  for (int d = rank - 1; d >= 0; --d) {
    const ulong dim = (ulong)meta[d];
    const ulong q = r / dim;
    const long idx = (long)(r - q * dim);
    r = q;
    const long xdim = meta[rank + d];
    const long a = idx * meta[3 * rank + d];
    const long sub = meta[4 * rank + d];
    long c;
    if (sub < 0 && a > LONG_MAX + sub) {
      c = LONG_MAX;
    } else {
      c = a - sub;
    }
    if (mode != 0 && (c < 0 || c >= xdim)) {
      if (mode == 1) {
        y[i] = (RT)fill;
        return;
      } else if (mode == 2) {
        c = c < 0 ? 0 : xdim - 1;
      } else if (mode == 3) {
        c = c < 0 ? -c : 2 * (xdim - 1) - c;
      } else {
        c = c % xdim;
      }
      if (c < 0 || c >= xdim) {  // not reached for shapes the schema accepts
        y[i] = 0;
        return;
      }
    }
    off += c * meta[2 * rank + d];
  }
  y[i] = x[off];
}

// trilu over [batch, rows, cols]: keeps col - row >= k (upper) or <= k (lower), else 0.
__kernel void sy_trilu(__global const uchar* xb, ulong xo, __global uchar* yb, ulong yo, ulong n,
                       ulong rows, ulong cols, long k, int upper) {
  const size_t i = get_global_id(0);
  if (i >= n) return;
  __global const RT* x = SY_CPTR(RT, xb, xo);
  __global RT* y = SY_PTR(RT, yb, yo);
  const long col = (long)(i % cols);
  const long row = (long)((i / cols) % rows);
  const int keep = upper ? (col - row >= k) : (col - row <= k);
  y[i] = keep ? x[i] : (RT)0;
}
