// The `cpu-ref` device's kernels: plain, obviously correct implementations (floats in
// double, integers in int64_t, no threads, no BLAS) that every other device, including
// the fast `cpu` device, is compared with. Correctness over speed, always.
#pragma once

#include <cstddef>
#include <vector>

#include "kernel.h"

namespace sy::cpu {

// All reference kernels; built on first use, never freed.
const KernelTable& RefKernels();

// Per op family of core's catalogue (OpSchema::family), one file each:
// ref/<family>_ref.cpp (elementwise also has elementwise_binary_ref.cpp).
void AddElementwiseRefKernels(KernelTable& table);
void AddLinalgRefKernels(KernelTable& table);
void AddMovementRefKernels(KernelTable& table);
void AddIndexingRefKernels(KernelTable& table);
void AddReductionRefKernels(KernelTable& table);
void AddNormalizationRefKernels(KernelTable& table);
void AddConvPoolRefKernels(KernelTable& table);
void AddNeuralRefKernels(KernelTable& table);
void AddFusedRefKernels(KernelTable& table);
void AddSelectionRefKernels(KernelTable& table);
void AddSamplingRefKernels(KernelTable& table);
// tree_ensemble, of the indexing family, in a file of its own (tree_ensemble_ref.cpp).
void AddTreeEnsembleRefKernel(KernelTable& table);

// The fused ops' reference kernels (fused_ref.cpp), for tuned kernels that take some cases
// of these ops and hand the rest back to the reference.
Status FusedMatmulRef(const KernelContext& ctx);
Status FusedConvRef(const KernelContext& ctx);
Status AddLayerNormRef(const KernelContext& ctx);

// double -> int64_t like a non-trapping cast: truncate toward zero, saturate, NaN -> 0
// (movement_ref.cpp).
int64_t SaturatingToInt(double v);
// One element of `dtype` holding `value`: a float attribute (pad's value, range's start)
// stored into any dtype as the reference kernels store it (movement_ref.cpp).
std::vector<std::byte> ElementBytes(DType dtype, double value);

}  // namespace sy::cpu
