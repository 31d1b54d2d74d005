// Attaches the oneDNN kernels to the `cpu` device's table (fast_kernels.h).
#include "fast/fast_kernels.h"
#include "fast/onednn/onednn_common.h"

namespace sy::cpu {

void AttachOneDnnMatmulKernels(KernelTable& table);  // onednn_matmul.cpp
void AttachOneDnnConvKernels(KernelTable& table);    // onednn_conv.cpp

void AttachOneDnnKernels(KernelTable& table) {
  AttachOneDnnMatmulKernels(table);
  AttachOneDnnConvKernels(table);
}

std::string OneDnnDescription() { return onednn::Selected() ? onednn::Description() : ""; }

}  // namespace sy::cpu
