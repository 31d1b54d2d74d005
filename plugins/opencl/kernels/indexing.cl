// The indexing family (src/ops_indexing.cpp): gather, gather_elements, scatter_elements,
// gather_nd, scatter_nd and cache_write, with indices of type IT (int or long; the host defines it).
// Elements move bit for bit as RT (an unsigned type of the element's size); only the
// scatters' reductions compute values (ACC, see the host).

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

// gather_elements: y[i] = x[coords of i in the indices' shape, with idx[i] on `axis`].
// An index outside [-D, D) sets err[slot] (and y[i] = 0). meta: idims[r], xstrides[r].
__kernel void sy_gather_elements(__global const uchar* xb, ulong xo, __global const uchar* ib,
                                 ulong io, __global uchar* yb, ulong yo, ulong n, int rank,
                                 __global const long* meta, int axis, long D, __global int* err,
                                 uint slot) {
  const size_t i = get_global_id(0);
  if (i >= n) return;
  __global const IT* idx = SY_CPTR(IT, ib, io);
  __global const RT* x = SY_CPTR(RT, xb, xo);
  __global RT* y = SY_PTR(RT, yb, yo);
  long v = (long)idx[i];
  if (v < -D || v >= D) {
    err[slot] = 1;
    y[i] = 0;
    return;
  }
  if (v < 0) v += D;
  ulong r = i;
  long off = 0;
  for (int d = rank - 1; d >= 0; --d) {
    const ulong dim = (ulong)meta[d];
    const ulong q = r / dim;
    const long c = d == axis ? v : (long)(r - q * dim);
    r = q;
    off += c * meta[rank + d];
  }
  y[i] = x[off];
}

// scatter_elements: work-item i < J checks index i (err[slot]); item i < n computes
// y[i] from x[i] and, in row-major order of the indices, every update landing on it (only
// indices sharing i's coordinates off `axis` can). REDUCE: 0 none (the last update
// wins), 1 add, 2 mul, 3 max, 4 min, accumulated in ACC (double for floats, long for
// integers and bool) and stored once with STOREV. meta: xdims[r], idims[r], istrides[r].
__kernel void sy_scatter_elements(__global const uchar* xb, ulong xo, __global const uchar* ib,
                                  ulong io, __global const uchar* ub, ulong uo,
                                  __global uchar* yb, ulong yo, ulong n, ulong J, int rank,
                                  __global const long* meta, int axis, __global int* err,
                                  uint slot) {
  const size_t i = get_global_id(0);
  __global const IT* idx = SY_CPTR(IT, ib, io);
  const long D = meta[axis];
  if (i < J) {
    const long v = (long)idx[i];
    if (v < -D || v >= D) err[slot] = 1;
  }
  if (i >= n) return;
  __global const RT* x = SY_CPTR(RT, xb, xo);
  __global RT* y = SY_PTR(RT, yb, yo);
  ulong r = i;
  long base = 0;
  long target = 0;
  int inside = 1;
  for (int d = rank - 1; d >= 0; --d) {
    const ulong dim = (ulong)meta[d];
    const ulong q = r / dim;
    const long c = (long)(r - q * dim);
    r = q;
    if (d == axis) {
      target = c;
    } else {
      if (c >= meta[rank + d]) inside = 0;
      base += c * meta[2 * rank + d];
    }
  }
  const long len = inside ? meta[rank + axis] : 0;
  const long step = meta[2 * rank + axis];
#if REDUCE == 0
  RT out = x[i];
  __global const RT* u = SY_CPTR(RT, ub, uo);
  for (long j = 0; j < len; ++j) {
    const long p = base + j * step;
    long v = (long)idx[p];
    if (v < 0) v += D;
    if (v == target) out = u[p];
  }
  y[i] = out;
#else
  __global const ST_A* xa = SY_CPTR(ST_A, xb, xo);
  __global const ST_A* u = SY_CPTR(ST_A, ub, uo);
  __global ST_A* ya = SY_PTR(ST_A, yb, yo);
  int touched = 0;
  ACC acc = 0;
  for (long j = 0; j < len; ++j) {
    const long p = base + j * step;
    long v = (long)idx[p];
    if (v < 0) v += D;
    if (v != target) continue;
    if (!touched) acc = LOADV(xa, i);
    touched = 1;
    const ACC w = LOADV(u, p);
    acc = REDUCE_FN(acc, w);
  }
  if (touched) {
    STOREV(ya, i, acc);
  } else {
    y[i] = x[i];
  }
#endif
}
// gather_nd and scatter_nd: index tuples of k entries (IT) over the last dim of the
// indices; entry c indexes a dim of size meta[c] and adds meta[k + c] times its value to
// the tuple's position (row-major over the k dims). Negative entries count from the end.
// An entry outside [-size, size) sets err[slot]; such a tuple has position -1.
long sy_tuple_position(__global const IT* idx, ulong t, int k, __global const long* meta) {
  long pos = 0;
  for (int c = 0; c < k; ++c) {
    const long D = meta[c];
    long v = (long)idx[t * (ulong)k + (ulong)c];
    if (v < 0) v += D;
    if (v < 0 || v >= D) return -1;
    pos += v * meta[k + c];
  }
  return pos;
}

