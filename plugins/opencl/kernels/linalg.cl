// matmul and gemm: y[b, i, j] = ALPHA * sum_l a[b, i, l] * b[b, l, j] (+ BETA * c[i, j]),
// one TS x TS output tile per work-group, staged through local memory.
//
// Strides (elements) describe any layout: a[i * sam + l * sak], b[l * sbk + j * sbn], so
// gemm's transposes cost nothing; c[i * csm + j * csn] broadcasts with zero strides.
// `batch` holds, per batch index, the element offsets of its a and b matrices (NumPy
// batch broadcasting, computed once by the host); y is contiguous [batch, M, N].
// ACC_T accumulates: float for f32 f16 bf16, double for f64, ulong for the integers
// (wrapping like NumPy's 64-bit accumulation, then again on store).
#ifdef MATMUL_INTEGER
// matmul_integer (ONNX MatMulInteger): y[bi, row, col] = sum_k (a - za)(b - zb), a and b u8
// or i8, za one per row (za_count M) or one in all (1; 0: absent), zb one per column or
// one; summed exactly in 64 bits, stored wrapped to i32. One work-item per output;
// batch[2 bi], batch[2 bi + 1]: the element offsets of batch bi's a and b.
__kernel void sy_matmul_integer(__global const uchar* ab, ulong ao, __global const uchar* bb,
                                ulong bo, __global const uchar* zab, ulong zao,
                                __global const uchar* zbb, ulong zbo, __global uchar* yb, ulong yo,
                                long M, long N, long K, __global const long* batch, long za_count,
                                long zb_count) {
  const long col = get_global_id(0);
  const long row = get_global_id(1);
  const long bi = get_global_id(2);
  if (row >= M || col >= N) return;
  __global const ST_A* a = SY_CPTR(ST_A, ab, ao);
  __global const ST_B* b = SY_CPTR(ST_B, bb, bo);
  __global const ST_A* za = SY_CPTR(ST_A, zab, zao);
  __global const ST_B* zb = SY_CPTR(ST_B, zbb, zbo);
  __global ST_Y* y = SY_PTR(ST_Y, yb, yo);
  const long zero_a = za_count == 0 ? 0 : (long)LOAD_A(za, za_count > 1 ? row : 0);
  const long zero_b = zb_count == 0 ? 0 : (long)LOAD_B(zb, zb_count > 1 ? col : 0);
  const long a_base = batch[2 * bi] + row * K;
  const long b_base = batch[2 * bi + 1] + col;
  long acc = 0;
  for (long k = 0; k < K; ++k) {
    acc += ((long)LOAD_A(a, a_base + k) - zero_a) * ((long)LOAD_B(b, b_base + k * N) - zero_b);
  }
  STORE_Y(y, bi * M * N + row * N + col, (CT_Y)as_int((uint)(ulong)acc));  // wraps
}
#else
#ifndef QUANT_MATMUL
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
#endif  // !QUANT_MATMUL

#ifdef QUANT_MATMUL
// quant_matmul: y[r, j] = sum_k a[r, k] * (code(j, k) - zero) * scale of k's block, one
// work-item per output element; the weights stay packed (docs/ops.md: b [N, n_blocks,
// block_bytes], bits 4 with code 2i in byte i's low nibble, or 8; scales and the optional
// zero_points [N, n_blocks], zero 2^(bits - 1) without them). Each block's dot product is
// scaled once, as the cpu kernels do. a and scales share slot A.
__kernel void sy_quant_matmul(__global const uchar* ab, ulong ao, __global const uchar* qb,
                              ulong qo, __global const uchar* sb, ulong so,
                              __global const uchar* zb, ulong zo, __global uchar* yb, ulong yo,
                              ulong n, long N, long K, long n_blocks, long block_bytes,
                              long block_size, int bits, int has_zero) {
  const size_t idx = get_global_id(0);
  if (idx >= n) return;
  __global const ST_A* a = SY_CPTR(ST_A, ab, ao);
  __global const ST_A* scales = SY_CPTR(ST_A, sb, so);
  __global const uchar* codes = qb + qo;
  __global const uchar* zeros = zb + zo;
  __global ST_Y* y = SY_PTR(ST_Y, yb, yo);
  const long j = (long)(idx % (ulong)N);
  const long r = (long)(idx / (ulong)N);
  CT_A acc = 0;
  for (long blk = 0; blk < n_blocks; ++blk) {
    const long start = blk * block_size;
    const long count = min(block_size, K - start);
    const long at = j * n_blocks + blk;
    const int zero = has_zero ? (int)zeros[at] : (1 << (bits - 1));
    __global const uchar* block = codes + at * block_bytes;
    CT_A dot = 0;
    for (long i = 0; i < count; ++i) {
      const int code = bits == 8 ? (int)block[i] : ((int)block[i / 2] >> (4 * (int)(i & 1))) & 15;
      dot += (CT_A)(code - zero) * LOAD_A(a, r * K + start + i);
    }
    acc += dot * LOAD_A(scales, at);
  }
  STORE_Y(y, idx, acc);
}
#endif
#endif  // MATMUL_INTEGER
