// Comparing a plugin's output with cpu-ref's under an op's Tolerance.
#pragma once

#include <string>

#include "conformance/op_cases.h"
#include "switchyard/tensor.h"

namespace sy::conformance {

// "" when `got` matches `want`; otherwise what differs: the first bad element with both
// values and the distance, how many elements are off, and the error norm.
std::string Compare(const Tensor& got, const Tensor& want, const Tolerance& tolerance);

// Units in the last place between a and b in `dtype` (0 when both are NaN; a large
// number when exactly one is).
double UlpDistance(DType dtype, double a, double b);

}  // namespace sy::conformance
