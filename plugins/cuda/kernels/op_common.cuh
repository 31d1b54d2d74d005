// Device-side helpers shared by the op families' kernels (reduction, linalg, conv_pool,
// normalization, neural, movement, indexing): element types, loads and stores, grid-stride loops,
// block reductions and dtype dispatch. Included by .cu files only.
//
// Element types: f32 float, f16 __half, bf16 __nv_bfloat16, f64 double, i8 int8_t,
// u8 uint8_t, i32 int32_t, i64 int64_t, bool uint8_t (0/1). Compute types (Num<T>::Acc):
// float for f32 f16 bf16 (f16/bf16 are widened on load and rounded once on store, as
// docs/ops.md allows), double for f64, int64_t for the integers (wrapping on store, like
// the reference kernels). Nothing here uses fast-math intrinsics.
#pragma once

#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>

#include <cstdint>
#include <type_traits>

#include "switchyard/dtype.h"

namespace sy::cuda::kern {

// ---- element types -----------------------------------------------------------------------

template <class T>
struct Num;

template <>
struct Num<float> {
  using Acc = float;
  static constexpr bool kFloat = true;
  __device__ static float Load(const float* p, int64_t i) { return p[i]; }
  __device__ static void Store(float* p, int64_t i, float v) { p[i] = v; }
  __device__ static void StoreD(float* p, int64_t i, double v) { p[i] = __double2float_rn(v); }
};

template <>
struct Num<double> {
  using Acc = double;
  static constexpr bool kFloat = true;
  __device__ static double Load(const double* p, int64_t i) { return p[i]; }
  __device__ static void Store(double* p, int64_t i, double v) { p[i] = v; }
  __device__ static void StoreD(double* p, int64_t i, double v) { p[i] = v; }
};

template <>
struct Num<__half> {
  using Acc = float;
  static constexpr bool kFloat = true;
  __device__ static float Load(const __half* p, int64_t i) { return __half2float(p[i]); }
  __device__ static void Store(__half* p, int64_t i, float v) { p[i] = __float2half_rn(v); }
  // One rounding from double (no double -> float -> half double rounding).
  __device__ static void StoreD(__half* p, int64_t i, double v) { p[i] = __double2half(v); }
};

template <>
struct Num<__nv_bfloat16> {
  using Acc = float;
  static constexpr bool kFloat = true;
  __device__ static float Load(const __nv_bfloat16* p, int64_t i) { return __bfloat162float(p[i]); }
  __device__ static void Store(__nv_bfloat16* p, int64_t i, float v) {
    p[i] = __float2bfloat16_rn(v);
  }
  __device__ static void StoreD(__nv_bfloat16* p, int64_t i, double v) {
    p[i] = __double2bfloat16(v);
  }
};

// Integers: computed in int64_t; stores wrap (two's complement truncation).
template <class I>
struct IntNum {
  using Acc = int64_t;
  static constexpr bool kFloat = false;
  __device__ static int64_t Load(const I* p, int64_t i) { return static_cast<int64_t>(p[i]); }
  __device__ static void Store(I* p, int64_t i, int64_t v) {
    p[i] = static_cast<I>(static_cast<uint64_t>(v));
  }
};
template <>
struct Num<int8_t> : IntNum<int8_t> {};
template <>
struct Num<uint8_t> : IntNum<uint8_t> {};
template <>
struct Num<int32_t> : IntNum<int32_t> {};
template <>
struct Num<int64_t> : IntNum<int64_t> {};

// An unsigned type of `bytes` bytes, for bit-exact movement.
template <int kBytes>
struct Raw;
template <>
struct Raw<1> {
  using T = uint8_t;
};
template <>
struct Raw<2> {
  using T = uint16_t;
};
template <>
struct Raw<4> {
  using T = uint32_t;
};
template <>
struct Raw<8> {
  using T = uint64_t;
};

// ---- NaN-aware helpers -------------------------------------------------------------------

template <class A>
__device__ inline bool IsNan(A v) {
  if constexpr (std::is_floating_point_v<A>) {
    return isnan(v);
  } else {
    return false;
  }
}

// max / min that propagate NaN (like the reference's reduce_max / reduce_min).
template <class A>
__device__ inline A NanMax(A a, A b) {
  if (IsNan(a)) return a;
  if (IsNan(b)) return b;
  return a < b ? b : a;
}
template <class A>
__device__ inline A NanMin(A a, A b) {
  if (IsNan(a)) return a;
  if (IsNan(b)) return b;
  return b < a ? b : a;
}

template <class A>
__device__ inline A Infinity() {
  if constexpr (std::is_same_v<A, double>) {
    return __longlong_as_double(0x7ff0000000000000LL);
  } else {
    return __int_as_float(0x7f800000);
  }
}
template <class A>
__device__ inline A QuietNan() {
  if constexpr (std::is_same_v<A, double>) {
    return __longlong_as_double(0x7ff8000000000000LL);
  } else {
    return __int_as_float(0x7fc00000);
  }
}

// Correctly rounded or few-ulp math in the compute type (no fast-math intrinsics).
__device__ inline float Exp(float v) { return expf(v); }
__device__ inline double Exp(double v) { return exp(v); }
__device__ inline float Log(float v) { return logf(v); }
__device__ inline double Log(double v) { return log(v); }
__device__ inline float Sqrt(float v) { return sqrtf(v); }
__device__ inline double Sqrt(double v) { return sqrt(v); }

// ---- loops and launches ------------------------------------------------------------------

#define SY_GRID_LOOP(i, n)                                                      \
  for (int64_t i = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; \
       i < static_cast<int64_t>(n); i += static_cast<int64_t>(gridDim.x) * blockDim.x)

constexpr int kThreads = 256;

// Blocks for a grid-stride loop over n items (at least 1, at most 2^20: the loop covers
// the rest).
inline unsigned GridFor(int64_t n, int threads = kThreads) {
  int64_t blocks = (n + threads - 1) / threads;
  if (blocks < 1) blocks = 1;
  if (blocks > (int64_t{1} << 20)) blocks = int64_t{1} << 20;
  return static_cast<unsigned>(blocks);
}

// Blocks when each block handles one item (grid x limit 2^31 - 1; callers loop beyond).
inline unsigned GridForItems(int64_t items) {
  if (items < 1) return 1;
  const int64_t cap = 0x7fffffffLL;
  return static_cast<unsigned>(items < cap ? items : cap);
}

// ---- block reductions --------------------------------------------------------------------

template <class A, class Op>
__device__ inline A WarpReduce(A v, Op op) {
  for (int offset = 16; offset > 0; offset /= 2) {
    v = op(v, __shfl_xor_sync(0xffffffffu, v, offset));
  }
  return v;
}

// Reduces v over the whole block (blockDim.x a multiple of 32, at most 1024) and returns
// the result to every thread. `scratch` holds at least 32 A. Every thread must call it.
template <class A, class Op>
__device__ inline A BlockReduce(A v, Op op, A* scratch) {
  const int lane = threadIdx.x & 31;
  const int warp = threadIdx.x >> 5;
  const int warps = (blockDim.x + 31) >> 5;
  v = WarpReduce(v, op);
  __syncthreads();  // scratch may still be read by a previous call
  if (lane == 0) scratch[warp] = v;
  __syncthreads();
  A r = scratch[0];
  for (int w = 1; w < warps; ++w) r = op(r, scratch[w]);
  return r;
}

// v reduced over a team of kTeam threads: 1 (itself), 32 (its warp) or the whole block
// (kTeam == blockDim.x); every thread of the team gets the result. The whole team must
// call it (with kTeam == blockDim.x, the whole block).
template <int kTeam, class A, class Op>
__device__ inline A TeamAllReduce(A v, Op op, A* scratch) {
  if constexpr (kTeam == 1) {
    return v;
  } else if constexpr (kTeam == 32) {
    return WarpReduce(v, op);
  } else {
    return BlockReduce(v, op, scratch);
  }
}

struct AddOp {
  template <class A>
  __device__ A operator()(A a, A b) const {
    return a + b;
  }
};
struct MaxNanOp {
  template <class A>
  __device__ A operator()(A a, A b) const {
    return NanMax(a, b);
  }
};

// Row-major unflattening of a flat index over `rank` dims in `dims` (outermost first).
__device__ inline int64_t StridedOffset(int64_t flat, int rank, const int64_t* dims,
                                        const int64_t* strides) {
  int64_t off = 0;
  for (int d = rank - 1; d >= 0; --d) {
    const int64_t dim = dims[d];
    const int64_t q = flat / dim;
    off += (flat - q * dim) * strides[d];
    flat = q;
  }
  return off;
}

}  // namespace sy::cuda::kern

