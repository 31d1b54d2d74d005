// The normalization family (src/ops_normalization.cpp): softmax and log_softmax
// (SY_SOFTMAX), layer_norm and rms_norm (AXIS_NORM), batch_norm (BATCH_NORM), group_norm
// and instance_norm (GROUP_NORM; one work-item per (sample, group)). Semantics of
// plugins/cpu/src/ref/normalization_ref.cpp.

#ifdef SY_SOFTMAX
// softmax and log_softmax along an axis: x viewed as [outer, n, inner]; one work-item per
// (outer, inner) row. y = exp(x - max) / sum(exp(x - max)), or (x - max) - log(sum(...))
// with LOG_SOFTMAX. A row holding NaN (or only -inf) comes out NaN, like the reference.

// No contraction into fused multiply-adds: results stay those of the separate
// operations, as in the reference kernels.
#pragma OPENCL FP_CONTRACT OFF
__kernel void sy_softmax(__global const uchar* xb, ulong xo, __global uchar* yb, ulong yo,
                         ulong rows, ulong n, ulong inner) {
  const size_t r = get_global_id(0);
  if (r >= rows) return;
  __global const ST_A* x = SY_CPTR(ST_A, xb, xo);
  __global ST_Y* y = SY_PTR(ST_Y, yb, yo);
  const ulong o = r / inner;
  const ulong base = o * n * inner + (r - o * inner);
  CT_A m = -INFINITY;
  for (ulong k = 0; k < n; ++k) {
    const CT_A v = LOAD_A(x, base + k * inner);
    if (isnan(v)) {
      m = v;
      break;
    }
    if (v > m) m = v;
  }
  CT_A sum = 0;
  for (ulong k = 0; k < n; ++k) sum += exp(LOAD_A(x, base + k * inner) - m);
#ifdef LOG_SOFTMAX
  const CT_A log_sum = log(sum);
  for (ulong k = 0; k < n; ++k) STORE_Y(y, base + k * inner, (LOAD_A(x, base + k * inner) - m) - log_sum);
#else
  for (ulong k = 0; k < n; ++k) STORE_Y(y, base + k * inner, exp(LOAD_A(x, base + k * inner) - m) / sum);
#endif
}
#endif  // SY_SOFTMAX

// layer_norm, rms_norm (rows of x.shape[axis:], one work-item per row) and batch_norm
// (inference, elementwise). Floats only: compute in CT_A. Semantics of the reference
// (plugins/cpu/src/ref/normalization_ref.cpp): two-pass mean and biased variance.

#pragma OPENCL FP_CONTRACT OFF

#ifdef AXIS_NORM
// x: [rows, n]; scale and bias (slots B and C) broadcast to [n]: their element offsets per
// k come from `offsets` (scale: offsets[k], bias: offsets[n + k]).
__kernel void sy_axis_norm(__global const uchar* xb, ulong xo, __global const uchar* sb,
                           ulong so, __global const uchar* bb, ulong bo, __global uchar* yb,
                           ulong yo, ulong rows, ulong n, CT_A eps,
                           __global const long* offsets) {
  const size_t r = get_global_id(0);
  if (r >= rows) return;
  __global const ST_A* x = SY_CPTR(ST_A, xb, xo);
  __global const ST_B* scale = SY_CPTR(ST_B, sb, so);
  __global ST_Y* y = SY_PTR(ST_Y, yb, yo);
  const ulong base = r * n;
  CT_A mean = 0;
#ifndef RMS_NORM
  for (ulong k = 0; k < n; ++k) mean += LOAD_A(x, base + k);
  mean /= (CT_A)n;
#endif
  CT_A var = 0;
  for (ulong k = 0; k < n; ++k) {
    const CT_A d = LOAD_A(x, base + k) - mean;
    var += d * d;
  }
  var /= (CT_A)n;
  const CT_A inv = (CT_A)1 / sqrt(var + eps);
#ifdef HAS_BIAS
  __global const ST_C* bias = SY_CPTR(ST_C, bb, bo);
#endif
  for (ulong k = 0; k < n; ++k) {
    CT_A v = (LOAD_A(x, base + k) - mean) * inv * LOAD_B(scale, offsets[k]);
#ifdef HAS_BIAS
    v += LOAD_C(bias, offsets[n + k]);
#endif
    STORE_Y(y, base + k, v);
  }
}

#endif  // AXIS_NORM

#ifdef BATCH_NORM
// batch_norm: x [N, C, spatial]; scale, bias, mean, var [C] (all slot A's dtype).
__kernel void sy_batch_norm(__global const uchar* xb, ulong xo, __global const uchar* sb,
                            ulong so, __global const uchar* bb, ulong bo,
                            __global const uchar* mb, ulong mo, __global const uchar* vb,
                            ulong vo, __global uchar* yb, ulong yo, ulong n, ulong channels,
                            ulong spatial, CT_A eps) {
  const size_t i = get_global_id(0);
  if (i >= n) return;
  __global const ST_A* x = SY_CPTR(ST_A, xb, xo);
  __global const ST_A* s = SY_CPTR(ST_A, sb, so);
  __global const ST_A* b = SY_CPTR(ST_A, bb, bo);
  __global const ST_A* m = SY_CPTR(ST_A, mb, mo);
  __global const ST_A* v = SY_CPTR(ST_A, vb, vo);
  __global ST_Y* y = SY_PTR(ST_Y, yb, yo);
  const ulong c = (i / spatial) % channels;
  const CT_A inv = (CT_A)1 / sqrt(LOAD_A(v, c) + eps);
  STORE_Y(y, i, (LOAD_A(x, i) - LOAD_A(m, c)) * inv * LOAD_A(s, c) + LOAD_A(b, c));
}
#endif  // BATCH_NORM

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
