// The `cpu-ref` device's kernels: plain, obviously correct implementations (floats in
// double, integers in int64_t, no threads, no BLAS) that every other device, including
// the fast `cpu` device, is compared with. Correctness over speed, always.
#pragma once

#include "kernel.h"

namespace sy::cpu {

// All reference kernels; built on first use, never freed.
const KernelTable& RefKernels();

// Per family, one file each (ref/<family>_ref.cpp).
void AddElementwiseRefKernels(KernelTable& table);
void AddMovementRefKernels(KernelTable& table);
void AddReductionRefKernels(KernelTable& table);
void AddLinalgConvRefKernels(KernelTable& table);  // matmul gemm conv conv_transpose pools
void AddNeuralRefKernels(KernelTable& table);      // softmax norms resize d2s s2d attention rope
void AddFusedRefKernels(KernelTable& table);       // fused_matmul fused_conv add_layer_norm

// The fused ops' reference kernels (fused_ref.cpp), for tuned kernels that take some cases
// of these ops and hand the rest back to the reference.
Status FusedMatmulRef(const KernelContext& ctx);
Status FusedConvRef(const KernelContext& ctx);
Status AddLayerNormRef(const KernelContext& ctx);

}  // namespace sy::cpu
