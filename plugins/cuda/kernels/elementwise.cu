// The elementwise family's kernels (elementwise.h). Compiled with --fmad=false
// (CMakeLists.txt): no contraction of a * b + c into fused multiply-adds, so results are
// those of the separate operations, as in the reference kernels; where a fused form is
// wanted (hard_sigmoid in f32) it is written as fmaf.
#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <cstdint>
#include <type_traits>

#include "elementwise.h"

namespace sy::cuda::kern {
namespace {

constexpr int kBlock = 256;

unsigned Blocks(int64_t n) {
  int64_t blocks = (n + kBlock - 1) / kBlock;
  if (blocks > (int64_t{1} << 20)) blocks = int64_t{1} << 20;  // grid-stride loops do the rest
  return static_cast<unsigned>(blocks < 1 ? 1 : blocks);
}

#define SY_EW_LOOP(i, n)                                                                 \
  for (int64_t i = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < (n); \
       i += static_cast<int64_t>(gridDim.x) * blockDim.x)

// ---- element types: storage, compute type, load and store --------------------------------

struct Bool8 {};  // bool: one byte, 0 or 1

template <class S>
struct Io;
template <>
struct Io<float> {
  using St = float;
  using C = float;
  __device__ static C Load(const St* p, int64_t i) { return p[i]; }
  __device__ static void Store(St* p, int64_t i, C v) { p[i] = v; }
};
template <>
struct Io<double> {
  using St = double;
  using C = double;
  __device__ static C Load(const St* p, int64_t i) { return p[i]; }
  __device__ static void Store(St* p, int64_t i, C v) { p[i] = v; }
};
template <>
struct Io<__half> {
  using St = __half;
  using C = float;
  __device__ static C Load(const St* p, int64_t i) { return __half2float(p[i]); }
  __device__ static void Store(St* p, int64_t i, C v) { p[i] = __float2half_rn(v); }
};
template <>
struct Io<__nv_bfloat16> {
  using St = __nv_bfloat16;
  using C = float;
  __device__ static C Load(const St* p, int64_t i) { return __bfloat162float(p[i]); }
  __device__ static void Store(St* p, int64_t i, C v) { p[i] = __float2bfloat16_rn(v); }
};
template <class I>
struct IoInt {
  using St = I;
  using C = int64_t;
  __device__ static C Load(const St* p, int64_t i) { return static_cast<int64_t>(p[i]); }
  // Wraps like the reference (two's complement truncation).
  __device__ static void Store(St* p, int64_t i, C v) {
    p[i] = static_cast<I>(static_cast<uint64_t>(v));
  }
};
template <>
struct Io<int8_t> : IoInt<int8_t> {};
template <>
struct Io<uint8_t> : IoInt<uint8_t> {};
template <>
struct Io<int32_t> : IoInt<int32_t> {};
template <>
struct Io<int64_t> : IoInt<int64_t> {};
template <>
struct Io<Bool8> {
  using St = uint8_t;
  using C = int64_t;
  __device__ static C Load(const St* p, int64_t i) { return p[i] != 0 ? 1 : 0; }
  __device__ static void Store(St* p, int64_t i, C v) { p[i] = v != 0 ? 1 : 0; }
};

// Runs BODY with `S` naming the storage tag of `dtype`.
#define SY_EW_CASE(enumerator, type, ...) \
  case DType::enumerator: {               \
    using S = type;                       \
    __VA_ARGS__;                          \
  }
#define SY_EW_DISPATCH(dtype, ...)                \
  switch (dtype) {                                \
    SY_EW_CASE(kF32, float, __VA_ARGS__)          \
    SY_EW_CASE(kF16, __half, __VA_ARGS__)         \
    SY_EW_CASE(kBF16, __nv_bfloat16, __VA_ARGS__) \
    SY_EW_CASE(kF64, double, __VA_ARGS__)         \
    SY_EW_CASE(kI8, int8_t, __VA_ARGS__)          \
    SY_EW_CASE(kU8, uint8_t, __VA_ARGS__)         \
    SY_EW_CASE(kI32, int32_t, __VA_ARGS__)        \
    SY_EW_CASE(kI64, int64_t, __VA_ARGS__)        \
    SY_EW_CASE(kBool, Bool8, __VA_ARGS__)         \
    default:                                      \
      return cudaErrorInvalidValue;               \
  }

// ---- math in the compute type ------------------------------------------------------------

#define SY_EW_MATH1(Name, fn)                 \
  template <class T>                          \
  __device__ __forceinline__ T Name(T x) {    \
    if constexpr (std::is_same_v<T, float>) { \
      return fn##f(x);                        \
    } else {                                  \
      return fn(x);                           \
    }                                         \
  }
SY_EW_MATH1(Exp, exp)
SY_EW_MATH1(Expm1, expm1)
SY_EW_MATH1(Log, log)
SY_EW_MATH1(Log1p, log1p)
SY_EW_MATH1(Sqrt, sqrt)
SY_EW_MATH1(Sin, sin)
SY_EW_MATH1(Cos, cos)
SY_EW_MATH1(Tan, tan)
SY_EW_MATH1(Asin, asin)
SY_EW_MATH1(Acos, acos)
SY_EW_MATH1(Atan, atan)
SY_EW_MATH1(Asinh, asinh)
SY_EW_MATH1(Acosh, acosh)
SY_EW_MATH1(Atanh, atanh)
SY_EW_MATH1(Erf, erf)
SY_EW_MATH1(Erfc, erfc)
SY_EW_MATH1(Tanh, tanh)
SY_EW_MATH1(Floor, floor)
SY_EW_MATH1(Ceil, ceil)
SY_EW_MATH1(Rint, rint)
SY_EW_MATH1(Fabs, fabs)
#undef SY_EW_MATH1

#define SY_EW_MATH2(Name, fn)                   \
  template <class T>                            \
  __device__ __forceinline__ T Name(T x, T y) { \
    if constexpr (std::is_same_v<T, float>) {   \
      return fn##f(x, y);                       \
    } else {                                    \
      return fn(x, y);                          \
    }                                           \
  }
SY_EW_MATH2(Pow, pow)
SY_EW_MATH2(Fmod, fmod)
SY_EW_MATH2(Copysign, copysign)
#undef SY_EW_MATH2

template <class T>
__device__ __forceinline__ T Sigmoid(T x) {
  if (x >= T(0)) return T(1) / (T(1) + Exp(-x));
  const T e = Exp(x);  // NaN lands here and stays NaN
  return e / (T(1) + e);
}

// log(1 + e^x) without overflow.
template <class T>
__device__ __forceinline__ T Softplus(T x) {
  return x > T(0) ? x + Log1p(Exp(-x)) : Log1p(Exp(x));
}

// max(0, min(1, alpha x + beta)), NaN propagating.
template <class T>
__device__ __forceinline__ T HardSigmoid(T x, T alpha, T beta) {
  T y;
  if constexpr (std::is_same_v<T, float>) {
    // Fused: alpha and beta carry their float rounding errors, which nearly cancel where
    // alpha x + beta crosses 0; a rounded product would not (as the OpenCL plugin).
    y = fmaf(alpha, x, beta);
  } else {
    y = alpha * x + beta;  // as the reference computes it
  }
  if (isnan(y)) return y;
  return y < T(0) ? T(0) : (y > T(1) ? T(1) : y);
}

template <class T>
__device__ T UnaryFloat(UnaryOp op, T x, T p0, T p1) {
  switch (op) {
    case UnaryOp::kNeg:
      return -x;
    case UnaryOp::kAbs:
      return Fabs(x);
    case UnaryOp::kSign:
      return x > T(0) ? T(1) : (x < T(0) ? T(-1) : x);  // +-0 and NaN stay
    case UnaryOp::kExp:
      return Exp(x);
    case UnaryOp::kLog:
      return Log(x);
    case UnaryOp::kSqrt:
      return Sqrt(x);
    case UnaryOp::kReciprocal:
      return T(1) / x;
    case UnaryOp::kRsqrt:
      return T(1) / Sqrt(x);
    case UnaryOp::kSin:
      return Sin(x);
    case UnaryOp::kCos:
      return Cos(x);
    case UnaryOp::kTan:
      return Tan(x);
    // NaN outside the domain (|x| > 1, acosh's x < 1), as the reference kernels.
    case UnaryOp::kAsin:
      return Asin(x);
    case UnaryOp::kAcos:
      return Acos(x);
    case UnaryOp::kAtan:
      return Atan(x);
    case UnaryOp::kAsinh:
      return Asinh(x);
    case UnaryOp::kAcosh:
      return Acosh(x);
    case UnaryOp::kAtanh:
      return Atanh(x);
    case UnaryOp::kErf:
      return Erf(x);
    case UnaryOp::kTanh:
      return Tanh(x);
    case UnaryOp::kSigmoid:
      return Sigmoid(x);
    case UnaryOp::kRelu:
      return x < T(0) ? T(0) : x;
    case UnaryOp::kSoftplus:
      return Softplus(x);
    // silu, gelu, mish, hard_swish: their limits at +-inf (x and -0), not x * g(x)'s NaN.
    case UnaryOp::kSilu:
      if (isinf(x)) return x > T(0) ? x : -T(0);
      return x * Sigmoid(x);
    case UnaryOp::kGelu:
      if (isinf(x)) return x > T(0) ? x : -T(0);
      return T(0.5) * x * Erfc(-x * T(0.70710678118654752440));
    case UnaryOp::kGeluTanh: {
      if (isinf(x)) return x > T(0) ? x : -T(0);
      const T k = T(0.79788456080286535588);  // sqrt(2 / pi)
      const T z = k * (x + T(0.044715) * x * x * x);
      return x * Sigmoid(T(2) * z);  // 0.5 (1 + tanh z) = sigmoid(2 z)
    }
    case UnaryOp::kLeakyRelu:
      return x < T(0) ? p0 * x : x;
    case UnaryOp::kElu:
      return x < T(0) ? p0 * Expm1(x) : x;
    case UnaryOp::kHardSigmoid:
      return HardSigmoid(x, p0, p1);
    case UnaryOp::kHardSwish:
      if (isinf(x)) return x > T(0) ? x : -T(0);
      return x * HardSigmoid(x, T(1) / T(6), T(0.5));
    case UnaryOp::kSoftsign:
      if (isinf(x)) return Copysign(T(1), x);
      return x / (T(1) + Fabs(x));
    case UnaryOp::kMish:
      if (isinf(x)) return x > T(0) ? x : -T(0);
      return x * Tanh(Softplus(x));
    case UnaryOp::kSelu:  // p0 = gamma, p1 = gamma * alpha (multiplied in double)
      return x > T(0) ? p0 * x : p1 * Expm1(x);
    case UnaryOp::kFloor:
      return Floor(x);
    case UnaryOp::kCeil:
      return Ceil(x);
    case UnaryOp::kRound:
      return Rint(x);     // half to even; the sign of a zero result follows x
    case UnaryOp::kClip:  // p0 = min, p1 = max (+-inf when absent); NaN passes
      if (x < p0) x = p0;
      if (x > p1) x = p1;
      return x;
    default:
      return x;
  }
}

__device__ __forceinline__ int64_t NegInt(int64_t x) {
  return static_cast<int64_t>(uint64_t{0} - static_cast<uint64_t>(x));
}

// Integers and bool, in 64 bits; lo and hi: clip's bounds.
__device__ int64_t UnaryInt(UnaryOp op, int64_t x, int64_t lo, int64_t hi) {
  switch (op) {
    case UnaryOp::kNeg:
      return NegInt(x);
    case UnaryOp::kAbs:
      return x < 0 ? NegInt(x) : x;  // INT64_MIN wraps to itself
    case UnaryOp::kSign:
      return x > 0 ? 1 : (x < 0 ? -1 : 0);
    case UnaryOp::kClip:
      return x < lo ? lo : (x > hi ? hi : x);
    case UnaryOp::kNot:
      return x == 0 ? 1 : 0;
    default:
      return x;
  }
}

template <class S>
__global__ void UnaryKernel(UnaryOp op, const typename Io<S>::St* x, typename Io<S>::St* y,
                            int64_t n, UnaryParams p) {
  using C = typename Io<S>::C;
  if constexpr (std::is_floating_point_v<C>) {
    const C p0 = static_cast<C>(p.p0), p1 = static_cast<C>(p.p1);
    SY_EW_LOOP(i, n) { Io<S>::Store(y, i, UnaryFloat<C>(op, Io<S>::Load(x, i), p0, p1)); }
  } else {
    SY_EW_LOOP(i, n) { Io<S>::Store(y, i, UnaryInt(op, Io<S>::Load(x, i), p.i0, p.i1)); }
  }
}

// ---- broadcasting ------------------------------------------------------------------------

// The element offsets in each of K inputs of output element i. `narrow`: i and every dim
// fit in 32 bits (cheaper division).
template <int K>
__device__ __forceinline__ void Offsets(int64_t i, const Broadcast& s, bool narrow,
                                        int64_t (&off)[K]) {
  if (s.rank == 1) {
#pragma unroll
    for (int j = 0; j < K; ++j) off[j] = i * s.strides[j][0];
    return;
  }
#pragma unroll
  for (int j = 0; j < K; ++j) off[j] = 0;
  if (s.meta != nullptr) {
    const int rank = s.rank;
    int64_t r = i;
    for (int d = rank - 1; d > 0; --d) {
      const int64_t dim = s.meta[d];
      const int64_t q = r / dim;
      const int64_t k = r - q * dim;
      r = q;
#pragma unroll
      for (int j = 0; j < K; ++j) off[j] += k * s.meta[(j + 1) * rank + d];
    }
#pragma unroll
    for (int j = 0; j < K; ++j) off[j] += r * s.meta[(j + 1) * rank];
    return;
  }
  if (narrow) {
    uint32_t r = static_cast<uint32_t>(i);
    for (int d = s.rank - 1; d > 0; --d) {
      const uint32_t dim = static_cast<uint32_t>(s.dims[d]);
      const uint32_t q = r / dim;
      const uint32_t k = r - q * dim;
      r = q;
#pragma unroll
      for (int j = 0; j < K; ++j) off[j] += static_cast<int64_t>(k) * s.strides[j][d];
    }
#pragma unroll
    for (int j = 0; j < K; ++j) off[j] += static_cast<int64_t>(r) * s.strides[j][0];
    return;
  }
  int64_t r = i;
  for (int d = s.rank - 1; d > 0; --d) {
    const int64_t dim = s.dims[d];
    const int64_t q = r / dim;
    const int64_t k = r - q * dim;
    r = q;
#pragma unroll
    for (int j = 0; j < K; ++j) off[j] += k * s.strides[j][d];
  }
#pragma unroll
  for (int j = 0; j < K; ++j) off[j] += r * s.strides[j][0];
}

// ---- binary ops ----------------------------------------------------------------------------

template <class T>
__device__ T ArithFloat(BinaryOp op, T a, T b) {
  switch (op) {
    case BinaryOp::kAdd:
      return a + b;
    case BinaryOp::kSub:
      return a - b;
    case BinaryOp::kMul:
      return a * b;
    case BinaryOp::kDiv:
      return a / b;
    case BinaryOp::kPow:
      return Pow(a, b);
    case BinaryOp::kMax:  // NaN propagates
      if (isnan(a) || isnan(b)) return isnan(a) ? a : b;
      return a < b ? b : a;
    case BinaryOp::kMin:
      if (isnan(a) || isnan(b)) return isnan(a) ? a : b;
      return b < a ? b : a;
    case BinaryOp::kFmod:  // C's fmod: the sign of the dividend
      return Fmod(a, b);
    case BinaryOp::kMod: {  // the sign of the divisor (Python's %)
      T r = Fmod(a, b);
      if (r == T(0)) return Copysign(T(0), b);
      if ((r < T(0)) != (b < T(0))) r += b;  // NaN stays NaN
      return r;
    }
    case BinaryOp::kPrelu:  // a: x, b: slope
      return a < T(0) ? b * a : a;
    default:
      return a;
  }
}

// b != 0 for div, mod and fmod (the kernel checks first).
__device__ int64_t ArithInt(BinaryOp op, int64_t a, int64_t b) {
  const uint64_t ua = static_cast<uint64_t>(a), ub = static_cast<uint64_t>(b);
  switch (op) {
    case BinaryOp::kAdd:
      return static_cast<int64_t>(ua + ub);
    case BinaryOp::kSub:
      return static_cast<int64_t>(ua - ub);
    case BinaryOp::kMul:
      return static_cast<int64_t>(ua * ub);
    case BinaryOp::kDiv:  // truncates toward zero; INT64_MIN / -1 wraps
      return b == -1 ? NegInt(a) : a / b;
    case BinaryOp::kMax:
      return a < b ? b : a;
    case BinaryOp::kMin:
      return b < a ? b : a;
    case BinaryOp::kFmod:
      return b == -1 ? 0 : a % b;
    case BinaryOp::kMod: {
      if (b == -1) return 0;
      int64_t r = a % b;
      if (r != 0 && ((r < 0) != (b < 0))) r += b;  // opposite signs: cannot overflow
      return r;
    }
    default:
      return 0;
  }
}

template <class S>
__global__ void ArithKernel(BinaryOp op, const typename Io<S>::St* a, const typename Io<S>::St* b,
                            typename Io<S>::St* y, int64_t n, Broadcast s, bool narrow,
                            int* divisor_flag) {
  using C = typename Io<S>::C;
  SY_EW_LOOP(i, n) {
    int64_t off[2];
    Offsets<2>(i, s, narrow, off);
    const C va = Io<S>::Load(a, off[0]);
    const C vb = Io<S>::Load(b, off[1]);
    if constexpr (std::is_floating_point_v<C>) {
      Io<S>::Store(y, i, ArithFloat<C>(op, va, vb));
    } else {
      if (vb == 0 && (op == BinaryOp::kDiv || op == BinaryOp::kMod || op == BinaryOp::kFmod)) {
        if (divisor_flag != nullptr) *divisor_flag = 1;
        Io<S>::Store(y, i, 0);
        continue;
      }
      Io<S>::Store(y, i, ArithInt(op, va, vb));
    }
  }
}

template <class C>
__device__ bool CompareOp(BinaryOp op, C a, C b) {
  switch (op) {
    case BinaryOp::kEqual:
      return a == b;
    case BinaryOp::kLess:
      return a < b;
    case BinaryOp::kLessEqual:
      return a <= b;
    case BinaryOp::kGreater:
      return a > b;
    case BinaryOp::kGreaterEqual:
      return a >= b;
    case BinaryOp::kAnd:
      return a != C(0) && b != C(0);
    case BinaryOp::kOr:
      return a != C(0) || b != C(0);
    case BinaryOp::kXor:
      return (a != C(0)) != (b != C(0));
    default:
      return false;
  }
}

template <class S>
__global__ void CompareKernel(BinaryOp op, const typename Io<S>::St* a, const typename Io<S>::St* b,
                              uint8_t* y, int64_t n, Broadcast s, bool narrow) {
  using C = typename Io<S>::C;
  SY_EW_LOOP(i, n) {
    int64_t off[2];
    Offsets<2>(i, s, narrow, off);
    y[i] = CompareOp<C>(op, Io<S>::Load(a, off[0]), Io<S>::Load(b, off[1])) ? 1 : 0;
  }
}

template <class R>
__global__ void WhereKernel(const uint8_t* c, const R* a, const R* b, R* y, int64_t n, Broadcast s,
                            bool narrow) {
  SY_EW_LOOP(i, n) {
    int64_t off[3];
    Offsets<3>(i, s, narrow, off);
    y[i] = c[off[0]] != 0 ? a[off[1]] : b[off[2]];
  }
}

bool Narrow(int64_t n) { return n <= int64_t{0xffffffff}; }

// ---- cast ----------------------------------------------------------------------------------

// Round-to-odd narrowing of a double: the float next to d toward zero, its lowest bit set
// when d is not exactly a float. Rounding that float to nearest even at f16 or bf16
// precision (at least 2 bits shorter) equals rounding d directly.
__device__ float DoubleToFloatOdd(double d) {
  if (isnan(d)) return __double2float_rn(d);
  const float f = __double2float_rz(d);
  if (static_cast<double>(f) == d) return f;
  return __int_as_float(__float_as_int(f) | 1);
}

// The same for an int64.
__device__ float Int64ToFloatOdd(int64_t v) {
  const float f = __ll2float_rz(v);
  if (static_cast<long long>(f) == v) return f;  // |f| < 2^63: exact conversion back
  return __int_as_float(__float_as_int(f) | 1);
}

// Float -> integer: truncate toward zero, saturate to [lo, hi], NaN -> 0.
__device__ int64_t FloatToInt(double d, int64_t lo, int64_t hi) {
  if (isnan(d)) return 0;
  const double t = trunc(d);
  if (t <= static_cast<double>(lo)) return lo;
  if (t >= static_cast<double>(hi)) return hi;  // for i64, hi converts to 2^63
  return static_cast<int64_t>(t);
}

__device__ void StoreFromDouble(DType to, void* y, int64_t i, double d) {
  switch (to) {
    case DType::kF32:
      static_cast<float*>(y)[i] = __double2float_rn(d);
      return;
    case DType::kF64:
      static_cast<double*>(y)[i] = d;
      return;
    case DType::kF16:
      static_cast<__half*>(y)[i] = __float2half_rn(DoubleToFloatOdd(d));
      return;
    case DType::kBF16:
      static_cast<__nv_bfloat16*>(y)[i] = __float2bfloat16_rn(DoubleToFloatOdd(d));
      return;
    case DType::kI8:
      static_cast<int8_t*>(y)[i] = static_cast<int8_t>(FloatToInt(d, -128, 127));
      return;
    case DType::kU8:
      static_cast<uint8_t*>(y)[i] = static_cast<uint8_t>(FloatToInt(d, 0, 255));
      return;
    case DType::kI32:
      static_cast<int32_t*>(y)[i] =
          static_cast<int32_t>(FloatToInt(d, -2147483648LL, 2147483647LL));
      return;
    case DType::kI64:
      static_cast<int64_t*>(y)[i] =
          FloatToInt(d, static_cast<int64_t>(0x8000000000000000ULL), 0x7fffffffffffffffLL);
      return;
    case DType::kBool:
      static_cast<uint8_t*>(y)[i] = d != 0.0 ? 1 : 0;  // NaN != 0
      return;
  }
}

__device__ void StoreFromInt(DType to, void* y, int64_t i, int64_t v) {
  const uint64_t u = static_cast<uint64_t>(v);
  switch (to) {
    case DType::kF32:
      static_cast<float*>(y)[i] = __ll2float_rn(v);
      return;
    case DType::kF64:
      static_cast<double*>(y)[i] = __ll2double_rn(v);
      return;
    case DType::kF16:
      static_cast<__half*>(y)[i] = __float2half_rn(Int64ToFloatOdd(v));
      return;
    case DType::kBF16:
      static_cast<__nv_bfloat16*>(y)[i] = __float2bfloat16_rn(Int64ToFloatOdd(v));
      return;
    case DType::kI8:
      static_cast<int8_t*>(y)[i] = static_cast<int8_t>(u);
      return;
    case DType::kU8:
      static_cast<uint8_t*>(y)[i] = static_cast<uint8_t>(u);
      return;
    case DType::kI32:
      static_cast<int32_t*>(y)[i] = static_cast<int32_t>(u);
      return;
    case DType::kI64:
      static_cast<int64_t*>(y)[i] = v;
      return;
    case DType::kBool:
      static_cast<uint8_t*>(y)[i] = v != 0 ? 1 : 0;
      return;
  }
}

template <class S>
__global__ void CastKernel(DType to, const typename Io<S>::St* x, void* y, int64_t n) {
  using C = typename Io<S>::C;
  SY_EW_LOOP(i, n) {
    const C v = Io<S>::Load(x, i);
    if constexpr (std::is_floating_point_v<C>) {
      StoreFromDouble(to, y, i, static_cast<double>(v));  // exact widening
    } else {
      StoreFromInt(to, y, i, v);
    }
  }
}

template <class S>
cudaError_t LaunchArith(BinaryOp op, const void* a, const void* b, void* y, int64_t n,
                        const Broadcast& shape, int* divisor_flag, cudaStream_t stream) {
  if constexpr (std::is_same_v<S, Bool8>) {
    return cudaErrorInvalidValue;  // no arithmetic on bool in the catalogue
  } else {
    using St = typename Io<S>::St;
    ArithKernel<S><<<Blocks(n), kBlock, 0, stream>>>(op, static_cast<const St*>(a),
                                                     static_cast<const St*>(b), static_cast<St*>(y),
                                                     n, shape, Narrow(n), divisor_flag);
    return cudaGetLastError();
  }
}

}  // namespace

// ---- launchers -----------------------------------------------------------------------------

cudaError_t LaunchUnary(UnaryOp op, DType dtype, const void* x, void* y, int64_t n,
                        const UnaryParams& params, cudaStream_t stream) {
  if (n <= 0) return cudaSuccess;
  SY_EW_DISPATCH(dtype, {
    using St = typename Io<S>::St;
    UnaryKernel<S><<<Blocks(n), kBlock, 0, stream>>>(op, static_cast<const St*>(x),
                                                     static_cast<St*>(y), n, params);
    return cudaGetLastError();
  })
}

cudaError_t LaunchBinary(BinaryOp op, DType dtype, const void* a, const void* b, void* y, int64_t n,
                         const Broadcast& shape, int* divisor_flag, cudaStream_t stream) {
  if (n <= 0) return cudaSuccess;
  const bool compare = op >= BinaryOp::kEqual;
  SY_EW_DISPATCH(dtype, {
    using St = typename Io<S>::St;
    if (compare) {
      CompareKernel<S><<<Blocks(n), kBlock, 0, stream>>>(
          op, static_cast<const St*>(a), static_cast<const St*>(b), static_cast<uint8_t*>(y), n,
          shape, Narrow(n));
    } else {
      return LaunchArith<S>(op, a, b, y, n, shape, divisor_flag, stream);
    }
    return cudaGetLastError();
  })
}

cudaError_t LaunchWhere(int element_bytes, const void* cond, const void* a, const void* b, void* y,
                        int64_t n, const Broadcast& shape, cudaStream_t stream) {
  if (n <= 0) return cudaSuccess;
  const auto* c = static_cast<const uint8_t*>(cond);
  switch (element_bytes) {
#define SY_EW_WHERE(bytes, R)                                                                      \
  case bytes:                                                                                      \
    WhereKernel<R><<<Blocks(n), kBlock, 0, stream>>>(c, static_cast<const R*>(a),                  \
                                                     static_cast<const R*>(b), static_cast<R*>(y), \
                                                     n, shape, Narrow(n));                         \
    return cudaGetLastError();
    SY_EW_WHERE(1, uint8_t)
    SY_EW_WHERE(2, uint16_t)
    SY_EW_WHERE(4, uint32_t)
    SY_EW_WHERE(8, uint64_t)
#undef SY_EW_WHERE
    default:
      return cudaErrorInvalidValue;
  }
}

cudaError_t LaunchCast(DType from, DType to, const void* x, void* y, int64_t n,
                       cudaStream_t stream) {
  if (n <= 0) return cudaSuccess;
  SY_EW_DISPATCH(from, {
    using St = typename Io<S>::St;
    CastKernel<S><<<Blocks(n), kBlock, 0, stream>>>(to, static_cast<const St*>(x), y, n);
    return cudaGetLastError();
  })
}

}  // namespace sy::cuda::kern
