// The `cpu` device's kernels: tuned implementations (OpenBLAS for matmul and gemm,
// vectorisable loops split over KernelContext::pool for the elementwise, reduction and
// normalisation kernels), and for every op without one yet, the reference kernel. Each
// tuned kernel is tested against its reference kernel.
#pragma once

#include <memory>
#include <string>
#include <string_view>

#include "kernel.h"

namespace sy::cpu {

const KernelTable& FastKernels();

// Per family (fast/<family>_fast.cpp). Each kernel handles the dtypes and cases it is
// tuned for and calls the reference kernel (RefKernels()) for the rest.
void AddElementwiseFastKernels(KernelTable& table);    // add sub mul div: f32
void AddUnaryFastKernels(KernelTable& table);          // relu exp tanh gelu ...: f32 f16 bf16
void AddReductionFastKernels(KernelTable& table);      // reduce_sum/mean/max, trailing axes: f32
void AddNormalizationFastKernels(KernelTable& table);  // softmax log_softmax *_norm add_layer_norm
void AddAttentionFastKernels(KernelTable& table);      // attention (fused, streaming): f32
void AddSamplingFastKernels(KernelTable& table);       // sample: every method and dtype (bit-exact)
void AddResizeFastKernels(KernelTable& table);         // resize: f32 f64, bitwise the reference's
void AddPadFastKernels(KernelTable& table);            // pad, constant mode: fill and row copies
// concat and slice of 3- to 5-D tensors in either layout (fast/layout_movement.cpp): a
// prepare step for the entries, which must exist.
void AttachLayoutMovementKernels(KernelTable& table);
// For tests: whether the fused attention kernel computes `ctx` itself rather than passing
// it to the reference kernel (see fast/attention_fast.cpp for the cases it passes on).
bool AttentionFastTakes(const KernelContext& ctx);
// What computes the fused attention kernel's block products (q k^T and P v): kAuto (the
// default) is oneDNN's sgemm where the plugin has oneDNN and it is selected, else OpenBLAS
// where it runs an AVX2 or AVX-512 kernel on this CPU, else portable vectorised loops.
// kOneDnn without oneDNN in the build means kBlas. Process-wide; for tests and
// benchmarks, which set it between runs.
enum class AttentionProducts { kAuto, kBlas, kLoops, kOneDnn };
void SetAttentionProducts(AttentionProducts choice);

// Per family, one file each (fast/<family>_blas.cpp). Each kernel handles the dtypes and
// cases it is tuned for and calls the reference kernel (RefKernels()) for the rest.
void AddMatmulBlasKernels(KernelTable& table);  // matmul gemm: f32 f64 via cblas_?gemm
// The prepare step of an integer matmul whose b is a constant (b widened to f32 once;
// fast/matmul_blas.cpp), or nullptr for any other matmul. Its f32 product is prepared with
// `f32_prepare` (oneDNN's prepare of matmul, b packed once) where given and it accepts,
// else runs on OpenBLAS. FastKernels() puts it before oneDNN's prepare of the entry.
std::unique_ptr<PreparedKernel> PrepareIntegerMatMul(const PrepareContext& ctx,
                                                     PrepareFn f32_prepare);
void AddConvBlasKernels(KernelTable& table);           // conv: f32 2-D via im2col + cblas_sgemm
void AddQuantMatmulFastKernels(KernelTable& table);    // quant_matmul: f32, weights kept packed
void AddMatmulIntegerFastKernels(KernelTable& table);  // matmul_integer: widened, exact
// For tests and benchmarks: caps the instruction set of quant_matmul's vector paths at
// `isa` ("baseline", "avx2", "avxvnni"; anything else: none) and returns the one they now
// run on here ("baseline", "avx2", "avxvnni" or "avx512vnni"). Process-wide.
std::string LimitQuantMatmulIsaForTesting(std::string_view isa);

// oneDNN primitives built at prepare (fast/onednn/), attached to the entries above: f32
// matmul and gemm (weights prepacked when constant), f32 conv with 1 to 3 spatial dims
// (depthwise included); and fused_matmul and fused_conv (bias, residual and activation as
// post-ops), whose entries it adds with the reference kernel as their plain kernel. Each
// declines the cases it does not take; the entry's plain kernel runs those. A no-op when
// the plugin is built without oneDNN.
void AttachOneDnnKernels(KernelTable& table);

// "oneDNN 2.6.3, isa avx512_core_amx" when the oneDNN kernels are built and selected,
// else "".
std::string OneDnnDescription();

// The instruction set the fast kernels' cloned loops run on here (SY_CPU_ISA_CLONES in
// fast/vec_math.h): "avx512f", "avx2" or "baseline" (the same test GCC's resolver makes).
std::string VectorIsaName();

// OpenBLAS's build and the kernel it chose for this CPU ("OpenBLAS 0.3.21, core
// SkylakeX").
std::string BlasDescription();

// SWITCHYARD_CPU_GEMM: which library runs f32 matmul, gemm and conv. Unset or empty is
// kDefault (oneDNN where built); any value but "onednn" or "openblas" is an error naming
// the choices. Read here only.
enum class GemmLibrary { kDefault, kOneDnn, kOpenBlas };
Expected<GemmLibrary> GemmChoice();

// SWITCHYARD_CPU_WINOGRAD: "1", unset or empty (the default) lets oneDNN's Winograd kernel
// run the 3x3 convs it is faster on (fast/onednn/onednn_conv.cpp); "0" keeps every conv on
// the direct kernel; any other value is an error naming the choices.
Expected<bool> WinogradChoice();

// openblas_set_num_threads: process-wide, for every BLAS call of every context.
void SetBlasThreadCount(int num_threads);

}  // namespace sy::cpu
