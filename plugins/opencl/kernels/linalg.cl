// matmul and gemm: y[b, i, j] = ALPHA * sum_l a[b, i, l] * b[b, l, j] (+ BETA * c[i, j]),
// one TS x TS output tile per work-group, staged through local memory.
//
// Strides (elements) describe any layout: a[i * sam + l * sak], b[l * sbk + j * sbn], so
// gemm's transposes cost nothing; c[i * csm + j * csn] broadcasts with zero strides.
// `batch` holds, per batch index, the element offsets of its a and b matrices (NumPy
// batch broadcasting, computed once by the host); y is contiguous [batch, M, N].
// ACC_T accumulates: float for f32 f16 bf16, double for f64, ulong for the integers
// (wrapping like NumPy's 64-bit accumulation, then again on store).
#ifndef TS
#define TS 16
#endif

__kernel __attribute__((reqd_work_group_size(TS, TS, 1))) void sy_gemm(
    __global const uchar* ab, ulong ao, __global const uchar* bb, ulong bo,
    __global const uchar* cb, ulong co, __global uchar* yb, ulong yo, long M, long N, long K,
    long sam, long sak, long sbk, long sbn, long csm, long csn, __global const long* batch,
    CT_Y alpha, CT_Y beta) {
  __local ACC_T As[TS][TS];
  __local ACC_T Bs[TS][TS + 1];
  const int tx = get_local_id(0);
  const int ty = get_local_id(1);
  const long col = (long)get_group_id(0) * TS + tx;
  const long row = (long)get_group_id(1) * TS + ty;
  const long bi = get_global_id(2);
  __global const ST_A* a = SY_CPTR(ST_A, ab, ao);
  __global const ST_B* b = SY_CPTR(ST_B, bb, bo);
  __global ST_Y* y = SY_PTR(ST_Y, yb, yo);
  const long a_base = batch[2 * bi];
  const long b_base = batch[2 * bi + 1];
  ACC_T acc = 0;
  for (long k0 = 0; k0 < K; k0 += TS) {
    const long ka = k0 + tx;
    const long kb = k0 + ty;
    As[ty][tx] = (row < M && ka < K) ? (ACC_T)LOAD_A(a, a_base + row * sam + ka * sak) : (ACC_T)0;
    Bs[ty][tx] = (kb < K && col < N) ? (ACC_T)LOAD_B(b, b_base + kb * sbk + col * sbn) : (ACC_T)0;
    barrier(CLK_LOCAL_MEM_FENCE);
    for (int k = 0; k < TS; ++k) acc += As[ty][k] * Bs[k][tx];
    barrier(CLK_LOCAL_MEM_FENCE);
  }
  if (row >= M || col >= N) return;
#ifdef HAS_C
  __global const ST_C* c = SY_CPTR(ST_C, cb, co);
  const CT_Y value = alpha * (CT_Y)acc + beta * LOAD_C(c, row * csm + col * csn);
#elif defined(HAS_ALPHA)
  const CT_Y value = alpha * (CT_Y)acc;
#else
  const CT_Y value = (CT_Y)acc;
#endif
  STORE_Y(y, bi * M * N + row * N + col, value);
}
