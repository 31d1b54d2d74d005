// Kernels of the normalization family (src/ops_normalization.cpp): softmax, log_softmax,
// layer_norm, rms_norm, batch_norm, group_norm / instance_norm. Float dtypes only; f32,
// f16 and bf16 compute in f32 (f16/bf16 rounded once on store), f64 in f64. Semantics:
// plugins/cpu/src/ref/normalization_ref.cpp.
#pragma once

#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>

#include "switchyard/dtype.h"

namespace sy::cuda::kern {

// softmax / log_softmax along the middle dim of x seen as [outer, n, inner]:
// max-subtracted, NaN and infinities propagating as in the reference.
cudaError_t LaunchSoftmax(DType dtype, bool log, const void* x, void* y, int64_t outer, int64_t n,
                          int64_t inner, cudaStream_t stream);

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
                            int64_t channels, int64_t spatial, double eps, cudaStream_t stream);

// group_norm / instance_norm over x [N, groups * cpg, spatial]: each of the N * groups
// rows (cpg * spatial contiguous elements) normalised on its own, then the per-channel
// scale and bias.
cudaError_t LaunchGroupNorm(DType dtype, const void* x, const void* scale, const void* bias,
                            void* y, int64_t rows, int64_t groups, int64_t cpg, int64_t spatial,
                            double eps, cudaStream_t stream);

}  // namespace sy::cuda::kern