// ---- dtype dispatch (host side of the .cu files) ----------------------------------------
// `T` names the storage type inside the body; unsupported dtypes return
// cudaErrorInvalidValue from the enclosing function.

#define SY_CASE_TYPE(enumerator, type, ...) \
  case ::sy::DType::enumerator: {           \
    using T = type;                         \
    __VA_ARGS__;                            \
    break;                                  \
  }

#define SY_DISPATCH_FLOAT(dtype, ...)               \
  switch (dtype) {                                  \
    SY_CASE_TYPE(kF32, float, __VA_ARGS__)          \
    SY_CASE_TYPE(kF16, __half, __VA_ARGS__)         \
    SY_CASE_TYPE(kBF16, __nv_bfloat16, __VA_ARGS__) \
    SY_CASE_TYPE(kF64, double, __VA_ARGS__)         \
    default:                                        \
      return cudaErrorInvalidValue;                 \
  }

#define SY_DISPATCH_NUMERIC(dtype, ...)             \
  switch (dtype) {                                  \
    SY_CASE_TYPE(kF32, float, __VA_ARGS__)          \
    SY_CASE_TYPE(kF16, __half, __VA_ARGS__)         \
    SY_CASE_TYPE(kBF16, __nv_bfloat16, __VA_ARGS__) \
    SY_CASE_TYPE(kF64, double, __VA_ARGS__)         \
    SY_CASE_TYPE(kI8, int8_t, __VA_ARGS__)          \
    SY_CASE_TYPE(kU8, uint8_t, __VA_ARGS__)         \
    SY_CASE_TYPE(kI32, int32_t, __VA_ARGS__)        \
    SY_CASE_TYPE(kI64, int64_t, __VA_ARGS__)        \
    default:                                        \
      return cudaErrorInvalidValue;                 \
  }

