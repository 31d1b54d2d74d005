// The `cpu` device's kernels: tuned implementations (OpenBLAS for matmul and gemm), and
// for every op without one yet, the reference kernel. Each tuned kernel is tested
// against its reference kernel.
#pragma once

#include "kernel.h"

namespace sy::cpu {

const KernelTable& FastKernels();

// Per family (fast/<family>_fast.cpp).
void AddElementwiseFastKernels(KernelTable& table);

// Per family, one file each (fast/<family>_blas.cpp). Each kernel handles the dtypes and
// cases it is tuned for and calls the reference kernel (RefKernels()) for the rest.
void AddMatmulBlasKernels(KernelTable& table);  // matmul gemm: f32 f64 via cblas_?gemm
void AddConvBlasKernels(KernelTable& table);    // conv: f32 2-D via im2col + cblas_sgemm

}  // namespace sy::cpu
