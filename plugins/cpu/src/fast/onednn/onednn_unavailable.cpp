// Built instead of the oneDNN kernels when the plugin is configured without oneDNN
// (libdnnl-dev absent, or SY_CPU_ONEDNN=OFF): matmul, gemm and conv stay on OpenBLAS.
#include <string>

#include "fast/fast_kernels.h"

namespace sy::cpu {

void AttachOneDnnKernels(KernelTable&) {}

std::string OneDnnDescription() { return ""; }

}  // namespace sy::cpu
