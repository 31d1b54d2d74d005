// The `cpu` device's kernels: tuned implementations (OpenBLAS for matmul and gemm,
// vectorisable loops split over KernelContext::pool for the elementwise, reduction and
// normalisation kernels), and for every op without one yet, the reference kernel. Each
// tuned kernel is tested against its reference kernel.
#pragma once

#include "kernel.h"

namespace sy::cpu {

const KernelTable& FastKernels();

// Per family (fast/<family>_fast.cpp). Each kernel handles the dtypes and cases it is
// tuned for and calls the reference kernel (RefKernels()) for the rest.
void AddElementwiseFastKernels(KernelTable& table);    // add sub mul div: f32
void AddUnaryFastKernels(KernelTable& table);          // relu exp tanh gelu ...: f32 f16 bf16
void AddReductionFastKernels(KernelTable& table);      // reduce_sum/mean/max, trailing axes: f32
void AddNormalizationFastKernels(KernelTable& table);  // softmax log_softmax layer_norm rms_norm

// Per family, one file each (fast/<family>_blas.cpp). Each kernel handles the dtypes and
// cases it is tuned for and calls the reference kernel (RefKernels()) for the rest.
void AddMatmulBlasKernels(KernelTable& table);  // matmul gemm: f32 f64 via cblas_?gemm
void AddConvBlasKernels(KernelTable& table);    // conv: f32 2-D via im2col + cblas_sgemm

// openblas_set_num_threads: process-wide, for every BLAS call of every context.
void SetBlasThreadCount(int num_threads);

}  // namespace sy::cpu
