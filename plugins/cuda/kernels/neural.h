// Kernels of the neural family (src/ops_neural.cpp): attention, rotary_embedding, resize,
// grid_sample. Float dtypes only; f32, f16 and bf16 compute in f32 (f16/bf16 rounded
// once on store), f64 in f64, except resize and grid_sample, which compute in f64 for
// every dtype as the reference does (they are memory-bound). Semantics:
// plugins/cpu/src/ref/neural_ref.cpp.
#pragma once

#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>

#include "switchyard/dtype.h"

namespace sy::cuda::kern {

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
cudaError_t LaunchAttention(DType dtype, int mask_kind, const void* q, const void* k, const void* v,
                            const void* mask, void* y, const AttentionDims& dims, double scale,
                            bool causal, cudaStream_t stream);

// rotary_embedding: x [rows, S, D], cos and sin [S, rotary / 2].
cudaError_t LaunchRotary(DType dtype, const void* x, const void* cos, const void* sin, void* y,
                         int64_t rows, int64_t seq, int64_t dim, int64_t rotary, bool interleaved,
                         cudaStream_t stream);

// resize from precomputed taps: meta = out dims[rank], x strides[rank], per axis the first
// entry of its taps in the table[rank], then the table: per axis and output coordinate
// one entry of 9 values: count (1..4), 4 input indices, 4 weights (double bits).
// rank <= 8.
cudaError_t LaunchResize(DType dtype, const void* x, void* y, int64_t count, int rank,
                         const int64_t* meta, cudaStream_t stream);

// grid_sample: x [N, C, H, W], grid [N, Ho, Wo, 2] -> y [N, C, Ho, Wo].
// interp 0 nearest, 1 bilinear, 2 bicubic; padding 0 zeros, 1 border, 2 reflection.
cudaError_t LaunchGridSample(DType dtype, const void* x, const void* grid, void* y, int64_t n,
                             int64_t c, int64_t h, int64_t w, int64_t ho, int64_t wo, int interp,
                             int padding, bool align_corners, cudaStream_t stream);

}  // namespace sy::cuda::kern
