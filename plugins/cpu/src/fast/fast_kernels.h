// The `cpu` device's kernels: tuned implementations (OpenBLAS for matmul and gemm), and
// for every op without one yet, the reference kernel. Each tuned kernel is tested
// against its reference kernel.
#pragma once

#include "kernel.h"

namespace sy::cpu {

const KernelTable& FastKernels();

}  // namespace sy::cpu
