#include "ref/ref_kernels.h"

namespace sy::cpu {

const KernelTable& RefKernels() {
  // A static object, not a heap one left to "live for the process": the plugin is
  // unloaded with its host (dlclose runs this destructor), and a leaked table would be
  // lost once per load.
  static const KernelTable table = [] {
    KernelTable t;
    t.AddFamily("elementwise", AddElementwiseRefKernels);
    t.AddFamily("linalg", AddLinalgRefKernels);
    t.AddFamily("movement", AddMovementRefKernels);
    t.AddFamily("indexing", AddIndexingRefKernels);
    t.AddFamily("reduction", AddReductionRefKernels);
    t.AddFamily("normalization", AddNormalizationRefKernels);
    t.AddFamily("conv_pool", AddConvPoolRefKernels);
    t.AddFamily("neural", AddNeuralRefKernels);
    t.AddFamily("fused", AddFusedRefKernels);
    t.AddFamily("selection", AddSelectionRefKernels);
    t.AddFamily("sampling", AddSamplingRefKernels);
    return t;
  }();
  return table;
}

}  // namespace sy::cpu
