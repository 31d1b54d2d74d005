// Every op family of the OpenCL plugin. A new family adds its Register* call here (and
// its declaration to cl_op.h); docs/opencl.md, "Adding an op".
#include "cl_op.h"

namespace sy::opencl {

void RegisterMiscOps(ClOpRegistry& registry);
void RegisterIndexingOps(ClOpRegistry& registry);  // ops_indexing.cpp

const ClOpRegistry& ClOpRegistry::Global() {
  static const ClOpRegistry registry = [] {
    ClOpRegistry r;
    RegisterElementwiseOps(r);
    RegisterMovementOps(r);
    RegisterLinalgOps(r);
    RegisterSoftmaxOps(r);
    RegisterNormalizationOps(r);
    RegisterAttentionOps(r);
    RegisterReductionOps(r);
    RegisterConvOps(r);
    RegisterIndexingOps(r);
    RegisterMiscOps(r);
    return r;
  }();
  return registry;
}

}  // namespace sy::opencl
