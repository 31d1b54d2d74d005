// Internal to the elementwise reference kernels: the family is split over several files
// (unary maps and cast in elementwise_ref.cpp, broadcasting binary/ternary ops in
// elementwise_binary_ref.cpp); AddElementwiseRefKernels registers them all.
#pragma once

#include "kernel.h"

namespace sy::cpu {

// add sub mul div pow max min mod prelu, comparisons, and or xor, where.
void AddElementwiseBinaryRefKernels(KernelTable& table);

}  // namespace sy::cpu
