// Kernels of the movement family (src/ops_movement.cpp): bit-exact element movement on
// any dtype (elements move as unsigned integers of their size, `elem_bytes` 1, 2, 4 or 8).
#pragma once

#include <cuda_runtime.h>

#include <cstdint>

namespace sy::cuda::kern {

// y[i] = x[base + sum_d index_d(i) * stride_d] over y's dims (transpose, expand).
// meta = dims[rank], strides[rank], base (device memory).
cudaError_t LaunchStridedCopy(int elem_bytes, const void* x, void* y, int64_t n, int rank,
                              const int64_t* meta, cudaStream_t stream);

// dst[o * dst_cols + dst_col0 + j] = src[o * src_cols + src_col0 + j] for o < outer,
// j < cols (concat's inputs, split's outputs).
cudaError_t LaunchCopy2D(int elem_bytes, const void* src, void* dst, int64_t outer, int64_t cols,
                         int64_t src_cols, int64_t src_col0, int64_t dst_cols, int64_t dst_col0,
                         cudaStream_t stream);

// y[i] = x[sum_d c_d * xstride_d] over y's dims, with the input coordinate
// c_d = idx_d * step_d - sub_d (saturating) and, outside [0, xdim_d), by `mode`: 0 never
// outside (slice, the space/depth permutations), 1 constant (y = fill, the element's
// bits), 2 edge, 3 reflect (pad), 4 wrap (tile). meta = ydims[r], xdims[r], xstrides[r],
// steps[r], subs[r].
cudaError_t LaunchIndexMap(int elem_bytes, const void* x, void* y, int64_t n, int rank,
                           const int64_t* meta, int mode, uint64_t fill, cudaStream_t stream);

// trilu over [batch, rows, cols]: keeps col - row >= k (upper) or <= k (lower), else 0.
cudaError_t LaunchTrilu(int elem_bytes, const void* x, void* y, int64_t n, int64_t rows,
                        int64_t cols, int64_t k, bool upper, cudaStream_t stream);

}  // namespace sy::cuda::kern
