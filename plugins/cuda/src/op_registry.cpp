// Every op family of the CUDA plugin, under core's family names (OpSchema::family): a new
// family adds its Register* call here, its declaration to cu_op.h and its
// ops_<family>.cpp file.
#include "cu_op.h"

namespace sy::cuda {

const CuOpRegistry& CuOpRegistry::Global() {
  static const CuOpRegistry registry = [] {
    CuOpRegistry r;
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

}  // namespace sy::cuda