// gather_nd: y viewed as [T, inner] (T tuples, batch b = t / per_batch of them each):
// y[t, r] = x[(b * P + position(t)) * inner + r], P positions per batch. Work-items cover
// max(n, E): item i < E checks index entry i; item i < n copies one element (0 where the
// tuple is out of range; the flag is set then).
__kernel void sy_gather_nd(__global const uchar* xb, ulong xo, __global const uchar* ib, ulong io,
                           __global uchar* yb, ulong yo, ulong n, ulong E, int k, ulong inner,
                           ulong per_batch, long P, __global const long* meta, __global int* err,
                           uint slot) {
  const size_t i = get_global_id(0);
  __global const IT* idx = SY_CPTR(IT, ib, io);
  if (i < E) {
    const long D = meta[i % (ulong)k];
    const long v = (long)idx[i];
    if (v < -D || v >= D) err[slot] = 1;
  }
  if (i >= n) return;
  __global const RT* x = SY_CPTR(RT, xb, xo);
  __global RT* y = SY_PTR(RT, yb, yo);
  const ulong t = i / inner;
  const ulong r = i - t * inner;
  const long pos = sy_tuple_position(idx, t, k, meta);
  if (pos < 0) {
    y[i] = 0;
    return;
  }
  y[i] = x[((long)(t / per_batch) * P + pos) * (long)inner + (long)r];
}

// scatter_nd, in three launches over data viewed as [P, inner] (P positions of the k
// indexed dims) and updates as [T, inner]:
// 1. sy_scatter_nd_init, one item per position: ranges[p] = (INT_MAX, -1).
// 2. sy_scatter_nd_index, one item per tuple t: positions[t] = position(t) (checking every
//    entry), and ranges[position] narrowed to the first and last tuple naming it
//    (atomic_min / atomic_max: the result does not depend on the order of the items).
// 3. sy_scatter_nd, one item per element y[p, r]: x[p, r] when no tuple names p, else
//    with REDUCE 0 (none) the update of the last tuple naming p, otherwise every update
//    of a tuple naming p in order of t, reduced into x[p, r] in ACC and stored once.
__kernel void sy_scatter_nd_init(__global int* ranges, ulong P) {
  const size_t p = get_global_id(0);
  if (p >= P) return;
  ranges[2 * p] = INT_MAX;
  ranges[2 * p + 1] = -1;
}

__kernel void sy_scatter_nd_index(__global const uchar* ib, ulong io, ulong T, int k,
                                  __global const long* meta, __global long* positions,
                                  __global int* ranges, int with_ranges, __global int* err,
                                  uint slot) {
  const size_t t = get_global_id(0);
  if (t >= T) return;
  __global const IT* idx = SY_CPTR(IT, ib, io);
  const long pos = sy_tuple_position(idx, t, k, meta);
  positions[t] = pos;
  if (pos < 0) {
    err[slot] = 1;
    return;
  }
  if (with_ranges) {
    atomic_min(&ranges[2 * pos], (int)t);
    atomic_max(&ranges[2 * pos + 1], (int)t);
  }
}

__kernel void sy_scatter_nd(__global const uchar* xb, ulong xo, __global const uchar* ub,
                            ulong uo, __global uchar* yb, ulong yo, ulong n, ulong inner,
                            __global const long* positions, __global const int* ranges) {
  const size_t i = get_global_id(0);
  if (i >= n) return;
  __global const RT* x = SY_CPTR(RT, xb, xo);
  __global RT* y = SY_PTR(RT, yb, yo);
  const ulong p = i / inner;
  const ulong r = i - p * inner;
  const int first = ranges[2 * p];
  const int last = ranges[2 * p + 1];
  if (last < 0) {
    y[i] = x[i];
    return;
  }
#if REDUCE == 0
  (void)first;
  (void)positions;
  __global const RT* u = SY_CPTR(RT, ub, uo);
  y[i] = u[(ulong)last * inner + r];
#else
  __global const ST_A* xa = SY_CPTR(ST_A, xb, xo);
  __global const ST_A* u = SY_CPTR(ST_A, ub, uo);
  __global ST_A* ya = SY_PTR(ST_A, yb, yo);
  ACC acc = LOADV(xa, i);
  for (int t = first; t <= last; ++t) {
    if (positions[t] != (long)p) continue;
    const ACC w = LOADV(u, (ulong)t * inner + r);
    acc = REDUCE_FN(acc, w);
  }
  STOREV(ya, i, acc);
#endif
}

// cache_write: y = cache with update written at [off, off + n) along the axis; cache and y
// viewed as [outer, C, inner], update as [outer, n, inner], off the one IT at ob. Every item
// reads the offset; one outside [0, C - n] sets err[slot] (item 0) and nothing is written.
// copy != 0: one item per element of y, each writing its element once (from update in the
// written rows, else from cache), so the two never race. copy == 0 (y is cache's own
// bytes): one item per element of update.
__kernel void sy_cache_write(__global const uchar* cb, ulong co, __global const uchar* ub,
                             ulong uo, __global const uchar* ob, ulong oo, __global uchar* yb,
                             ulong yo, ulong outer, ulong C, ulong n, ulong inner, int copy,
                             __global int* err, uint slot) {
  const size_t i = get_global_id(0);
  const long off = (long)SY_CPTR(IT, ob, oo)[0];
  if (off < 0 || off > (long)(C - n)) {
    if (i == 0) err[slot] = 1;
    return;
  }
  __global RT* y = SY_PTR(RT, yb, yo);
  __global const RT* u = SY_CPTR(RT, ub, uo);
  if (copy) {
    if (i >= outer * C * inner) return;
    const ulong c = (i / inner) % C;
    if (c >= (ulong)off && c < (ulong)off + n) {
      y[i] = u[((i / (inner * C)) * n + (c - (ulong)off)) * inner + i % inner];
    } else {
      y[i] = SY_CPTR(RT, cb, co)[i];
    }
    return;
  }
  if (i >= outer * n * inner) return;
  const ulong on = i / inner;
  y[((on / n) * C + (ulong)off + on % n) * inner + i % inner] = u[i];
}
#endif
