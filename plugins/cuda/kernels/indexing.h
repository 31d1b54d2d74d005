// Kernels of the indexing family (src/ops_indexing.cpp): gather, gather_elements,
// scatter_elements, gather_nd, scatter_nd, cache_write. Semantics: plugins/cpu/src/ref/indexing_ref.cpp.
// Gathers and the scatters' "none" move elements bit for bit (`elem_bytes` 1, 2, 4 or 8);
// an index outside [-size, size) sets err[slot] (the execute then fails with SY_ERROR_DATA)
// and is never used to read or write. Indices are i32 (`idx64` false) or i64.
#pragma once

#include <cuda_runtime.h>

#include <cstdint>

#include "switchyard/dtype.h"

namespace sy::cuda::kern {

// gather: y[o, j, r] = x[o, idx[j], r], x seen as [outer, D, inner], J indices; n = y's
// element count (inner >= 1).
cudaError_t LaunchGather(int elem_bytes, bool idx64, const void* x, const void* idx, void* y,
                         int64_t n, int64_t J, int64_t inner, int64_t D, int* err, uint32_t slot,
                         cudaStream_t stream);

// gather_elements: y[i] = x[coords of i in the indices' shape, idx[i] on `axis`];
// n = the indices' element count; meta = idims[rank], xstrides[rank].
cudaError_t LaunchGatherElements(int elem_bytes, bool idx64, const void* x, const void* idx,
                                 void* y, int64_t n, int rank, const int64_t* meta, int axis,
                                 int64_t D, int* err, uint32_t slot, cudaStream_t stream);

// scatter_elements: y = x with updates written (reduction 0 none: the last in row-major
// order of the indices wins; 1 add, 2 mul, 3 max, 4 min: reduced into x in that order,
// floats in f64, integers wrapping, bool as or / and). One thread per element of y
// gathers the updates landing on it (deterministic). n = y's element count, J = the
// indices'; meta = xdims[rank], idims[rank], istrides[rank].
cudaError_t LaunchScatterElements(DType dtype, int reduction, bool idx64, const void* x,
                                  const void* idx, const void* updates, void* y, int64_t n,
                                  int64_t J, int rank, const int64_t* meta, int axis, int* err,
                                  uint32_t slot, cudaStream_t stream);

// scatter_elements with reduction "none" in O(J + n) (for long index lines): the last
// index entry writing each element found with 64-bit atomicMax into `last` (scratch, n
// values), then y = that update or x. meta = xdims[rank], idims[rank], istrides[rank],
// xstrides[rank].
cudaError_t LaunchScatterElementsLast(int elem_bytes, bool idx64, const void* x, const void* idx,
                                      const void* updates, void* y, int64_t n, int64_t J, int rank,
                                      const int64_t* meta, int axis, unsigned long long* last,
                                      int* err, uint32_t slot, cudaStream_t stream);

// gather_nd: y seen as [T, inner], tuples of k entries (the last dim of the indices) over
// the k dims after `batch_dims`: y[t, r] = x[(t / per_batch * P + position(t)) * inner + r].
// n = y's element count, E = the indices'; meta = the k dims' sizes, then their row-major
// strides.
cudaError_t LaunchGatherND(int elem_bytes, bool idx64, const void* x, const void* idx, void* y,
                           int64_t n, int64_t E, int k, int64_t inner, int64_t per_batch, int64_t P,
                           const int64_t* meta, int* err, uint32_t slot, cudaStream_t stream);

// scatter_nd over x seen as [P, inner] and updates as [T, inner] (count = P * inner):
// positions of the tuples (scratch `positions`, T int64), the first and last tuple naming
// each position (scratch `ranges`, 2 P ints, found with atomics: order-independent), then
// one thread per element applies them in tuple order (reduction codes as
// scatter_elements). T <= INT_MAX.
cudaError_t LaunchScatterND(DType dtype, int reduction, bool idx64, const void* x, const void* idx,
                            const void* updates, void* y, int64_t count, int64_t inner, int64_t P,
                            int64_t T, int k, const int64_t* meta, int64_t* positions, int* ranges,
                            int* err, uint32_t slot, cudaStream_t stream);

// cache_write: y = cache with update written at [off, off + n) along the axis, cache and y
// seen as [outer, C, inner], update as [outer, n, inner], off the one integer at `offset`
// (device memory). An offset outside [0, C - n] sets err[slot] and nothing is written.
// copy: y is not cache's own bytes, so every element of y is written once (from update
// in the written rows, else from cache); otherwise only the update's elements move.
cudaError_t LaunchCacheWrite(int elem_bytes, bool idx64, const void* cache, const void* update,
                             const void* offset, void* y, int64_t outer, int64_t C, int64_t n,
                             int64_t inner, bool copy, int* err, uint32_t slot,
                             cudaStream_t stream);

}  // namespace sy::cuda::kern
