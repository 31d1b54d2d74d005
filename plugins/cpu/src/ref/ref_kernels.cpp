#include "ref/ref_kernels.h"

namespace sy::cpu {

const KernelTable& RefKernels() {
  static const KernelTable* table = [] {
    auto* t = new KernelTable();  // lives for the process, like the op registry
    AddElementwiseRefKernels(*t);
    AddMovementRefKernels(*t);
    AddReductionRefKernels(*t);
    AddLinalgConvRefKernels(*t);
    AddNeuralRefKernels(*t);
    return t;
  }();
  return *table;
}

}  // namespace sy::cpu
