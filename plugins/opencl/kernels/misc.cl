// argmax argmin cumsum topk (x seen as [outer, n, inner] around one axis; one work-item
// per (outer, inner) line), group_norm and instance_norm (one work-item per (sample,
// group)), rotary_embedding, resize, conv_transpose and grid_sample (see each kernel).
// Semantics of plugins/cpu/src/ref/reduction_ref.cpp and normalization_ref.cpp:
// - argmax / argmin: NaN is the largest (argmax) / smallest (argmin) value, the first NaN
//   wins; ties go to the first index, or the last with select_last_index.
// - cumsum: floats accumulate in the compute type, integers wrap in 64 bits.
// - topk: sorted output; ties to the lower index; NaN larger than every number, NaNs tie.
//   Values are copied bit for bit (RT_A).

#pragma OPENCL FP_CONTRACT OFF

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
__kernel void sy_cumsum(__global const uchar* xb, ulong xo, __global uchar* yb, ulong yo,
                        ulong outer, ulong n, ulong inner, int exclusive, int reverse) {
  const size_t t = get_global_id(0);
  if (t >= outer * inner) return;
  __global const ST_A* x = SY_CPTR(ST_A, xb, xo);
  __global ST_Y* y = SY_PTR(ST_Y, yb, yo);
  const ulong o = t / inner, in = t % inner;
#if IS_FLOAT_A
  CT_A sum = 0;
#else
  ulong sum = 0;
#endif
  for (ulong step = 0; step < n; ++step) {
    const ulong j = reverse ? n - 1 - step : step;
    const ulong i = (o * n + j) * inner + in;
#if IS_FLOAT_A
    const CT_A v = LOAD_A(x, i);
    if (!exclusive) sum += v;
    STORE_Y(y, i, sum);
#else
    const ulong v = (ulong)LOAD_A(x, i);
    if (!exclusive) sum += v;
    STORE_Y(y, i, (long)sum);
#endif
    if (exclusive) sum += v;
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

#ifdef GROUP_NORM
// x: [batch, channels, spatial]; groups of `cpg` consecutive channels (contiguous);
// scale (slot B) and bias (slot C): [channels].
__kernel void sy_group_norm(__global const uchar* xb, ulong xo, __global const uchar* sb,
                            ulong so, __global const uchar* bb, ulong bo, __global uchar* yb,
                            ulong yo, ulong rows, ulong groups, ulong cpg, ulong spatial,
                            CT_A eps) {
  const size_t r = get_global_id(0);
  if (r >= rows) return;
  __global const ST_A* x = SY_CPTR(ST_A, xb, xo);
  __global const ST_B* scale = SY_CPTR(ST_B, sb, so);
  __global const ST_C* bias = SY_CPTR(ST_C, bb, bo);
  __global ST_Y* y = SY_PTR(ST_Y, yb, yo);
  const ulong g = r % groups;
  const ulong size = cpg * spatial;
  const ulong base = r * size;
  // Compensated (Kahan) sums: groups are long (C / groups * spatial elements) and the
  // reference sums in double.
  CT_A mean = 0, comp = 0;
  for (ulong k = 0; k < size; ++k) {
    const CT_A v = LOAD_A(x, base + k) - comp;
    const CT_A t = mean + v;
    comp = (t - mean) - v;
    mean = t;
  }
  mean /= (CT_A)size;
  CT_A var = 0;
  comp = 0;
  for (ulong k = 0; k < size; ++k) {
    const CT_A d = LOAD_A(x, base + k) - mean;
    const CT_A v = d * d - comp;
    const CT_A t = var + v;
    comp = (t - var) - v;
    var = t;
  }
  var /= (CT_A)size;
  const CT_A inv = (CT_A)1 / sqrt(var + eps);
  for (ulong k = 0; k < size; ++k) {
    const ulong c = g * cpg + k / spatial;
    STORE_Y(y, base + k, (LOAD_A(x, base + k) - mean) * inv * LOAD_B(scale, c) + LOAD_C(bias, c));
  }
}
#endif  // GROUP_NORM

#ifdef ROTARY
// x, y: [rows, seq, dim]; cos and sin (slots B and C): [seq, hd] (hd = rotary_dim / 2). One work-item per
// (row, position).
__kernel void sy_rotary(__global const uchar* xb, ulong xo, __global const uchar* cb, ulong co,
                        __global const uchar* sb, ulong so, __global uchar* yb, ulong yo,
                        ulong lines, ulong seq, ulong dim, ulong hd, int interleaved) {
  const size_t t = get_global_id(0);
  if (t >= lines) return;
  __global const ST_A* x = SY_CPTR(ST_A, xb, xo);
  __global const ST_B* cs = SY_CPTR(ST_B, cb, co);
  __global const ST_C* sn = SY_CPTR(ST_C, sb, so);
  __global ST_Y* y = SY_PTR(ST_Y, yb, yo);
  const ulong p = t % seq;
  const ulong base = t * dim;
  for (ulong i = 0; i < hd; ++i) {
    const ulong i1 = interleaved ? 2 * i : i;
    const ulong i2 = interleaved ? 2 * i + 1 : i + hd;
    const CT_A c = LOAD_B(cs, p * hd + i);
    const CT_A s = LOAD_C(sn, p * hd + i);
    const CT_A x1 = LOAD_A(x, base + i1);
    const CT_A x2 = LOAD_A(x, base + i2);
    STORE_Y(y, base + i1, c * x1 - s * x2);
    STORE_Y(y, base + i2, s * x1 + c * x2);
  }
  for (ulong d = 2 * hd; d < dim; ++d) STORE_Y(y, base + d, LOAD_A(x, base + d));
}
#endif  // ROTARY

#ifdef RESIZE
// One work-item per output element. meta: out dims[rank], in strides[rank], the start of
// each axis's table[rank]; then per axis and output coordinate nine longs: tap count (1
// to 4), index0..3, weight0..3 (weights as the bits of a CT_A: double for f64, else float
// in the low 32 bits). The taps' products are summed with the last axis fastest,
// starting from -0.0, as the reference does.
#if IS_F64_A
#define SY_WEIGHT(bits) as_double(bits)
#else
#define SY_WEIGHT(bits) as_float((int)(bits))
#endif
__kernel void sy_resize(__global const uchar* xb, ulong xo, __global uchar* yb, ulong yo,
                        ulong n_out, int rank, __global const long* meta) {
  const size_t o = get_global_id(0);
  if (o >= n_out) return;
  __global const ST_A* x = SY_CPTR(ST_A, xb, xo);
  __global ST_Y* y = SY_PTR(ST_Y, yb, yo);
  long entry[8];
  int pick[8];
  ulong r = o;
  for (int d = rank - 1; d >= 0; --d) {
    const ulong dim = (ulong)meta[d];
    entry[d] = meta[2 * rank + d] + (long)(r % dim) * 9;
    pick[d] = 0;
    r /= dim;
  }
  CT_A sum = -0.0f;
  while (1) {
    CT_A w = 1;
    long off = 0;
    for (int d = 0; d < rank; ++d) {
      __global const long* e = meta + entry[d];
      w *= SY_WEIGHT(e[5 + pick[d]]);
      off += e[1 + pick[d]] * meta[rank + d];
    }
    sum += w * LOAD_A(x, off);
    int d = rank - 1;  // next combination of taps (odometer, last axis fastest)
    for (; d >= 0; --d) {
      if (++pick[d] < (int)meta[entry[d]]) break;
      pick[d] = 0;
    }
    if (d < 0) break;
  }
  STORE_Y(y, o, sum);
}
#endif  // RESIZE

#ifdef CONV_TRANSPOSE
// conv_transpose as a gather: one work-item per y[n, m, o]; x [N, C, in...], w (slot B)
// [C, M / group, k...], bias (slot C) [M]. meta per spatial dim: in, out, kernel, stride,
// pad_begin, dilation. y[n, m, o] = bias[m] + sum over the group's channels c and taps t
// with o = i * stride + t * dilation - pad_begin of x[n, c, i] * w[c, m', t].
__kernel void sy_conv_transpose(__global const uchar* xb, ulong xo, __global const uchar* wb,
                                ulong wo, __global const uchar* bb, ulong bo,
                                __global uchar* yb, ulong yo, ulong n_out, int spatial,
                                __global const long* meta, long channels, long out_channels,
                                long cpg, long opg, long in_count, long out_count,
                                long tap_count, int has_bias) {
  const size_t idx = get_global_id(0);
  if (idx >= n_out) return;
  __global const ST_A* x = SY_CPTR(ST_A, xb, xo);
  __global const ST_B* w = SY_CPTR(ST_B, wb, wo);
  __global ST_Y* y = SY_PTR(ST_Y, yb, yo);
  const long o = (long)idx % out_count;
  const long m = ((long)idx / out_count) % out_channels;
  const long nb = (long)idx / (out_count * out_channels);
  const long g = m / opg, mg = m % opg;
  long pos[3];
  long r = o;
  for (int d = spatial - 1; d >= 0; --d) {
    const long dim = meta[6 * d + 1];
    pos[d] = r % dim;
    r /= dim;
  }
  CT_A acc = 0;
#ifdef HAS_BIAS
  __global const ST_C* bias = SY_CPTR(ST_C, bb, bo);
  acc = LOAD_C(bias, m);
#endif
  for (long cc = 0; cc < cpg; ++cc) {
    const long c = g * cpg + cc;
    const long x_base = (nb * channels + c) * in_count;
    const long w_base = (c * opg + mg) * tap_count;
    for (long t = 0; t < tap_count; ++t) {
      long rt = t, off = 0, inside = 1;
      long tap[3];
      for (int d = spatial - 1; d >= 0; --d) {
        const long k = meta[6 * d + 2];
        tap[d] = rt % k;
        rt /= k;
      }
      for (int d = 0; d < spatial; ++d) {
        const long num = pos[d] + meta[6 * d + 4] - tap[d] * meta[6 * d + 5];
        const long stride = meta[6 * d + 3];
        if (num < 0 || num % stride != 0) {
          inside = 0;
          break;
        }
        const long i = num / stride;
        if (i >= meta[6 * d]) {
          inside = 0;
          break;
        }
        off = off * meta[6 * d] + i;
      }
      if (!inside) continue;
      acc += LOAD_A(x, x_base + off) * LOAD_B(w, w_base + t);
    }
  }
  STORE_Y(y, idx, acc);
}
#endif  // CONV_TRANSPOSE

#ifdef GRID_SAMPLE
// grid_sample, one work-item per y[n, c, ho, wo]; x [N, C, H, W] (slot A), grid (slot B,
// x's dtype) [N, Ho, Wo, 2]. mode: 0 bilinear, 1 nearest, 2 bicubic; padding: 0 zeros,
// 1 border, 2 reflection. Semantics of plugins/cpu/src/ref/neural_ref.cpp's GridSample:
// the coordinate is g * scale + offset in one rounding (fma), rounded half to even for
// nearest, clamped or reflected when outside [lo, hi]; weight-0 taps are not read; a
// non-finite grid entry gives NaN.

// `v` folded into [lo, hi] by reflecting at the bounds.
inline CT_A sy_gs_reflect(CT_A v, CT_A lo, CT_A hi) {
  const CT_A span = hi - lo;
  if (!(span > 0)) return lo;
  if (v >= lo && v <= hi) return v;
  const CT_A dx = v < lo ? lo - v : v - hi;
  const CT_A k = floor(dx / span);
  const CT_A r = clamp(dx - k * span, (CT_A)0, span);
  const int even = fmod(k, (CT_A)2) == 0;
  if (v < lo) return even ? lo + r : hi - r;
  return even ? hi - r : lo + r;
}

// The taps of padded coordinate `v` along one axis (weight-0 taps left out); their count.
inline int sy_gs_taps(int mode, CT_A v, CT_A* idx, CT_A* w) {
  if (mode == 1) {
    idx[0] = v;
    w[0] = 1;
    return 1;
  }
  const CT_A lo = floor(v);
  const CT_A t = v - lo;
  int n = 0;
  if (mode == 0) {
    if (1 - t != 0) {
      idx[n] = lo;
      w[n++] = 1 - t;
    }
    if (t != 0) {
      idx[n] = lo + 1;
      w[n++] = t;
    }
    return n;
  }
  const CT_A a = (CT_A)(-0.75);
  const CT_A r1 = t + 1, q = 1 - t, q1 = q + 1;
  CT_A c[4];
  c[0] = ((a * r1 - 5 * a) * r1 + 8 * a) * r1 - 4 * a;
  c[1] = ((a + 2) * t - (a + 3)) * t * t + 1;
  c[2] = ((a + 2) * q - (a + 3)) * q * q + 1;
  c[3] = ((a * q1 - 5 * a) * q1 + 8 * a) * q1 - 4 * a;
  for (int k = 0; k < 4; ++k) {
    if (c[k] != 0) {
      idx[n] = lo - 1 + k;
      w[n++] = c[k];
    }
  }
  return n;
}

// The element tap index `i` reads along an axis of `size`, or -1 (zeros padding outside).
inline long sy_gs_element(int padding, CT_A i, long size, CT_A lo, CT_A hi) {
  const CT_A last = (CT_A)(size - 1);
  if (i >= 0 && i <= last) return (long)i;
  if (padding == 0) return -1;
  if (padding == 1) return i < 0 ? 0 : size - 1;
  return (long)clamp(trunc(sy_gs_reflect(i, lo, hi)), (CT_A)0, last);
}

__kernel void sy_grid_sample(__global const uchar* xb, ulong xo, __global const uchar* gb,
                             ulong go, __global uchar* yb, ulong yo, ulong n_out, long channels,
                             long h, long w, ulong plane_out, int mode, int padding,
                             int align) {
  const size_t o = get_global_id(0);
  if (o >= n_out) return;
  __global const ST_A* x = SY_CPTR(ST_A, xb, xo);
  __global const ST_B* g = SY_CPTR(ST_B, gb, go);
  __global ST_Y* y = SY_PTR(ST_Y, yb, yo);
  const ulong p = o % plane_out;
  const ulong nc = o / plane_out;
  const ulong n = nc / (ulong)channels;
  const ulong at = (n * plane_out + p) * 2;
  CT_A idx[2][4], wt[2][4], lo[2], hi[2];
  int count[2];
  const long sizes[2] = {w, h};
  for (int a = 0; a < 2; ++a) {
    const CT_A gv = LOAD_B(g, at + a);
    if (!isfinite(gv)) {
      STORE_Y(y, o, (CT_A)NAN);
      return;
    }
    const CT_A size = (CT_A)sizes[a];
    const CT_A offset = (size - 1) * (CT_A)0.5;
    CT_A v = fma(gv, align ? offset : size * (CT_A)0.5, offset);
    if (mode == 1) v = rint(v);
    lo[a] = align ? (CT_A)0 : (CT_A)(-0.5);
    hi[a] = align ? size - 1 : size - (CT_A)0.5;
    if (v < lo[a] || v > hi[a]) {
      if (padding == 1) {
        v = clamp(v, (CT_A)0, size - 1);
      } else if (padding == 2) {
        v = sy_gs_reflect(v, lo[a], hi[a]);
      }
    }
    count[a] = sy_gs_taps(mode, v, idx[a], wt[a]);
  }
  const long base = (long)nc * h * w;
  CT_A sum = -0.0f;
  for (int ty = 0; ty < count[1]; ++ty) {
    const long iy = sy_gs_element(padding, idx[1][ty], h, lo[1], hi[1]);
    for (int tx = 0; tx < count[0]; ++tx) {
      const long ix = sy_gs_element(padding, idx[0][tx], w, lo[0], hi[0]);
      const CT_A v = iy < 0 || ix < 0 ? (CT_A)0 : LOAD_A(x, base + iy * w + ix);
      sum += wt[1][ty] * wt[0][tx] * v;
    }
  }
  STORE_Y(y, o, sum);
}
#endif  // GRID_SAMPLE
