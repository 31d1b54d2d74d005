// Data movement, bit for bit, on elements of RT (an unsigned type of the element's size).

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

#ifdef IT
// gather: y[o, j, r] = x[o, idx[j], r] with x viewed as [outer, D, inner] and the indices
// (IT: int or long) flattened to J entries; a negative index counts from the end. Work-
// items cover max(n, J): item i < J checks index i (an index outside [-D, D) sets
// err[slot], even when y is empty, like the reference), item i < n copies one element.
__kernel void sy_gather(__global const uchar* xb, ulong xo, __global const uchar* ib, ulong io,
                        __global uchar* yb, ulong yo, ulong n, ulong J, ulong inner, long D,
                        __global int* err, uint slot) {
  const size_t i = get_global_id(0);
  __global const IT* idx = SY_CPTR(IT, ib, io);
  if (i < J) {
    const long v = (long)idx[i];
    if (v < -D || v >= D) err[slot] = 1;
  }
  if (i >= n) return;
  __global const RT* x = SY_CPTR(RT, xb, xo);
  __global RT* y = SY_PTR(RT, yb, yo);
  const ulong r = i % inner;
  const ulong oj = i / inner;
  const ulong j = oj % J;
  const ulong o = oj / J;
  long v = (long)idx[j];
  if (v < 0) v += D;
  if (v < 0 || v >= D) {
    y[i] = 0;
    return;
  }
  y[i] = x[(o * (ulong)D + (ulong)v) * inner + r];
}
#endif
