// The neural family (src/ops_neural.cpp): attention (SY_ATTENTION), rotary_embedding
// (ROTARY), resize (RESIZE) and grid_sample (GRID_SAMPLE). Semantics of
// plugins/cpu/src/ref/neural_ref.cpp.

#pragma OPENCL FP_CONTRACT OFF

#ifdef SY_ATTENTION
// attention (opset 23): q [B, Hq, S, D], k [B, Hkv, T, D], v [B, Hkv, T, Dv], optional
// mask (slot M: additive float, or bool: true keeps, false masks) broadcast to
// [B, Hq, S, T] by the element strides ms0..ms3; y [B, Hq, S, Dv]. One work-item per
// query row (b, h, i): a pass for the maximum of the biased scores, a pass summing
// exp(score - max) and accumulating the weighted values in `acc` (rows x Dv scratch of
// the compute type). Semantics of plugins/cpu/src/ref/neural_ref.cpp: grouped-query heads
// (g = h / (Hq / Hkv)), is_causal masks j > i, excluded keys are not read, a fully masked
// row gives zeros.

#pragma OPENCL FP_CONTRACT OFF

typedef CT_A ct;

inline ct sy_bias(__global const uchar* mb, ulong mo, long at, long i, long j, int causal) {
  ct bias = 0;
#ifdef HAS_MASK
  __global const ST_M* mask = SY_CPTR(ST_M, mb, mo);
#if IS_FLOAT_M
  bias = (ct)LOAD_M(mask, at);
#else
  bias = LOAD_M(mask, at) != 0 ? (ct)0 : (ct)(-INFINITY);
#endif
#endif
  if (causal && j > i) bias = (ct)(-INFINITY);
  return bias;
}

// Whether the row excludes a key of this bias (plugins/common/attention_mask.h, whose
// values the host passes as SY_EXCLUDED_BIAS and SY_DOMINANT_BIAS): an excluded key is
// never read.
inline int sy_excluded(ct bias, int dominant) {
  return bias == (ct)(-INFINITY) || (dominant && bias <= (ct)SY_EXCLUDED_BIAS);
}

