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
