// Attaches the oneDNN kernels to the `cpu` device's table (fast_kernels.h).
#include "fast/fast_kernels.h"
#include "fast/onednn/onednn_common.h"
#include "ref/ref_kernels.h"

namespace sy::cpu {

void AttachOneDnnMatmulKernels(KernelTable& table);         // onednn_matmul.cpp
void AttachOneDnnConvKernels(KernelTable& table);           // onednn_conv.cpp
void AttachOneDnnPoolKernels(KernelTable& table);           // onednn_pool.cpp
void AttachOneDnnMatmulIntegerKernels(KernelTable& table);  // onednn_matmul_integer.cpp
void AttachOneDnnQLinearConvKernels(KernelTable& table);    // onednn_qlinear_conv.cpp

void AttachOneDnnKernels(KernelTable& table) {
  // The fused ops have no tuned plain kernel: their entries run the reference kernel for
  // whatever the oneDNN prepares decline (without oneDNN they come from the reference
  // table as they are).
  table.Add("fused_matmul", FusedMatmulRef);
  table.Add("fused_conv", FusedConvRef);
  AttachOneDnnMatmulKernels(table);
  AttachOneDnnConvKernels(table);
  AttachOneDnnPoolKernels(table);
  AttachOneDnnMatmulIntegerKernels(table);
  AttachOneDnnQLinearConvKernels(table);
}

std::string OneDnnDescription() { return onednn::Selected() ? onednn::Description() : ""; }

}  // namespace sy::cpu