#define SY_DISPATCH_INT(dtype, ...)          \
  switch (dtype) {                           \
    SY_CASE_TYPE(kI8, int8_t, __VA_ARGS__)   \
    SY_CASE_TYPE(kU8, uint8_t, __VA_ARGS__)  \
    SY_CASE_TYPE(kI32, int32_t, __VA_ARGS__) \
    SY_CASE_TYPE(kI64, int64_t, __VA_ARGS__) \
    default:                                 \
      return cudaErrorInvalidValue;          \
  }

// By element size, for bit-exact movement: `T` is an unsigned type of that size.
#define SY_DISPATCH_RAW(bytes, ...) \
  switch (bytes) {                  \
    case 1: {                       \
      using T = uint8_t;            \
      __VA_ARGS__;                  \
      break;                        \
    }                               \
    case 2: {                       \
      using T = uint16_t;           \
      __VA_ARGS__;                  \
      break;                        \
    }                               \
    case 4: {                       \
      using T = uint32_t;           \
      __VA_ARGS__;                  \
      break;                        \
    }                               \
    case 8: {                       \
      using T = uint64_t;           \
      __VA_ARGS__;                  \
      break;                        \
    }                               \
    default:                        \
      return cudaErrorInvalidValue; \
  }

// The error of the last launch (cudaGetLastError also clears a sticky launch error).
#define SY_LAUNCH_RESULT() cudaGetLastError()
