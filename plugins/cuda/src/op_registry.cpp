// Every op family of the CUDA plugin (cu_op.h declares their Register* functions). A
// family whose ops_<family>.cpp is not in the tree yet gets an empty Register* from
// ops_stub_families.cpp (CMakeLists.txt decides which).
#include "cu_op.h"

namespace sy::cuda {

const CuOpRegistry& CuOpRegistry::Global() {
  static const CuOpRegistry registry = [] {
    CuOpRegistry r;
    RegisterElementwiseOps(r);
    RegisterMovementOps(r);
    RegisterIndexingOps(r);
    RegisterReductionOps(r);
    RegisterLinalgOps(r);
    RegisterConvOps(r);
    RegisterNeuralOps(r);
    return r;
  }();
  return registry;
}

}  // namespace sy::cuda
