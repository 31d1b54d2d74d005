#include "indexing.h"

#include "op_common.cuh"

namespace sy::cuda::kern {
namespace {

// ---- gather -------------------------------------------------------------------------------

// Threads cover max(n, J): thread i < J checks index i (even when y is empty, like the
// reference), thread i < n copies one element (0 where its index is out of range).
template <class R, class IT>
__global__ void GatherKernel(const R* __restrict__ x, const IT* __restrict__ idx, R* __restrict__ y,
                             int64_t n, int64_t J, int64_t inner, int64_t D, int* err,
                             uint32_t slot) {
  const int64_t total = n > J ? n : J;
  SY_GRID_LOOP(i, total) {
    if (i < J) {
      const int64_t v = static_cast<int64_t>(idx[i]);
      if (v < -D || v >= D) err[slot] = 1;
    }
    if (i >= n) continue;
    const int64_t r = i % inner;
    const int64_t oj = i / inner;
    const int64_t j = oj % J;
    const int64_t o = oj / J;
    int64_t v = static_cast<int64_t>(idx[j]);
    if (v < 0) v += D;
    y[i] = (v < 0 || v >= D) ? R(0) : x[(o * D + v) * inner + r];
  }
}

template <class R, class IT>
__global__ void GatherElementsKernel(const R* __restrict__ x, const IT* __restrict__ idx,
                                     R* __restrict__ y, int64_t n, int rank,
                                     const int64_t* __restrict__ meta, int axis, int64_t D,
                                     int* err, uint32_t slot) {
  SY_GRID_LOOP(i, n) {
    int64_t v = static_cast<int64_t>(idx[i]);
    if (v < -D || v >= D) {
      err[slot] = 1;
      y[i] = R(0);
      continue;
    }
    if (v < 0) v += D;
    int64_t r = i;
    int64_t off = 0;
    for (int d = rank - 1; d >= 0; --d) {
      const int64_t dim = meta[d];
      const int64_t q = r / dim;
      const int64_t c = d == axis ? v : r - q * dim;
      r = q;
      off += c * meta[rank + d];
    }
    y[i] = x[off];
  }
}

// ---- scatter values -----------------------------------------------------------------------

struct BoolTag {};

// How a scatter reduction loads, accumulates and stores an element of T: floats in
// double, rounded once (the reference); integers in int64, wrapping on store.
template <class T>
struct ScatterValue {
  using St = T;
  static constexpr bool kIsFloat = Num<T>::kFloat;
  using Acc = std::conditional_t<kIsFloat, double, int64_t>;
  __device__ static Acc Load(const T* p, int64_t i) {
    if constexpr (kIsFloat) {
      return static_cast<double>(Num<T>::Load(p, i));
    } else {
      return Num<T>::Load(p, i);
    }
  }
  __device__ static void Store(T* p, int64_t i, Acc v) {
    if constexpr (kIsFloat) {
      Num<T>::StoreD(p, i, v);
    } else {
      Num<T>::Store(p, i, v);
    }
  }
};
// bool: 0/1; add and max act as or, mul and min as and.
template <>
struct ScatterValue<BoolTag> {
  using St = uint8_t;
  using Acc = int64_t;
  static constexpr bool kIsFloat = false;
  __device__ static int64_t Load(const uint8_t* p, int64_t i) { return p[i] != 0 ? 1 : 0; }
  __device__ static void Store(uint8_t* p, int64_t i, int64_t v) { p[i] = v != 0 ? 1 : 0; }
};

template <int kReduce, bool kIsFloat, class A>
__device__ inline A ReduceFn(A a, A b) {
  if constexpr (kReduce == 1) {
    if constexpr (kIsFloat) {
      return a + b;
    } else {
      return static_cast<A>(static_cast<uint64_t>(a) + static_cast<uint64_t>(b));
    }
  } else if constexpr (kReduce == 2) {
    if constexpr (kIsFloat) {
      return a * b;
    } else {
      return static_cast<A>(static_cast<uint64_t>(a) * static_cast<uint64_t>(b));
    }
  } else if constexpr (kReduce == 3) {
    if constexpr (kIsFloat) {
      if (isnan(a) || isnan(b)) return QuietNan<A>();
    }
    return a < b ? b : a;
  } else {
    if constexpr (kIsFloat) {
      if (isnan(a) || isnan(b)) return QuietNan<A>();
    }
    return b < a ? b : a;
  }
}

// ---- scatter_elements ---------------------------------------------------------------------

// Threads cover max(n, J): thread i < J checks index i; thread i < n computes y[i] from
// x[i] and, in row-major order of the indices, every update landing on it (only indices
// sharing i's coordinates off `axis` can).
template <class V, class IT, int kReduce>
__global__ void ScatterElementsKernel(const typename V::St* __restrict__ x,
                                      const IT* __restrict__ idx,
                                      const typename V::St* __restrict__ u,
                                      typename V::St* __restrict__ y, int64_t n, int64_t J,
                                      int rank, const int64_t* __restrict__ meta, int axis,
                                      int* err, uint32_t slot) {
  const int64_t D = meta[axis];
  const int64_t total = n > J ? n : J;
  SY_GRID_LOOP(i, total) {
    if (i < J) {
      const int64_t v = static_cast<int64_t>(idx[i]);
      if (v < -D || v >= D) err[slot] = 1;
    }
    if (i >= n) continue;
    int64_t r = i;
    int64_t base = 0;
    int64_t target = 0;
    bool inside = true;
    for (int d = rank - 1; d >= 0; --d) {
      const int64_t dim = meta[d];
      const int64_t q = r / dim;
      const int64_t c = r - q * dim;
      r = q;
      if (d == axis) {
        target = c;
      } else {
        if (c >= meta[rank + d]) inside = false;
        base += c * meta[2 * rank + d];
      }
    }
    const int64_t len = inside ? meta[rank + axis] : 0;
    const int64_t step = meta[2 * rank + axis];
    if constexpr (kReduce == 0) {
      typename V::St out = x[i];
      for (int64_t j = 0; j < len; ++j) {
        const int64_t p = base + j * step;
        int64_t v = static_cast<int64_t>(idx[p]);
        if (v < 0) v += D;
        if (v == target) out = u[p];  // later writes win
      }
      y[i] = out;
    } else {
      bool touched = false;
      typename V::Acc acc = 0;
      for (int64_t j = 0; j < len; ++j) {
        const int64_t p = base + j * step;
        int64_t v = static_cast<int64_t>(idx[p]);
        if (v < 0) v += D;
        if (v != target) continue;
        if (!touched) acc = V::Load(x, i);
        touched = true;
        acc = ReduceFn<kReduce, V::kIsFloat>(acc, V::Load(u, p));
      }
      if (touched) {
        V::Store(y, i, acc);
      } else {
        y[i] = x[i];
      }
    }
  }
}

// scatter_elements with reduction "none" and long index lines: phase 1, one thread per
// index entry p, records the last entry (in row-major order of the indices) writing each
// element of y: last[offset] = max(p + 1) (atomicMax: independent of the threads' order;
// 0 = none). Phase 2 copies u[last - 1] or x. meta as ScatterElementsKernel's, then
// xstrides[rank].
template <class IT>
__global__ void ScatterLastKernel(const IT* __restrict__ idx, int64_t J, int rank,
                                  const int64_t* __restrict__ meta, int axis,
                                  unsigned long long* last, int* err, uint32_t slot) {
  const int64_t D = meta[axis];
  const int64_t* idims = meta + rank;
  const int64_t* xstrides = meta + 3 * rank;
  SY_GRID_LOOP(p, J) {
    int64_t v = static_cast<int64_t>(idx[p]);
    if (v < -D || v >= D) {
      err[slot] = 1;
      continue;
    }
    if (v < 0) v += D;
    int64_t r = p;
    int64_t off = 0;
    for (int d = rank - 1; d >= 0; --d) {
      const int64_t q = r / idims[d];
      const int64_t c = d == axis ? v : r - q * idims[d];
      r = q;
      off += c * xstrides[d];
    }
    atomicMax(&last[off], static_cast<unsigned long long>(p) + 1);
  }
}

template <class R>
__global__ void ScatterLastApplyKernel(const R* __restrict__ x, const R* __restrict__ u,
                                       R* __restrict__ y, int64_t n,
                                       const unsigned long long* __restrict__ last) {
  SY_GRID_LOOP(i, n) {
    const unsigned long long l = last[i];
    y[i] = l == 0 ? x[i] : u[static_cast<int64_t>(l - 1)];
  }
}

// ---- gather_nd, scatter_nd ----------------------------------------------------------------

// The position of tuple t (k entries) over dims of sizes meta[0..k) with row-major strides
// meta[k..2k); -1 when an entry is out of range.
template <class IT>
__device__ inline int64_t TuplePosition(const IT* idx, int64_t t, int k, const int64_t* meta) {
  int64_t pos = 0;
  for (int c = 0; c < k; ++c) {
    const int64_t D = meta[c];
    int64_t v = static_cast<int64_t>(idx[t * k + c]);
    if (v < 0) v += D;
    if (v < 0 || v >= D) return -1;
    pos += v * meta[k + c];
  }
  return pos;
}

template <class R, class IT>
__global__ void GatherNDKernel(const R* __restrict__ x, const IT* __restrict__ idx,
                               R* __restrict__ y, int64_t n, int64_t E, int k, int64_t inner,
                               int64_t per_batch, int64_t P, const int64_t* __restrict__ meta,
                               int* err, uint32_t slot) {
  const int64_t total = n > E ? n : E;
  SY_GRID_LOOP(i, total) {
    if (i < E) {
      const int64_t D = meta[i % k];
      const int64_t v = static_cast<int64_t>(idx[i]);
      if (v < -D || v >= D) err[slot] = 1;
    }
    if (i >= n) continue;
    const int64_t t = i / inner;
    const int64_t r = i - t * inner;
    const int64_t pos = TuplePosition(idx, t, k, meta);
    y[i] = pos < 0 ? R(0) : x[((t / per_batch) * P + pos) * inner + r];
  }
}

__global__ void ScatterNDInitKernel(int* ranges, int64_t P) {
  SY_GRID_LOOP(p, P) {
    ranges[2 * p] = 0x7fffffff;
    ranges[2 * p + 1] = -1;
  }
}

template <class IT>
__global__ void ScatterNDIndexKernel(const IT* __restrict__ idx, int64_t T, int k,
                                     const int64_t* __restrict__ meta, int64_t* positions,
                                     int* ranges, bool with_ranges, int* err, uint32_t slot) {
  SY_GRID_LOOP(t, T) {
    const int64_t pos = TuplePosition(idx, t, k, meta);
    positions[t] = pos;
    if (pos < 0) {
      err[slot] = 1;
      continue;
    }
    if (with_ranges) {
      atomicMin(&ranges[2 * pos], static_cast<int>(t));
      atomicMax(&ranges[2 * pos + 1], static_cast<int>(t));
    }
  }
}

template <class V, int kReduce>
__global__ void ScatterNDApplyKernel(const typename V::St* __restrict__ x,
                                     const typename V::St* __restrict__ u,
                                     typename V::St* __restrict__ y, int64_t n, int64_t inner,
                                     const int64_t* __restrict__ positions,
                                     const int* __restrict__ ranges) {
  SY_GRID_LOOP(i, n) {
    const int64_t p = i / inner;
    const int64_t r = i - p * inner;
    const int first = ranges[2 * p];
    const int last = ranges[2 * p + 1];
    if (last < 0) {
      y[i] = x[i];
      continue;
    }
    if constexpr (kReduce == 0) {
      y[i] = u[static_cast<int64_t>(last) * inner + r];  // the last write wins
    } else {
      typename V::Acc acc = V::Load(x, i);
      for (int t = first; t <= last; ++t) {
        if (positions[t] != p) continue;
        acc = ReduceFn<kReduce, V::kIsFloat>(acc, V::Load(u, static_cast<int64_t>(t) * inner + r));
      }
      V::Store(y, i, acc);
    }
  }
}

// Raw "values" for reduction none: elements move as bits.
template <class R>
struct RawValue {
  using St = R;
  using Acc = int64_t;
  static constexpr bool kIsFloat = false;
  __device__ static int64_t Load(const R*, int64_t) { return 0; }
  __device__ static void Store(R*, int64_t, int64_t) {}
};

// ---- scatter launchers ----

template <class V, class IT>
cudaError_t ScatterElementsTyped(int reduction, const void* x, const void* idx, const void* u,
                                 void* y, int64_t n, int64_t J, int rank, const int64_t* meta,
                                 int axis, int* err, uint32_t slot, cudaStream_t stream) {
  using St = typename V::St;
  const int64_t total = n > J ? n : J;
  const unsigned grid = GridFor(total);
  const St* xs = static_cast<const St*>(x);
  const IT* is = static_cast<const IT*>(idx);
  const St* us = static_cast<const St*>(u);
  St* ys = static_cast<St*>(y);
#define SY_SCATTER_EL(R)          \
  ScatterElementsKernel<V, IT, R> \
      <<<grid, kThreads, 0, stream>>>(xs, is, us, ys, n, J, rank, meta, axis, err, slot)
  switch (reduction) {
    case 0:
      SY_SCATTER_EL(0);
      break;
    case 1:
      SY_SCATTER_EL(1);
      break;
    case 2:
      SY_SCATTER_EL(2);
      break;
    case 3:
      SY_SCATTER_EL(3);
      break;
    default:
      SY_SCATTER_EL(4);
      break;
  }
#undef SY_SCATTER_EL
  return SY_LAUNCH_RESULT();
}

template <class V>
cudaError_t ScatterNDApply(int reduction, const void* x, const void* u, void* y, int64_t n,
                           int64_t inner, const int64_t* positions, const int* ranges,
                           cudaStream_t stream) {
  using St = typename V::St;
  const unsigned grid = GridFor(n);
  const St* xs = static_cast<const St*>(x);
  const St* us = static_cast<const St*>(u);
  St* ys = static_cast<St*>(y);
#define SY_SCATTER_ND(R) \
  ScatterNDApplyKernel<V, R><<<grid, kThreads, 0, stream>>>(xs, us, ys, n, inner, positions, ranges)
  switch (reduction) {
    case 0:
      SY_SCATTER_ND(0);
      break;
    case 1:
      SY_SCATTER_ND(1);
      break;
    case 2:
      SY_SCATTER_ND(2);
      break;
    case 3:
      SY_SCATTER_ND(3);
      break;
    default:
      SY_SCATTER_ND(4);
      break;
  }
#undef SY_SCATTER_ND
  return SY_LAUNCH_RESULT();
}

// Calls f.template operator()<V>() with V the scatter value type of (dtype, reduction):
// raw bits for reduction none, else the typed accumulation.
template <class F>
cudaError_t WithScatterValue(DType dtype, int reduction, F&& f) {
  if (reduction == 0) {
    switch (DTypeSize(dtype)) {
      case 1:
        return f.template operator()<RawValue<uint8_t>>();
      case 2:
        return f.template operator()<RawValue<uint16_t>>();
      case 4:
        return f.template operator()<RawValue<uint32_t>>();
      case 8:
        return f.template operator()<RawValue<uint64_t>>();
      default:
        return cudaErrorInvalidValue;
    }
  }
  switch (dtype) {
    case DType::kF32:
      return f.template operator()<ScatterValue<float>>();
    case DType::kF16:
      return f.template operator()<ScatterValue<__half>>();
    case DType::kBF16:
      return f.template operator()<ScatterValue<__nv_bfloat16>>();
    case DType::kF64:
      return f.template operator()<ScatterValue<double>>();
    case DType::kI8:
      return f.template operator()<ScatterValue<int8_t>>();
    case DType::kU8:
      return f.template operator()<ScatterValue<uint8_t>>();
    case DType::kI32:
      return f.template operator()<ScatterValue<int32_t>>();
    case DType::kI64:
      return f.template operator()<ScatterValue<int64_t>>();
    case DType::kBool:
      return f.template operator()<ScatterValue<BoolTag>>();
    default:  // i16 u16 u32: declined by the plugin (cuda_executable.cpp)
      break;
  }
  return cudaErrorInvalidValue;
}

template <class R, class IT>
__global__ void CacheWriteKernel(const R* __restrict__ cache, const R* __restrict__ update,
                                 const IT* __restrict__ offset, R* y, int64_t outer, int64_t C,
                                 int64_t n, int64_t inner, bool copy, int* err, uint32_t slot) {
  const int64_t off = static_cast<int64_t>(offset[0]);
  const bool valid = off >= 0 && off <= C - n;
  if (!valid) {
    if (blockIdx.x == 0 && threadIdx.x == 0) err[slot] = 1;
    return;
  }
  if (copy) {
    SY_GRID_LOOP(i, outer * C * inner) {
      const int64_t c = (i / inner) % C;
      y[i] = (c >= off && c < off + n)
                 ? update[((i / (inner * C)) * n + (c - off)) * inner + i % inner]
                 : cache[i];
    }
    return;
  }
  SY_GRID_LOOP(i, outer * n * inner) {
    const int64_t on = i / inner;
    y[((on / n) * C + off + on % n) * inner + i % inner] = update[i];
  }
}

}  // namespace

cudaError_t LaunchCacheWrite(int elem_bytes, bool idx64, const void* cache, const void* update,
                             const void* offset, void* y, int64_t outer, int64_t C, int64_t n,
                             int64_t inner, bool copy, int* err, uint32_t slot,
                             cudaStream_t stream) {
  const int64_t items = copy ? outer * C * inner : outer * n * inner;
  const unsigned grid = GridFor(items > 0 ? items : 1);  // one block checks the offset
  SY_DISPATCH_RAW(
      elem_bytes,
      if (idx64) {
        CacheWriteKernel<T, int64_t><<<grid, kThreads, 0, stream>>>(
            static_cast<const T*>(cache), static_cast<const T*>(update),
            static_cast<const int64_t*>(offset), static_cast<T*>(y), outer, C, n, inner, copy, err,
            slot);
      } else {
        CacheWriteKernel<T, int32_t><<<grid, kThreads, 0, stream>>>(
            static_cast<const T*>(cache), static_cast<const T*>(update),
            static_cast<const int32_t*>(offset), static_cast<T*>(y), outer, C, n, inner, copy, err,
            slot);
      });
  return SY_LAUNCH_RESULT();
}

cudaError_t LaunchGather(int elem_bytes, bool idx64, const void* x, const void* idx, void* y,
                         int64_t n, int64_t J, int64_t inner, int64_t D, int* err, uint32_t slot,
                         cudaStream_t stream) {
  const int64_t total = n > J ? n : J;
  if (total == 0) return cudaSuccess;
  const unsigned grid = GridFor(total);
  SY_DISPATCH_RAW(
      elem_bytes,
      if (idx64) {
        GatherKernel<T, int64_t><<<grid, kThreads, 0, stream>>>(
            static_cast<const T*>(x), static_cast<const int64_t*>(idx), static_cast<T*>(y), n, J,
            inner, D, err, slot);
      } else {
        GatherKernel<T, int32_t><<<grid, kThreads, 0, stream>>>(
            static_cast<const T*>(x), static_cast<const int32_t*>(idx), static_cast<T*>(y), n, J,
            inner, D, err, slot);
      });
  return SY_LAUNCH_RESULT();
}

cudaError_t LaunchGatherElements(int elem_bytes, bool idx64, const void* x, const void* idx,
                                 void* y, int64_t n, int rank, const int64_t* meta, int axis,
                                 int64_t D, int* err, uint32_t slot, cudaStream_t stream) {
  if (n == 0) return cudaSuccess;
  const unsigned grid = GridFor(n);
  SY_DISPATCH_RAW(
      elem_bytes,
      if (idx64) {
        GatherElementsKernel<T, int64_t><<<grid, kThreads, 0, stream>>>(
            static_cast<const T*>(x), static_cast<const int64_t*>(idx), static_cast<T*>(y), n, rank,
            meta, axis, D, err, slot);
      } else {
        GatherElementsKernel<T, int32_t><<<grid, kThreads, 0, stream>>>(
            static_cast<const T*>(x), static_cast<const int32_t*>(idx), static_cast<T*>(y), n, rank,
            meta, axis, D, err, slot);
      });
  return SY_LAUNCH_RESULT();
}

cudaError_t LaunchScatterElements(DType dtype, int reduction, bool idx64, const void* x,
                                  const void* idx, const void* updates, void* y, int64_t n,
                                  int64_t J, int rank, const int64_t* meta, int axis, int* err,
                                  uint32_t slot, cudaStream_t stream) {
  if (n == 0 && J == 0) return cudaSuccess;
  return WithScatterValue(dtype, reduction, [&]<class V>() {
    return idx64 ? ScatterElementsTyped<V, int64_t>(reduction, x, idx, updates, y, n, J, rank, meta,
                                                    axis, err, slot, stream)
                 : ScatterElementsTyped<V, int32_t>(reduction, x, idx, updates, y, n, J, rank, meta,
                                                    axis, err, slot, stream);
  });
}

cudaError_t LaunchScatterElementsLast(int elem_bytes, bool idx64, const void* x, const void* idx,
                                      const void* updates, void* y, int64_t n, int64_t J, int rank,
                                      const int64_t* meta, int axis, unsigned long long* last,
                                      int* err, uint32_t slot, cudaStream_t stream) {
  if (n > 0) {
    const cudaError_t e = cudaMemsetAsync(last, 0, static_cast<size_t>(n) * sizeof(*last), stream);
    if (e != cudaSuccess) return e;
  }
  if (J > 0) {
    if (idx64) {
      ScatterLastKernel<int64_t><<<GridFor(J), kThreads, 0, stream>>>(
          static_cast<const int64_t*>(idx), J, rank, meta, axis, last, err, slot);
    } else {
      ScatterLastKernel<int32_t><<<GridFor(J), kThreads, 0, stream>>>(
          static_cast<const int32_t*>(idx), J, rank, meta, axis, last, err, slot);
    }
    const cudaError_t e = SY_LAUNCH_RESULT();
    if (e != cudaSuccess) return e;
  }
  if (n == 0) return cudaSuccess;
  SY_DISPATCH_RAW(elem_bytes, ScatterLastApplyKernel<T><<<GridFor(n), kThreads, 0, stream>>>(
                                  static_cast<const T*>(x), static_cast<const T*>(updates),
                                  static_cast<T*>(y), n, last));
  return SY_LAUNCH_RESULT();
}

cudaError_t LaunchGatherND(int elem_bytes, bool idx64, const void* x, const void* idx, void* y,
                           int64_t n, int64_t E, int k, int64_t inner, int64_t per_batch, int64_t P,
                           const int64_t* meta, int* err, uint32_t slot, cudaStream_t stream) {
  const int64_t total = n > E ? n : E;
  if (total == 0) return cudaSuccess;
  const unsigned grid = GridFor(total);
  SY_DISPATCH_RAW(
      elem_bytes,
      if (idx64) {
        GatherNDKernel<T, int64_t><<<grid, kThreads, 0, stream>>>(
            static_cast<const T*>(x), static_cast<const int64_t*>(idx), static_cast<T*>(y), n, E, k,
            inner, per_batch, P, meta, err, slot);
      } else {
        GatherNDKernel<T, int32_t><<<grid, kThreads, 0, stream>>>(
            static_cast<const T*>(x), static_cast<const int32_t*>(idx), static_cast<T*>(y), n, E, k,
            inner, per_batch, P, meta, err, slot);
      });
  return SY_LAUNCH_RESULT();
}

cudaError_t LaunchScatterND(DType dtype, int reduction, bool idx64, const void* x, const void* idx,
                            const void* updates, void* y, int64_t count, int64_t inner, int64_t P,
                            int64_t T, int k, const int64_t* meta, int64_t* positions, int* ranges,
                            int* err, uint32_t slot, cudaStream_t stream) {
  const bool with_ranges = count > 0;
  if (with_ranges) {
    ScatterNDInitKernel<<<GridFor(P), kThreads, 0, stream>>>(ranges, P);
    const cudaError_t e = SY_LAUNCH_RESULT();
    if (e != cudaSuccess) return e;
  }
  if (T > 0) {
    if (idx64) {
      ScatterNDIndexKernel<int64_t><<<GridFor(T), kThreads, 0, stream>>>(
          static_cast<const int64_t*>(idx), T, k, meta, positions, ranges, with_ranges, err, slot);
    } else {
      ScatterNDIndexKernel<int32_t><<<GridFor(T), kThreads, 0, stream>>>(
          static_cast<const int32_t*>(idx), T, k, meta, positions, ranges, with_ranges, err, slot);
    }
    const cudaError_t e = SY_LAUNCH_RESULT();
    if (e != cudaSuccess) return e;
  }
  if (!with_ranges) return cudaSuccess;
  return WithScatterValue(dtype, reduction, [&]<class V>() {
    return ScatterNDApply<V>(reduction, x, updates, y, count, inner, positions, ranges, stream);
  });
}

}  // namespace sy::cuda::kern
