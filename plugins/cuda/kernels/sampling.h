// Kernels of the sampling family (src/ops_sampling.cpp): `sample`, the steps of docs/ops.md
// ("Sampling") in double, one block per row of logits. Semantics (and the order of every
// sum): plugins/cpu/src/ref/sampling_ref.cpp.
#pragma once

#include <cuda_runtime.h>

#include <cstdint>

#include "switchyard/dtype.h"

namespace sy::cuda::kern {

// The method codes of LaunchSample.
enum class SampleMethod : int { kGreedy = 0, kTemperature = 1, kTopK = 2, kTopP = 3, kMinP = 4 };

// Whether `method` sorts each row by p (top_k with k < V, top_p): then LaunchSample needs
// `keys` and `idx`.
inline bool SampleSorts(SampleMethod method, int64_t top_k, int64_t V) {
  return method == SampleMethod::kTopP || (method == SampleMethod::kTopK && top_k < V);
}

// The power of two >= V: the length of a row's sort.
inline int64_t SampleSortLength(int64_t V) {
  int64_t p = 1;
  while (p < V) p *= 2;
  return p;
}

// One token per row of logits [N, V] (`logits_dtype`: f32 f16 bf16 f64) into `token` (N
// int64). `uniform` (N numbers of `uniform_dtype`, f32 or f64) may be null for greedy,
// which does not read it. Scratch: `p` N * V doubles (all but greedy), `keys` N * P and
// `idx` N * P (P = SampleSortLength(V); when SampleSorts). status[2r], status[2r + 1]: 0, 0;
// 1 and the index of row r's first NaN; or 2 and the bits of its uniform number (as a
// double) when that lies outside [0, 1). V <= 2^30. Nothing is launched when N is 0.
cudaError_t LaunchSample(DType logits_dtype, DType uniform_dtype, const void* logits,
                         const void* uniform, int64_t* token, int64_t* status, double* p,
                         uint64_t* keys, int32_t* idx, int64_t N, int64_t V, SampleMethod method,
                         double temperature, int64_t top_k, double top_p, double min_p,
                         cudaStream_t stream);

}  // namespace sy::cuda::kern
