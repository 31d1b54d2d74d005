// The `cpu` device's kernels: tuned implementations (OpenBLAS for matmul and gemm,
// vectorisable loops split over KernelContext::pool for the elementwise, reduction and
// normalisation kernels), and for every op without one yet, the reference kernel. Each
// tuned kernel is tested against its reference kernel.
#pragma once

#include <string>

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

// oneDNN primitives built at prepare (fast/onednn/), attached to the entries above: f32
// matmul and gemm (weights prepacked when constant), f32 conv with 1 to 3 spatial dims
// (depthwise included). Each declines the cases it does not take; the entry's plain kernel
// runs those. A no-op when the plugin is built without oneDNN.
void AttachOneDnnKernels(KernelTable& table);

// "oneDNN 2.6.3, isa avx512_core_amx" when the oneDNN kernels are built and selected,
// else "".
std::string OneDnnDescription();

// OpenBLAS's build and the kernel it chose for this CPU ("OpenBLAS 0.3.21, core
// SkylakeX").
std::string BlasDescription();

// SWITCHYARD_CPU_GEMM: which library runs f32 matmul, gemm and conv. Unset or empty is
// kDefault (oneDNN where built); any value but "onednn" or "openblas" is an error naming
// the choices. Read here only.
enum class GemmLibrary { kDefault, kOneDnn, kOpenBlas };
Expected<GemmLibrary> GemmChoice();

// openblas_set_num_threads: process-wide, for every BLAS call of every context.
void SetBlasThreadCount(int num_threads);

}  // namespace sy::cpu
