// Kernels of the linear-algebra family (src/ops_linalg.cpp): what cuBLAS does not do.
// Plain launch functions on a stream; each returns the launch's error.
#pragma once

#include <cuda_runtime.h>

#include <cstdint>

#include "switchyard/dtype.h"

namespace sy::cuda::kern {

// Integer matmul (i8 u8 i32 i64; a, b and y of `dtype`): for every batch item bi,
// y[bi] (m x n) = a[offsets[2 bi]] (m x k) * b[offsets[2 bi + 1]] (k x n), accumulated
// in 64-bit two's complement and wrapped on store. `offsets` is device memory (elements).
cudaError_t LaunchIntMatmul(DType dtype, const void* a, const void* b, void* y, int64_t m,
                            int64_t n, int64_t k, int64_t batches, const int64_t* offsets,
                            cudaStream_t stream);

// Per-batch pointer arrays for cublasGemmBatchedEx: ptrs[bi] = a + offsets[2 bi] elements,
// ptrs[batches + bi] = b + offsets[2 bi + 1], ptrs[2 batches + bi] = y + bi * y_stride.
cudaError_t LaunchGemmPointers(const void* a, const void* b, void* y, int ab_elem_bytes,
                               int y_elem_bytes, const int64_t* offsets, int64_t batches,
                               int64_t y_stride, void** ptrs, cudaStream_t stream);

// y[i] = scale * c[offset(i)] for i < n (float dtypes), offset by the broadcast meta of
// CollapseBroadcast (dims[rank], then c's strides[rank]); device memory.
cudaError_t LaunchBroadcastScale(DType dtype, const void* c, void* y, int64_t n, int rank,
                                 const int64_t* meta, double scale, cudaStream_t stream);

}  // namespace sy::cuda::kern
