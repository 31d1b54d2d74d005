#include "reduction.h"

#include "op_common.cuh"

namespace sy::cuda::kern {
namespace {

// ---- a signed 128-bit sum for the integer mean ----

struct I128 {
  uint64_t lo;
  int64_t hi;
};

__device__ inline I128 Add128(I128 a, I128 b) {
  I128 r;
  r.lo = a.lo + b.lo;
  r.hi = static_cast<int64_t>(static_cast<uint64_t>(a.hi) + static_cast<uint64_t>(b.hi) +
                              (r.lo < a.lo ? 1u : 0u));
  return r;
}

// (hi, lo) / n for n > 0, truncating toward zero; the quotient fits 64 bits (it is a mean
// of int64 values).
__device__ inline int64_t Mean128(I128 s, uint64_t n) {
  const bool negative = s.hi < 0;
  uint64_t lo = s.lo, hi = static_cast<uint64_t>(s.hi);
  if (negative) {  // two's complement negation
    lo = ~lo + 1;
    hi = ~hi + (lo == 0 ? 1 : 0);
  }
  uint64_t rem = 0, q = 0;
  for (int bit = 127; bit >= 0; --bit) {
    const uint64_t top = rem >> 63;
    rem = (rem << 1) | (bit >= 64 ? (hi >> (bit - 64)) & 1u : (lo >> bit) & 1u);
    if (top || rem >= n) {
      rem -= n;
      if (bit < 64) q |= uint64_t{1} << bit;
    }
  }
  return negative ? static_cast<int64_t>(uint64_t{0} - q) : static_cast<int64_t>(q);
}

template <class A>
__device__ inline A ShflXor(A v, int offset) {
  return __shfl_xor_sync(0xffffffffu, v, offset);
}
template <>
__device__ inline I128 ShflXor(I128 v, int offset) {
  I128 r;
  r.lo = __shfl_xor_sync(0xffffffffu, v.lo, offset);
  r.hi = __shfl_xor_sync(0xffffffffu, v.hi, offset);
  return r;
}

// Reduces v over a team of kTeam threads (1, 32, or the whole block of kTeam threads) and
// returns the result to the team's first thread (the others get partial values).
template <int kTeam, class A, class Op>
__device__ inline A TeamReduce(A v, Op op, A* smem) {
  if constexpr (kTeam == 1) {
    return v;
  } else {
    for (int offset = 16; offset > 0; offset /= 2) v = op(v, ShflXor(v, offset));
    if constexpr (kTeam > 32) {
      const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
      __syncthreads();
      if (lane == 0) smem[warp] = v;
      __syncthreads();
      if (threadIdx.x == 0) {
        for (int w = 1; w < kTeam / 32; ++w) v = op(v, smem[w]);
      }
    }
    return v;
  }
}

// ---- accumulation policies ----

template <class T, int kKind, bool kFloat = Num<T>::kFloat>
struct Policy;

// Floats: in Num<T>::Acc.
template <class T, int kKind>
struct Policy<T, kKind, true> {
  using Acc = typename Num<T>::Acc;
  __device__ static Acc Identity(int64_t, int64_t) {
    if constexpr (kKind == static_cast<int>(ReduceKind::kProd)) return Acc(1);
    if constexpr (kKind == static_cast<int>(ReduceKind::kMax)) return -Infinity<Acc>();
    if constexpr (kKind == static_cast<int>(ReduceKind::kMin)) return Infinity<Acc>();
    return Acc(0);
  }
  __device__ static Acc From(Acc v) { return v; }
  struct Combine {
    __device__ Acc operator()(Acc a, Acc b) const {
      if constexpr (kKind == static_cast<int>(ReduceKind::kProd)) return a * b;
      if constexpr (kKind == static_cast<int>(ReduceKind::kMax)) return NanMax(a, b);
      if constexpr (kKind == static_cast<int>(ReduceKind::kMin)) return NanMin(a, b);
      return a + b;
    }
  };
  __device__ static void Finish(T* y, int64_t o, Acc acc, int64_t group) {
    if constexpr (kKind == static_cast<int>(ReduceKind::kMean)) {
      acc = acc / static_cast<Acc>(group);  // 0 / 0: NaN for the empty set
    }
    Num<T>::Store(y, o, acc);
  }
};

// Integers: sum and prod wrap in uint64_t, max and min in int64_t starting from the
// dtype's range, mean in 128 bits.
template <class T, int kKind>
struct Policy<T, kKind, false> {
  static constexpr bool kMean = kKind == static_cast<int>(ReduceKind::kMean);
  static constexpr bool kMinMax =
      kKind == static_cast<int>(ReduceKind::kMax) || kKind == static_cast<int>(ReduceKind::kMin);
  using Acc = std::conditional_t<kMean, I128, std::conditional_t<kMinMax, int64_t, uint64_t>>;
  __device__ static Acc Identity(int64_t lo, int64_t hi) {
    if constexpr (kMean) {
      return I128{0, 0};
    } else if constexpr (kKind == static_cast<int>(ReduceKind::kMax)) {
      return lo;
    } else if constexpr (kKind == static_cast<int>(ReduceKind::kMin)) {
      return hi;
    } else if constexpr (kKind == static_cast<int>(ReduceKind::kProd)) {
      return 1;
    } else {
      return 0;
    }
  }
  __device__ static Acc From(int64_t v) {
    if constexpr (kMean) {
      return I128{static_cast<uint64_t>(v), v < 0 ? -1 : 0};
    } else {
      return static_cast<Acc>(v);
    }
  }
  struct Combine {
    __device__ Acc operator()(Acc a, Acc b) const {
      if constexpr (kMean) {
        return Add128(a, b);
      } else if constexpr (kKind == static_cast<int>(ReduceKind::kMax)) {
        return a < b ? b : a;
      } else if constexpr (kKind == static_cast<int>(ReduceKind::kMin)) {
        return b < a ? b : a;
      } else if constexpr (kKind == static_cast<int>(ReduceKind::kProd)) {
        return a * b;
      } else {
        return a + b;
      }
    }
  };
  __device__ static void Finish(T* y, int64_t o, Acc acc, int64_t group) {
    if constexpr (kMean) {
      Num<T>::Store(y, o, group == 0 ? 0 : Mean128(acc, static_cast<uint64_t>(group)));
    } else {
      Num<T>::Store(y, o, static_cast<int64_t>(acc));
    }
  }
};

template <class T, int kKind, int kTeam>
__global__ void __launch_bounds__(256)
    ReduceKernel(const T* __restrict__ x, T* __restrict__ y, int64_t n_out, int64_t group, int kr,
                 int rr, const int64_t* __restrict__ meta, int64_t lo, int64_t hi) {
  using P = Policy<T, kKind>;
  using Acc = typename P::Acc;
  __shared__ Acc smem[32];
  const int64_t* kd = meta;
  const int64_t* ks = meta + kr;
  const int64_t* rd = meta + 2 * kr;
  const int64_t* rs = rd + rr;
  const int64_t tid = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  const int lane = static_cast<int>(threadIdx.x % kTeam);
  const int64_t teams = static_cast<int64_t>(gridDim.x) * blockDim.x / kTeam;
  for (int64_t o = tid / kTeam; o < n_out; o += teams) {
    const int64_t base = StridedOffset(o, kr, kd, ks);
    Acc acc = P::Identity(lo, hi);
    typename P::Combine op;
    if (rr == 1) {
      const int64_t stride = rs[0];
      for (int64_t t = lane; t < group; t += kTeam) {
        acc = op(acc, P::From(Num<T>::Load(x, base + t * stride)));
      }
    } else {
      for (int64_t t = lane; t < group; t += kTeam) {
        acc = op(acc, P::From(Num<T>::Load(x, base + StridedOffset(t, rr, rd, rs))));
      }
    }
    acc = TeamReduce<kTeam>(acc, op, smem);
    if (lane == 0) P::Finish(y, o, acc, group);
  }
}

std::pair<int64_t, int64_t> IntRange(DType dtype) {
  switch (dtype) {
    case DType::kI8:
      return {-128, 127};
    case DType::kU8:
      return {0, 255};
    case DType::kI32:
      return {-2147483648LL, 2147483647LL};
    default:
      return {static_cast<int64_t>(0x8000000000000000ULL), 0x7fffffffffffffffLL};
  }
}

template <class T, int kKind>
cudaError_t LaunchTyped(const T* x, T* y, const ReducePlan& p, const int64_t* meta,
                        cudaStream_t stream) {
  const auto [lo, hi] = IntRange(std::is_same_v<T, int8_t>    ? DType::kI8
                                 : std::is_same_v<T, uint8_t> ? DType::kU8
                                 : std::is_same_v<T, int32_t> ? DType::kI32
                                                              : DType::kI64);
  const int64_t threads_needed = p.n_out * p.team;
  const unsigned grid = GridFor(threads_needed, 256);
  switch (p.team) {
    case 1:
      ReduceKernel<T, kKind, 1>
          <<<grid, 256, 0, stream>>>(x, y, p.n_out, p.group, p.kept_rank, p.red_rank, meta, lo, hi);
      break;
    case 32:
      ReduceKernel<T, kKind, 32>
          <<<grid, 256, 0, stream>>>(x, y, p.n_out, p.group, p.kept_rank, p.red_rank, meta, lo, hi);
      break;
    default:
      ReduceKernel<T, kKind, 256>
          <<<grid, 256, 0, stream>>>(x, y, p.n_out, p.group, p.kept_rank, p.red_rank, meta, lo, hi);
      break;
  }
  return SY_LAUNCH_RESULT();
}

template <class T>
cudaError_t LaunchKind(ReduceKind kind, const void* x, void* y, const ReducePlan& p,
                       const int64_t* meta, cudaStream_t stream) {
  const T* xt = static_cast<const T*>(x);
  T* yt = static_cast<T*>(y);
  switch (kind) {
    case ReduceKind::kSum:
      return LaunchTyped<T, 0>(xt, yt, p, meta, stream);
    case ReduceKind::kMean:
      return LaunchTyped<T, 1>(xt, yt, p, meta, stream);
    case ReduceKind::kMax:
      return LaunchTyped<T, 2>(xt, yt, p, meta, stream);
    case ReduceKind::kMin:
      return LaunchTyped<T, 3>(xt, yt, p, meta, stream);
    case ReduceKind::kProd:
      return LaunchTyped<T, 4>(xt, yt, p, meta, stream);
  }
  return cudaErrorInvalidValue;
}

// ---- argmax, argmin ----

template <bool kMax, class A>
__device__ inline bool MoreExtreme(A a, A b) {
  if (IsNan(b)) return false;
  if (IsNan(a)) return true;
  return kMax ? a > b : a < b;
}

// Whether candidate (a, ai) beats (b, bi); bi < 0 means "none yet".
template <bool kMax, class A>
__device__ inline bool Better(A a, int64_t ai, A b, int64_t bi, bool last) {
  if (bi < 0) return ai >= 0;
  if (ai < 0) return false;
  if (MoreExtreme<kMax>(a, b)) return true;
  if (MoreExtreme<kMax>(b, a)) return false;
  return last ? ai > bi : ai < bi;
}

template <class T, bool kMax, int kTeam>
__global__ void __launch_bounds__(256)
    ArgKernel(const T* __restrict__ x, int64_t* __restrict__ y, int64_t lines, int64_t n,
              int64_t inner, bool last) {
  using A = typename Num<T>::Acc;
  __shared__ A sv[32];
  __shared__ int64_t si[32];
  const int64_t tid = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  const int lane = static_cast<int>(threadIdx.x % kTeam);
  const int64_t teams = static_cast<int64_t>(gridDim.x) * blockDim.x / kTeam;
  for (int64_t o = tid / kTeam; o < lines; o += teams) {
    const int64_t outer = o / inner;
    const int64_t in = o - outer * inner;
    const int64_t base = outer * n * inner + in;
    A bv = A(0);
    int64_t bi = -1;
    for (int64_t j = lane; j < n; j += kTeam) {
      const A v = Num<T>::Load(x, base + j * inner);
      if (Better<kMax>(v, j, bv, bi, last)) {
        bv = v;
        bi = j;
      }
    }
    if constexpr (kTeam > 1) {
      for (int offset = 16; offset > 0; offset /= 2) {
        const A ov = __shfl_xor_sync(0xffffffffu, bv, offset);
        const int64_t oi = __shfl_xor_sync(0xffffffffu, bi, offset);
        if (Better<kMax>(ov, oi, bv, bi, last)) {
          bv = ov;
          bi = oi;
        }
      }
      if constexpr (kTeam > 32) {
        const int wl = threadIdx.x & 31, warp = threadIdx.x >> 5;
        __syncthreads();
        if (wl == 0) {
          sv[warp] = bv;
          si[warp] = bi;
        }
        __syncthreads();
        if (threadIdx.x == 0) {
          for (int w = 1; w < kTeam / 32; ++w) {
            if (Better<kMax>(sv[w], si[w], bv, bi, last)) {
              bv = sv[w];
              bi = si[w];
            }
          }
        }
      }
    }
    if (lane == 0) y[o] = bi;
  }
}

template <class T, bool kMax>
cudaError_t LaunchArgTyped(bool last, const T* x, int64_t* y, int64_t outer, int64_t n,
                           int64_t inner, cudaStream_t stream) {
  const int64_t lines = outer * inner;
  // inner > 1: neighbouring lines are neighbours in memory (one thread each reads
  // coalesced); contiguous lines get a warp or a block each.
  const int team = inner > 1 ? 1 : (n <= 16 ? 1 : (n <= 8192 || lines > 2048) ? 32 : 256);
  const unsigned grid = GridFor(lines * team, 256);
  switch (team) {
    case 1:
      ArgKernel<T, kMax, 1><<<grid, 256, 0, stream>>>(x, y, lines, n, inner, last);
      break;
    case 32:
      ArgKernel<T, kMax, 32><<<grid, 256, 0, stream>>>(x, y, lines, n, inner, last);
      break;
    default:
      ArgKernel<T, kMax, 256><<<grid, 256, 0, stream>>>(x, y, lines, n, inner, last);
      break;
  }
  return SY_LAUNCH_RESULT();
}

// ---- cumsum -------------------------------------------------------------------------------

template <class T>
struct ScanAcc {
  using A = std::conditional_t<Num<T>::kFloat, typename Num<T>::Acc, uint64_t>;
  __device__ static A Load(const T* p, int64_t i) {
    if constexpr (Num<T>::kFloat) {
      return Num<T>::Load(p, i);
    } else {
      return static_cast<uint64_t>(Num<T>::Load(p, i));
    }
  }
  __device__ static void Store(T* p, int64_t i, A v) {
    if constexpr (Num<T>::kFloat) {
      Num<T>::Store(p, i, v);
    } else {
      Num<T>::Store(p, i, static_cast<int64_t>(v));
    }
  }
};

// One thread per line, sequential (lines strided in memory, or many short lines).
template <class T>
__global__ void CumsumLineKernel(const T* __restrict__ x, T* __restrict__ y, int64_t lines,
                                 int64_t n, int64_t inner, bool exclusive, bool reverse) {
  using S = ScanAcc<T>;
  SY_GRID_LOOP(line, lines) {
    const int64_t o = line / inner;
    const int64_t in = line - o * inner;
    typename S::A sum = 0;
    for (int64_t step = 0; step < n; ++step) {
      const int64_t j = reverse ? n - 1 - step : step;
      const int64_t i = (o * n + j) * inner + in;
      const typename S::A v = S::Load(x, i);
      if (!exclusive) sum += v;
      S::Store(y, i, sum);
      if (exclusive) sum += v;
    }
  }
}

constexpr int kScanThreads = 256;

// One block per long contiguous line: chunks of kScanThreads elements, each scanned in
// shared memory (Hillis-Steele) and offset by the running total of the chunks before.
template <class T>
__global__ void __launch_bounds__(kScanThreads)
    CumsumBlockKernel(const T* __restrict__ x, T* __restrict__ y, int64_t lines, int64_t n,
                      bool exclusive, bool reverse) {
  using S = ScanAcc<T>;
  using A = typename S::A;
  __shared__ A s[kScanThreads];
  const int tid = threadIdx.x;
  for (int64_t line = blockIdx.x; line < lines; line += gridDim.x) {
    A carry = 0;
    for (int64_t c0 = 0; c0 < n; c0 += kScanThreads) {
      const int64_t step = c0 + tid;
      const int64_t j = reverse ? n - 1 - step : step;
      const int64_t i = line * n + j;
      const A v = step < n ? S::Load(x, i) : A(0);
      __syncthreads();  // the previous chunk's reads of s are done
      s[tid] = v;
      __syncthreads();
      for (int off = 1; off < kScanThreads; off *= 2) {
        const A t = tid >= off ? s[tid - off] : A(0);
        __syncthreads();
        s[tid] += t;
        __syncthreads();
      }
      const A inclusive = s[tid];
      const A before = tid > 0 ? s[tid - 1] : A(0);
      if (step < n) S::Store(y, i, carry + (exclusive ? before : inclusive));
      carry += s[kScanThreads - 1];
    }
    __syncthreads();
  }
}

template <class T>
cudaError_t CumsumTyped(const void* x, void* y, int64_t outer, int64_t n, int64_t inner,
                        bool exclusive, bool reverse, cudaStream_t stream) {
  const int64_t lines = outer * inner;
  const T* xt = static_cast<const T*>(x);
  T* yt = static_cast<T*>(y);
  if (inner > 1 || n <= 64 || lines >= 4096) {
    CumsumLineKernel<T>
        <<<GridFor(lines), kThreads, 0, stream>>>(xt, yt, lines, n, inner, exclusive, reverse);
  } else {
    CumsumBlockKernel<T>
        <<<GridForItems(lines), kScanThreads, 0, stream>>>(xt, yt, lines, n, exclusive, reverse);
  }
  return SY_LAUNCH_RESULT();
}

// ---- topk ---------------------------------------------------------------------------------

// Whether element (a, ai) comes before (b, bi) in topk's output order: larger first (or
// smaller, !largest), NaN larger than every number, ties to the lower index.
template <class A>
__device__ inline bool Before(A a, int64_t ai, A b, int64_t bi, bool largest) {
  const bool an = IsNan(a), bn = IsNan(b);
  if (an != bn) return largest ? an : bn;
  if (!an && a != b) return largest ? a > b : a < b;
  return ai < bi;
}

constexpr int kTopkThreads = 256;
constexpr int64_t kTopkSharedElems = 4096;

// One block per line: element j's rank is the number of elements before it (a strict
// total order, so ranks are a permutation); ranks below k are written at their rank.
// Counting stops at k. The line is staged in shared memory when it fits.
template <class T>
__global__ void __launch_bounds__(kTopkThreads)
    TopkKernel(const T* __restrict__ x, T* __restrict__ values, int64_t* __restrict__ indices,
               int64_t lines, int64_t n, int64_t inner, int64_t k, bool largest) {
  using A = typename Num<T>::Acc;
  extern __shared__ __align__(16) unsigned char topk_raw[];
  A* line_vals = reinterpret_cast<A*>(topk_raw);
  const bool staged = n <= kTopkSharedElems;
  for (int64_t line = blockIdx.x; line < lines; line += gridDim.x) {
    const int64_t o = line / inner;
    const int64_t in = line - o * inner;
    const int64_t base = o * n * inner + in;
    if (staged) {
      for (int64_t j = threadIdx.x; j < n; j += kTopkThreads) {
        line_vals[j] = Num<T>::Load(x, base + j * inner);
      }
      __syncthreads();
    }
    for (int64_t j = threadIdx.x; j < n; j += kTopkThreads) {
      const A v = staged ? line_vals[j] : Num<T>::Load(x, base + j * inner);
      int64_t rank = 0;
      for (int64_t i = 0; i < n && rank < k; ++i) {
        const A w = staged ? line_vals[i] : Num<T>::Load(x, base + i * inner);
        if (Before(w, i, v, j, largest)) ++rank;
      }
      if (rank < k) {
        const int64_t dst = (o * k + rank) * inner + in;
        values[dst] = x[base + j * inner];
        indices[dst] = j;
      }
    }
    __syncthreads();
  }
}

template <class T>
cudaError_t TopkTyped(const void* x, void* values, int64_t* indices, int64_t outer, int64_t n,
                      int64_t inner, int64_t k, bool largest, cudaStream_t stream) {
  using A = typename Num<T>::Acc;
  const int64_t lines = outer * inner;
  const size_t shared = n <= kTopkSharedElems ? static_cast<size_t>(n) * sizeof(A) : 0;
  TopkKernel<T><<<GridForItems(lines), kTopkThreads, shared, stream>>>(
      static_cast<const T*>(x), static_cast<T*>(values), indices, lines, n, inner, k, largest);
  return SY_LAUNCH_RESULT();
}

}  // namespace

cudaError_t LaunchReduce(ReduceKind kind, DType dtype, const void* x, void* y,
                         const ReducePlan& plan, const int64_t* meta, cudaStream_t stream) {
  if (plan.n_out == 0) return cudaSuccess;
  SY_DISPATCH_NUMERIC(dtype, return LaunchKind<T>(kind, x, y, plan, meta, stream));
  return cudaErrorInvalidValue;
}

cudaError_t LaunchArgReduce(bool is_max, bool last, DType dtype, const void* x, int64_t* y,
                            int64_t outer, int64_t n, int64_t inner, cudaStream_t stream) {
  if (outer * inner == 0 || n == 0) return cudaSuccess;
  SY_DISPATCH_NUMERIC(dtype, return is_max
                                        ? LaunchArgTyped<T, true>(last, static_cast<const T*>(x), y,
                                                                  outer, n, inner, stream)
                                        : LaunchArgTyped<T, false>(last, static_cast<const T*>(x),
                                                                   y, outer, n, inner, stream));
  return cudaErrorInvalidValue;
}

cudaError_t LaunchCumsum(DType dtype, const void* x, void* y, int64_t outer, int64_t n,
                         int64_t inner, bool exclusive, bool reverse, cudaStream_t stream) {
  if (outer * inner == 0 || n == 0) return cudaSuccess;
  SY_DISPATCH_NUMERIC(dtype,
                      return CumsumTyped<T>(x, y, outer, n, inner, exclusive, reverse, stream));
  return cudaErrorInvalidValue;
}

cudaError_t LaunchTopk(DType dtype, const void* x, void* values, int64_t* indices, int64_t outer,
                       int64_t n, int64_t inner, int64_t k, bool largest, cudaStream_t stream) {
  if (outer * inner == 0 || n == 0 || k == 0) return cudaSuccess;
  SY_DISPATCH_NUMERIC(dtype,
                      return TopkTyped<T>(x, values, indices, outer, n, inner, k, largest, stream));
  return cudaErrorInvalidValue;
}

}  // namespace sy::cuda::kern
