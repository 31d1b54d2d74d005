#include "ref/ref_kernels.h"

namespace sy::cpu {

const KernelTable& RefKernels() {
  // A static object, not a heap one left to "live for the process": the plugin is
  // unloaded with its host (dlclose runs this destructor), and a leaked table would be
  // lost once per load.
  static const KernelTable table = [] {
    KernelTable t;
    AddElementwiseRefKernels(t);
    AddMovementRefKernels(t);
    AddReductionRefKernels(t);
    AddLinalgConvRefKernels(t);
    AddNeuralRefKernels(t);
    AddFusedRefKernels(t);
    return t;
  }();
  return table;
}

}  // namespace sy::cpu
