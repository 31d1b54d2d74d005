// Kernels of the elementwise family (src/ops_elementwise.cpp): unary maps, broadcasting
// binary ops, comparisons and logic, where, cast. Plain launch functions on a stream;
// each returns the launch's error. Semantics are the reference kernels'
// (plugins/cpu/src/ref/elementwise_ref.cpp, elementwise_binary_ref.cpp; docs/ops.md):
// f32, f16 and bf16 compute in float and f64 in double, rounded once on store; integers
// compute in 64 bits and wrap on store; bool loads as 0/1.
//
// One kernel per storage type, with the op a run-time argument (a warp-uniform switch):
// a few dozen instantiations instead of one per (op, dtype).
#pragma once

#include <cuda_runtime.h>

#include <cstdint>

#include "switchyard/dtype.h"

namespace sy::cuda::kern {

// clang-format off
enum class UnaryOp : int {
  kNeg, kAbs, kSign, kExp, kLog, kSqrt, kReciprocal, kRsqrt, kSin, kCos, kTan, kAsin,
  kAcos, kAtan, kAsinh, kAcosh, kAtanh, kErf, kTanh, kSigmoid, kRelu, kSoftplus, kSilu,
  kGelu, kGeluTanh, kLeakyRelu, kElu, kHardSigmoid, kHardSwish, kSoftsign, kMish, kSelu,
  kFloor, kCeil, kRound, kClip, kNot,
};
// clang-format on

// The op's attributes. Floats: p0, p1 (leaky_relu and elu: alpha in p0; hard_sigmoid:
// alpha, beta; selu: gamma, gamma * alpha; clip: min, max, +-inf when absent), converted
// to the compute type. Integers: i0, i1 (clip's bounds, already ceil/floor-ed and
// saturated to the dtype by the host).
struct UnaryParams {
  double p0 = 0, p1 = 0;
  int64_t i0 = 0, i1 = 0;
};

// y[i] = op(x[i]) for i < n; x and y of `dtype` (not: bool).
cudaError_t LaunchUnary(UnaryOp op, DType dtype, const void* x, void* y, int64_t n,
                        const UnaryParams& params, cudaStream_t stream);

// clang-format off
enum class BinaryOp : int {
  // arithmetic: y has the inputs' dtype
  kAdd, kSub, kMul, kDiv, kPow, kMax, kMin, kMod, kFmod, kPrelu,
  // comparisons and logic: y is bool
  kEqual, kLess, kLessEqual, kGreater, kGreaterEqual, kAnd, kOr, kXor,
};
// clang-format on

// NumPy broadcasting, as CollapseBroadcast (src/cu_op.h) gives it: the output's dims and
// each input's element strides (0 along broadcast dims). Up to kMaxRank dims travel in
// the kernel's parameters; a longer collapsed shape reads `meta` (device memory laid out
// as CollapseBroadcast's meta: dims[rank], then each input's strides[rank]).
struct Broadcast {
  static constexpr int kMaxRank = 8;
  int rank = 1;
  int64_t dims[kMaxRank] = {};
  int64_t strides[3][kMaxRank] = {};
  const int64_t* meta = nullptr;  // rank > kMaxRank only
};

// y[i] = op(a[.], b[.]) for i < n; a and b of `dtype`. For integer div and mod,
// `divisor_flag` (device int, may be null) is set to 1 when an element of b is 0 (that
// output element is 0). kPrelu: a is x, b the slope.
cudaError_t LaunchBinary(BinaryOp op, DType dtype, const void* a, const void* b, void* y, int64_t n,
                         const Broadcast& shape, int* divisor_flag, cudaStream_t stream);

// y[i] = cond[.] ? a[.] : b[.], bit for bit, elements of `element_bytes` (1, 2, 4, 8).
cudaError_t LaunchWhere(int element_bytes, const void* cond, const void* a, const void* b, void* y,
                        int64_t n, const Broadcast& shape, cudaStream_t stream);

// y[i] = cast(x[i]) from `from` to `to`: float -> integer truncates toward zero and
// saturates, NaN -> 0; anything -> bool is x != 0; integers wrap; every cast to a float
// dtype rounds once (f64 and the integers reach f16 and bf16 through a float rounded to
// odd).
cudaError_t LaunchCast(DType from, DType to, const void* x, void* y, int64_t n,
                       cudaStream_t stream);

}  // namespace sy::cuda::kern
