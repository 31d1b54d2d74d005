// Kernels of the neural family (src/ops_neural.cpp): softmax, log_softmax, layer_norm,
// rms_norm, batch_norm, group_norm / instance_norm, attention, rotary_embedding, resize,
// grid_sample. Float dtypes only; f32, f16 and bf16 compute in f32 (f16/bf16 rounded
// once on store), f64 in f64, except resize and grid_sample, which compute in f64 for
// every dtype as the reference does (they are memory-bound). Semantics:
// plugins/cpu/src/ref/normalization_ref.cpp and neural_ref.cpp.
#pragma once

#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>

#include "switchyard/dtype.h"

namespace sy::cuda::kern {

// softmax / log_softmax along the middle dim of x seen as [outer, n, inner]:
// max-subtracted, NaN and infinities propagating as in the reference.
cudaError_t LaunchSoftmax(DType dtype, bool log, const void* x, void* y, int64_t outer,
                          int64_t n, int64_t inner, cudaStream_t stream);

// layer_norm (rms = false) / rms_norm over rows [outer, n] of x: two-pass mean and
// variance, y = (x - mean) / sqrt(var + eps) * scale + bias. scale and bias broadcast to
// the row's dims by meta = dims[rank], scale strides[rank], bias strides[rank]
// (CollapseBroadcast); bias may be null.
cudaError_t LaunchAxisNorm(DType dtype, bool rms, const void* x, const void* scale,
                           const void* bias, void* y, int64_t outer, int64_t n, int rank,
                           const int64_t* meta, double eps, cudaStream_t stream);

// batch_norm (inference) over x [N, C, spatial]: per channel parameters.
cudaError_t LaunchBatchNorm(DType dtype, const void* x, const void* scale, const void* bias,
                            const void* mean, const void* var, void* y, int64_t count,
                            int64_t channels, int64_t spatial, double eps,
                            cudaStream_t stream);

// group_norm / instance_norm over x [N, groups * cpg, spatial]: each of the N * groups
// rows (cpg * spatial contiguous elements) normalised on its own, then the per-channel
// scale and bias.
cudaError_t LaunchGroupNorm(DType dtype, const void* x, const void* scale, const void* bias,
                            void* y, int64_t rows, int64_t groups, int64_t cpg,
                            int64_t spatial, double eps, cudaStream_t stream);

// attention: q [B, Hq, S, D], k [B, Hkv, T, D], v [B, Hkv, T, Dv] -> y [B, Hq, S, Dv].
// mask_kind 0: none; 1: additive, q's dtype; 2: bool (true attends). mask_strides: the
// mask's element strides along [B, Hq, S, T] (0 where it broadcasts).
struct AttentionDims {
  int64_t b = 0, hq = 0, s = 0, d = 0, hkv = 0, t = 0, dv = 0;
  int64_t mask_strides[4] = {0, 0, 0, 0};
};
// Dynamic shared memory one block of the attention kernel needs (bytes).
inline size_t AttentionSharedBytes(DType dtype, int64_t d, int64_t dv) {
  const size_t acc = dtype == DType::kF64 ? 8 : 4;
  return static_cast<size_t>(d + dv + 128 + 32) * acc;
}
cudaError_t LaunchAttention(DType dtype, int mask_kind, const void* q, const void* k,
                            const void* v, const void* mask, void* y, const AttentionDims& dims,
                            double scale, bool causal, cudaStream_t stream);

// rotary_embedding: x [rows, S, D], cos and sin [S, rotary / 2].
cudaError_t LaunchRotary(DType dtype, const void* x, const void* cos, const void* sin, void* y,
                         int64_t rows, int64_t seq, int64_t dim, int64_t rotary,
                         bool interleaved, cudaStream_t stream);

// resize from precomputed taps: meta = out dims[rank], x strides[rank], per axis the first
// entry of its taps in the table[rank], then the table: per axis and output coordinate
// one entry of 9 values: count (1..4), 4 input indices, 4 weights (double bits).
// rank <= 8.
cudaError_t LaunchResize(DType dtype, const void* x, void* y, int64_t count, int rank,
                         const int64_t* meta, cudaStream_t stream);

// grid_sample: x [N, C, H, W], grid [N, Ho, Wo, 2] -> y [N, C, Ho, Wo].
// interp 0 nearest, 1 bilinear, 2 bicubic; padding 0 zeros, 1 border, 2 reflection.
cudaError_t LaunchGridSample(DType dtype, const void* x, const void* grid, void* y, int64_t n,
                             int64_t c, int64_t h, int64_t w, int64_t ho, int64_t wo,
                             int interp, int padding, bool align_corners,
                             cudaStream_t stream);

}  // namespace sy::cuda::kern
