// Every op family of the OpenCL plugin, under core's family names (OpSchema::family): a
// new family adds its Register* call here, its declaration to cl_op.h and its
// ops_<family>.cpp file (docs/opencl.md, "Adding an op").
#include "cl_op.h"

namespace sy::opencl {

const ClOpRegistry& ClOpRegistry::Global() {
  static const ClOpRegistry registry = [] {
    ClOpRegistry r;
    r.AddFamily("elementwise", RegisterElementwiseOps);
    r.AddFamily("linalg", RegisterLinalgOps);
    r.AddFamily("movement", RegisterMovementOps);
    r.AddFamily("indexing", RegisterIndexingOps);
    r.AddFamily("reduction", RegisterReductionOps);
    r.AddFamily("normalization", RegisterNormalizationOps);
    r.AddFamily("conv_pool", RegisterConvPoolOps);
    r.AddFamily("neural", RegisterNeuralOps);
    r.AddFamily("sampling", RegisterSamplingOps);
    return r;
  }();
  return registry;
}

}  // namespace sy::opencl
