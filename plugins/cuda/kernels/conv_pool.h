// Kernels of the conv_pool family (src/ops_conv_pool.cpp): im2col and col2im around cuBLAS
// GEMMs, a direct convolution (depthwise-like grouped convs), bias fills, and the pools.
// Windows follow plugins/cpu/src/ref/conv_pool_ref.cpp: tap t of output position o
// reads input position o * stride - pad_begin + t * dilation, taps in the padding read 0.
//
// `meta` (device memory) describes the window over `spatial` dims (at most kMaxSpatial):
// in_dims[s], out_dims[s], kernel_dims[s], strides[s], pads[2s] (begins, then ends),
// dilations[s].
#pragma once

#include <cuda_runtime.h>

#include <cstdint>

#include "switchyard/dtype.h"

namespace sy::cuda::kern {

constexpr int kMaxSpatial = 6;

// cols[item][c * taps + t][o] = x[item][c][window position of (o, t)] (0 in the padding)
// for `items` consecutive batch items; x items are channels * in_count elements apart,
// cols items channels * taps * out_count. Bits move as they are (elem_bytes 2, 4 or 8).
cudaError_t LaunchIm2Col(int elem_bytes, const void* x, void* cols, int64_t items,
                         int64_t channels, int64_t in_count, int64_t taps, int64_t out_count,
                         int spatial, const int64_t* meta, cudaStream_t stream);

// y[n][m][o] = bias[m] for n < batch, m < channels, o < plane (float dtypes).
cudaError_t LaunchBiasFill(DType dtype, const void* bias, void* y, int64_t batch,
                           int64_t channels, int64_t plane, cudaStream_t stream);

// Direct conv, one thread per output: y[n, m, o] = bias[m] + sum over c < C/group and
// taps of x[n, g*C/g + c, window] * w[m, c, t] (accumulated in f32, f64 for f64).
cudaError_t LaunchConvDirect(DType dtype, const void* x, const void* w, const void* bias,
                             void* y, int64_t batch, int64_t channels, int64_t out_channels,
                             int64_t group, int64_t in_count, int64_t out_count, int64_t taps,
                             int spatial, const int64_t* meta, cudaStream_t stream);

// conv_transpose's col2im for `items` batch items: y[n, m, p] = bias[m] + sum of
// cols[n][m * taps + t][i] over the (t, i) with i * stride - pad + t * dilation == p.
// cols hold the GEMM's products in f32 (f32, f16, bf16) or f64 (f64): `meta`'s in_dims
// are x's spatial dims, out_dims y's. y items are out_channels * out_count apart, cols
// items out_channels * taps * in_count. bias may be null.
cudaError_t LaunchCol2Im(DType dtype, const void* cols, const void* bias, void* y,
                         int64_t items, int64_t out_channels, int64_t in_count, int64_t taps,
                         int64_t out_count, int spatial, const int64_t* meta,
                         cudaStream_t stream);

// max_pool (is_max) / avg_pool over planes [planes, in_count] -> [planes, out_count].
// Padding never takes part in a max (NaN sticks; a window with no tap inside gives -inf);
// avg_pool divides by the taps inside x, or with count_include_pad by those inside the
// padded input (NaN when that is 0).
cudaError_t LaunchPool(DType dtype, bool is_max, bool count_include_pad, const void* x, void* y,
                       int64_t planes, int64_t in_count, int64_t out_count, int spatial,
                       const int64_t* meta, cudaStream_t stream);

}  // namespace sy::cuda::kern
