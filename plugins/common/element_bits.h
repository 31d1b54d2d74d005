// Element values as the bundled GPU plugins store them from the host (pad's fill value,
// range's elements, clip's bounds): rounded or saturated exactly as the CPU reference
// kernels do, so that device results match them bit for bit. Shared by plugins/opencl and
// plugins/cuda.
#pragma once

#include <cstdint>
#include <utility>

#include "switchyard/dtype.h"

namespace sy::plugin {

// double -> float rounding to odd, so that a further rounding to f16 / bf16 is exact (as
// the reference's StoreFloat does).
float DoubleToFloatOdd(double d);
// Truncation toward zero, saturating at the int64 range; NaN is 0.
int64_t SaturatingToInt(double v);
// The bits of one element of a float dtype holding `value` (rounded once, like a cast).
uint64_t FloatBits(DType dtype, double value);
// The bits of one element of an integer dtype (bool: 0/1) holding `value`, wrapped.
uint64_t IntBits(DType dtype, int64_t value);
// A float attribute stored into any dtype like a cast.
uint64_t ValueBits(DType dtype, double value);
// The range of an integer dtype (bool: 0..1).
std::pair<int64_t, int64_t> IntRange(DType dtype);
// `v` (an integer value or +-inf, never NaN) saturated to [lo, hi].
int64_t SaturateToInt(double v, int64_t lo, int64_t hi);

}  // namespace sy::plugin
