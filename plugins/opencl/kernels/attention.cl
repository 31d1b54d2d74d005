// attention (opset 23): q [B, Hq, S, D], k [B, Hkv, T, D], v [B, Hkv, T, Dv], optional
// mask (slot M: additive float, or bool: true keeps, false masks) broadcast to
// [B, Hq, S, T] by the element strides ms0..ms3; y [B, Hq, S, Dv]. One work-item per
// query row (b, h, i): a pass for the maximum of the biased scores, a pass summing
// exp(score - max) and accumulating the weighted values in `acc` (rows x Dv scratch of
// the compute type). Semantics of plugins/cpu/src/ref/neural_ref.cpp: grouped-query heads
// (g = h / (Hq / Hkv)), is_causal masks j > i, a fully masked row gives zeros.

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
  if (causal && j > i) bias += (ct)(-INFINITY);  // NaN stays NaN
  return bias;
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

  ct m = -INFINITY;
  int all_masked = 1;
  for (long j = 0; j < T; ++j) {
    const ct bias = sy_bias(mb, mo, m_base + j * ms3, i, j, causal);
    if (bias != -INFINITY) all_masked = 0;
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
    ct score = 0;
    for (long d = 0; d < D; ++d) score += scale * LOAD_A(q, q_base + d) * LOAD_A(k, k_base + j * D + d);
    const ct p = exp(score + bias - m);
    sum += p;
    for (long e = 0; e < Dv; ++e) out[e] += p * LOAD_A(v, v_base + j * Dv + e);
  }
  for (long e = 0; e < Dv; ++e) STORE_Y(y, (long)r * Dv + e, out[e] / sum);
}
