#include "fast/fast_kernels.h"

#include "ref/ref_kernels.h"

namespace sy::cpu {

const KernelTable& FastKernels() {
  // A static object (destroyed when the plugin is unloaded), not a leaked heap one.
  static const KernelTable table = [] {
    KernelTable t;
    // Tuned kernels are added first so that Find() prefers them.
    AddElementwiseFastKernels(t);
    AddUnaryFastKernels(t);
    AddReductionFastKernels(t);
    AddNormalizationFastKernels(t);
    AddAttentionFastKernels(t);
    AddMatmulBlasKernels(t);
    AddConvBlasKernels(t);
    AttachOneDnnKernels(t);
    for (const KernelTable::Entry& e : RefKernels().entries()) {
      if (t.Find(e.op) == nullptr) t.Add(e.op, e.fn, e.prepare);
    }
    return t;
  }();
  return table;
}

}  // namespace sy::cpu