__kernel void sy_attention(__global const uchar* qb, ulong qo, __global const uchar* kb, ulong ko,
                           __global const uchar* vb, ulong vo, __global const uchar* mb, ulong mo,
                           __global uchar* yb, ulong yo, __global ct* acc, ulong rows, long Hq,
                           long S, long D, long Hkv, long T, long Dv, ct scale, int causal,
                           long ms0, long ms1, long ms2, long ms3) {
  const size_t r = get_global_id(0);
  if (r >= rows) return;
  __global const ST_A* q = SY_CPTR(ST_A, qb, qo);
  __global const ST_A* k = SY_CPTR(ST_A, kb, ko);
  __global const ST_A* v = SY_CPTR(ST_A, vb, vo);
  __global ST_Y* y = SY_PTR(ST_Y, yb, yo);
  const long i = (long)(r % (ulong)S);
  const long bh = (long)(r / (ulong)S);
  const long h = bh % Hq;
  const long b = bh / Hq;
  const long kvh = h / (Hq / Hkv);
  const long k_base = (b * Hkv + kvh) * T * D;
  const long v_base = (b * Hkv + kvh) * T * Dv;
  const long q_base = (long)r * D;
  const long m_base = b * ms0 + h * ms1 + i * ms2;
  __global ct* out = acc + r * (ulong)Dv;

  int dominant = 0;
  for (long j = 0; j < T; ++j) {
    if (sy_bias(mb, mo, m_base + j * ms3, i, j, causal) > (ct)SY_DOMINANT_BIAS) dominant = 1;
  }
  ct m = -INFINITY;
  int all_masked = 1;
  for (long j = 0; j < T; ++j) {
    const ct bias = sy_bias(mb, mo, m_base + j * ms3, i, j, causal);
    if (sy_excluded(bias, dominant)) continue;
    all_masked = 0;
    ct score = 0;
    for (long d = 0; d < D; ++d) score += scale * LOAD_A(q, q_base + d) * LOAD_A(k, k_base + j * D + d);
    score += bias;
    if (isnan(m)) continue;
    if (isnan(score) || score > m) m = score;
  }
  if (all_masked || m == -INFINITY) {
    for (long e = 0; e < Dv; ++e) STORE_Y(y, (long)r * Dv + e, (ct)0);
    return;
  }
  for (long e = 0; e < Dv; ++e) out[e] = 0;
  ct sum = 0;
  for (long j = 0; j < T; ++j) {
    const ct bias = sy_bias(mb, mo, m_base + j * ms3, i, j, causal);
    if (sy_excluded(bias, dominant)) continue;
    ct score = 0;
    for (long d = 0; d < D; ++d) score += scale * LOAD_A(q, q_base + d) * LOAD_A(k, k_base + j * D + d);
    const ct p = exp(score + bias - m);
    sum += p;
    for (long e = 0; e < Dv; ++e) out[e] += p * LOAD_A(v, v_base + j * Dv + e);
  }
  for (long e = 0; e < Dv; ++e) STORE_Y(y, (long)r * Dv + e, out[e] / sum);
}
#endif  // SY_ATTENTION

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
// each axis's entries[rank], extrapolation_value; then per axis and output coordinate an
// entry of two longs (tap count, where its taps start in meta), then the taps, two longs
// each (index, weight). Weights and extrapolation_value are the bits of a CT_A: double
// for f64, else float in the low 32 bits. A coordinate with no taps (tf_crop_and_resize
// outside the crop) makes the element extrapolation_value. The taps' products are summed
// with the last axis fastest, starting from -0.0, as the reference does.
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
  long entry[8];  // per axis: where this output coordinate's (count, first tap) are
  int pick[8];
  int outside = 0;  // tf_crop_and_resize: a coordinate without taps
  ulong r = o;
  for (int d = rank - 1; d >= 0; --d) {
    const ulong dim = (ulong)meta[d];
    entry[d] = meta[2 * rank + d] + (long)(r % dim) * 2;
    pick[d] = 0;
    r /= dim;
    if (meta[entry[d]] == 0) outside = 1;
  }
  if (outside) {
    STORE_Y(y, o, (CT_A)SY_WEIGHT(meta[3 * rank]));
    return;
  }
  CT_A sum = -0.0f;
  while (1) {
    CT_A w = 1;
    long off = 0;
    for (int d = 0; d < rank; ++d) {
      __global const long* t = meta + meta[entry[d] + 1] + 2 * pick[d];
      w *= SY_WEIGHT(t[1]);
      off += t[0] * meta[rank + d];
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

#ifdef GRID_SAMPLE
// grid_sample, one work-item per y[n, c, ho, wo]; x [N, C, H, W] (slot A), grid (slot B,
// x's dtype) [N, Ho, Wo, 2]. mode: 0 bilinear, 1 nearest, 2 bicubic; padding: 0 zeros,
// 1 border, 2 reflection. Semantics of plugins/cpu/src/ref/neural_ref.cpp's GridSample:
// the coordinate is g * scale + offset in one rounding (fma), rounded half to even for
// nearest, clamped or reflected when outside [lo, hi]; weight-0 taps are not read; a
// non-finite grid entry gives NaN. Coordinates, taps and the sum are in double (GS_T)
// where the device has cl_khr_fp64, as in the reference: in float a coordinate far
// outside (a grid entry of 1e9 under reflection) keeps too few bits to fold into the
// right element. Without fp64 they are in x's type, exact for coordinates below 2^24.
#ifdef SY_HAS_FP64
#define GS_T double
#else
#define GS_T CT_A
#endif

// `v` folded into [lo, hi] by reflecting at the bounds.
inline GS_T sy_gs_reflect(GS_T v, GS_T lo, GS_T hi) {
  const GS_T span = hi - lo;
  if (!(span > 0)) return lo;
  if (v >= lo && v <= hi) return v;
  const GS_T dx = v < lo ? lo - v : v - hi;
  const GS_T k = floor(dx / span);
  const GS_T r = clamp(dx - k * span, (GS_T)0, span);
  const int even = fmod(k, (GS_T)2) == 0;
  if (v < lo) return even ? lo + r : hi - r;
  return even ? hi - r : lo + r;
}

// The taps of padded coordinate `v` along one axis (weight-0 taps left out); their count.
inline int sy_gs_taps(int mode, GS_T v, GS_T* idx, GS_T* w) {
  if (mode == 1) {
    idx[0] = v;
    w[0] = 1;
    return 1;
  }
  const GS_T lo = floor(v);
  const GS_T t = v - lo;
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
  const GS_T a = (GS_T)(-0.75);
  const GS_T r1 = t + 1, q = 1 - t, q1 = q + 1;
  GS_T c[4];
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
inline long sy_gs_element(int padding, GS_T i, long size, GS_T lo, GS_T hi) {
  const GS_T last = (GS_T)(size - 1);
  if (i >= 0 && i <= last) return (long)i;
  if (padding == 0) return -1;
  if (padding == 1) return i < 0 ? 0 : size - 1;
  return (long)clamp(trunc(sy_gs_reflect(i, lo, hi)), (GS_T)0, last);
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
  GS_T idx[2][4], wt[2][4], lo[2], hi[2];
  int count[2];
  const long sizes[2] = {w, h};
  for (int a = 0; a < 2; ++a) {
    const GS_T gv = (GS_T)LOAD_B(g, at + a);
    if (!isfinite(gv)) {
      STORE_Y(y, o, (CT_A)NAN);
      return;
    }
    const GS_T size = (GS_T)sizes[a];
    const GS_T offset = (size - 1) * (GS_T)0.5;
    GS_T v = fma(gv, align ? offset : size * (GS_T)0.5, offset);
    if (mode == 1) v = rint(v);
    lo[a] = align ? (GS_T)0 : (GS_T)(-0.5);
    hi[a] = align ? size - 1 : size - (GS_T)0.5;
    if (v < lo[a] || v > hi[a]) {
      if (padding == 1) {
        v = clamp(v, (GS_T)0, size - 1);
      } else if (padding == 2) {
        v = sy_gs_reflect(v, lo[a], hi[a]);
      }
    }
    count[a] = sy_gs_taps(mode, v, idx[a], wt[a]);
  }
  const long base = (long)nc * h * w;
  GS_T sum = -0.0f;
  for (int ty = 0; ty < count[1]; ++ty) {
    const long iy = sy_gs_element(padding, idx[1][ty], h, lo[1], hi[1]);
    for (int tx = 0; tx < count[0]; ++tx) {
      const long ix = sy_gs_element(padding, idx[0][tx], w, lo[0], hi[0]);
      const GS_T v = iy < 0 || ix < 0 ? (GS_T)0 : (GS_T)LOAD_A(x, base + iy * w + ix);
      sum += wt[1][ty] * wt[0][tx] * v;
    }
  }
  STORE_Y(y, o, (CT_A)sum);
}
#undef GS_T
#endif  // GRID_SAMPLE
