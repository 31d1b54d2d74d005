// The sampling family's kernel (sampling.h): `sample`, one block of kThreads per row,
// every step in double in the order docs/ops.md ("Sampling") gives. Compiled with
// --fmad=false, and the order-defined sums use __dadd_rn, so nothing is contracted.
//
// What the text leaves order-free runs across the block: the NaN check (the lowest
// index), the largest logit or z (the first index on ties), p, the sort by p of the
// candidates (a bitonic network in the row's scratch) and marking what a method drops
// (p = -1). The sums whose
// order the text fixes (S, top_p's prefix, total and the walk) run on thread 0, one
// addition at a time. The same algorithm as the OpenCL plugin's kernels/sampling.cl.
#include "op_common.cuh"
#include "sampling.h"

namespace sy::cuda::kern {
namespace {

// Whether (vb, ib) beats (va, ia) for the largest value, the first index on ties; an
// index < 0 is "none yet".
__device__ inline bool Better(double va, int64_t ia, double vb, int64_t ib) {
  if (ib < 0) return false;
  if (ia < 0) return true;
  return vb > va || (vb == va && ib < ia);
}

// The order "by p": p descending, then index ascending. Every p is >= 0 (exp, or 1), so
// its bits (the key) order as its value does.
__device__ inline bool ByPBefore(uint64_t ka, int32_t ia, uint64_t kb, int32_t ib) {
  return ka > kb || (ka == kb && ia < ib);
}

// Sorts keys[0, n) with idx into the order by p (n a power of two): a bitonic network
// across the block, through global memory. Every thread of the block calls it.
__device__ void SortByP(uint64_t* keys, int32_t* idx, int64_t n) {
  for (int64_t k = 2; k <= n; k <<= 1) {
    for (int64_t j = k >> 1; j > 0; j >>= 1) {
      for (int64_t t = threadIdx.x; t < n / 2; t += blockDim.x) {
        const int64_t lo = (t / j) * 2 * j + t % j;
        const int64_t hi = lo + j;
        const uint64_t klo = keys[lo], khi = keys[hi];
        const int32_t ilo = idx[lo], ihi = idx[hi];
        // Blocks of k alternate direction; the last (k == n) is "by p" throughout.
        const bool swap =
            (lo & k) == 0 ? ByPBefore(khi, ihi, klo, ilo) : ByPBefore(klo, ilo, khi, ihi);
        if (swap) {
          keys[lo] = khi;
          keys[hi] = klo;
          idx[lo] = ihi;
          idx[hi] = ilo;
        }
      }
      __syncthreads();
    }
  }
}

struct SampleArgs {
  int64_t* token;
  int64_t* status;
  double* p;
  uint64_t* keys;
  int32_t* idx;
  int64_t V, P;
  SampleMethod method;
  bool sorts;  // SampleSorts
  double temperature;
  int64_t top_k;
  double top_p, min_p;
};

// Row r; every thread of the block calls it, and every branch that skips a barrier is
// taken by the whole block.
template <class T, class U>
__device__ void SampleRow(const T* __restrict__ logits, const U* __restrict__ uniform,
                          const SampleArgs& a, int64_t r) {
  __shared__ double sv[kThreads];
  __shared__ int64_t si[kThreads];
  __shared__ int64_t sn[kThreads];
  __shared__ int count;  // step 4's candidates
  const int tid = threadIdx.x;
  const int nt = blockDim.x;
  const int64_t V = a.V;
  const T* x = logits + r * V;
  const bool greedy = a.method == SampleMethod::kGreedy;

  // 1. The first NaN, and the largest logit (greedy) or z = logit / temperature.
  double best = -Infinity<double>();
  int64_t at = -1, nan_at = -1;
  for (int64_t i = tid; i < V; i += nt) {
    const double xi = static_cast<double>(Num<T>::Load(x, i));
    if (isnan(xi)) {
      if (nan_at < 0) nan_at = i;
      continue;
    }
    const double v = greedy ? xi : __ddiv_rn(xi, a.temperature);
    if (at < 0 || v > best) {
      best = v;
      at = i;
    }
  }
  __syncthreads();  // the previous row's readers of the shared arrays are done
  sv[tid] = best;
  si[tid] = at;
  sn[tid] = nan_at;
  __syncthreads();
  for (int s = nt / 2; s > 0; s >>= 1) {
    if (tid < s) {
      if (Better(sv[tid], si[tid], sv[tid + s], si[tid + s])) {
        sv[tid] = sv[tid + s];
        si[tid] = si[tid + s];
      }
      const int64_t other = sn[tid + s];
      if (other >= 0 && (sn[tid] < 0 || other < sn[tid])) sn[tid] = other;
    }
    __syncthreads();
  }
  const double m = sv[0];
  const int64_t arg = si[0];
  nan_at = sn[0];

  // 2. Data errors (a NaN first, then the uniform number), greedy's token.
  const double u = greedy ? 0.0 : static_cast<double>(uniform[r]);
  const bool bad_u = !greedy && !(u >= 0.0 && u < 1.0);
  if (tid == 0) {
    a.status[2 * r] = nan_at >= 0 ? 1 : bad_u ? 2 : 0;
    a.status[2 * r + 1] = nan_at >= 0 ? nan_at : bad_u ? __double_as_longlong(u) : 0;
    a.token[r] = greedy ? arg : 0;
  }
  if (nan_at >= 0 || bad_u || greedy) return;

  // 3. p = 1 where z is the maximum, else exp(z - max); min_p marks what it drops (-1).
  double* p = a.p + r * V;
  for (int64_t i = tid; i < V; i += nt) {
    const double z = __ddiv_rn(static_cast<double>(Num<T>::Load(x, i)), a.temperature);
    double pi = z == m ? 1.0 : exp(__dsub_rn(z, m));
    if (a.method == SampleMethod::kMinP && !(pi >= a.min_p)) pi = -1.0;
    p[i] = pi;
  }

  // 4. top_k (k < V) and top_p: the tokens by p, then what lies past the cut marked -1.
  // Only the candidates with p >= floor_p are sorted: they are the first ones by p, so the
  // walk over them is the walk over every token as far as they go. A floor that leaves
  // too few (fewer than k, or a prefix short of top_p's threshold) is lowered, to 0 (every
  // token) at the last.
  if (a.sorts) {
    uint64_t* keys = a.keys + r * a.P;
    int32_t* idx = a.idx + r * a.P;
    __syncthreads();
    double threshold = 0.0;  // top_p's, on thread 0: S in ascending index order
    if (a.method == SampleMethod::kTopP && tid == 0) {
      double all = 0.0;
      for (int64_t i = 0; i < V; ++i) all = __dadd_rn(all, p[i]);
      threshold = __dmul_rn(a.top_p, all);
    }
    for (int level = 0;; ++level) {
      const double floor_p = level == 0   ? 0x1p-10
                             : level == 1 ? 0x1p-20
                             : level == 2 ? 0x1p-40
                                          : 0.0;
      __syncthreads();  // the last level's count and cut are read
      if (tid == 0) count = 0;
      __syncthreads();
      for (int64_t i = tid; i < V; i += nt) {
        const double pi = p[i];
        if (pi >= floor_p) {
          const int at = atomicAdd(&count, 1);
          keys[at] = static_cast<uint64_t>(__double_as_longlong(pi));
          idx[at] = static_cast<int32_t>(i);
        }
      }
      __syncthreads();
      const int64_t c = count;
      if (a.method == SampleMethod::kTopK && c < a.top_k) continue;  // floor 0 has c = V
      int64_t n = 1;
      while (n < c) n <<= 1;
      for (int64_t i = c + tid; i < n; i += nt) {  // padding (key 0, index >= V) sorts last
        keys[i] = 0;
        idx[i] = static_cast<int32_t>(V + i);
      }
      __syncthreads();
      SortByP(keys, idx, n);
      if (a.method == SampleMethod::kTopP) {
        // The prefix by p, to the first that reaches the threshold; past the candidates
        // at floor 0, every token (rounding left the prefix short).
        if (tid == 0) {
          double prefix = 0.0;
          int64_t cut = floor_p > 0.0 ? -1 : V;
          for (int64_t j = 0; j < c; ++j) {
            prefix = __dadd_rn(prefix, __longlong_as_double(static_cast<long long>(keys[j])));
            if (prefix >= threshold) {
              cut = j + 1;
              break;
            }
          }
          sn[0] = cut;
        }
        __syncthreads();
        if (sn[0] < 0) continue;
      }
      const int64_t cut = a.method == SampleMethod::kTopP ? sn[0] : a.top_k;
      for (int64_t i = tid; i < V; i += nt) {
        if (p[i] < floor_p) p[i] = -1.0;
      }
      for (int64_t j = cut + tid; j < c; j += nt) p[idx[j]] = -1.0;
      break;
    }
  }
  __syncthreads();

  // 5. total of the kept p, then the walk: the first kept token whose running sum
  // exceeds u * total (the last kept one should rounding leave none above it).
  if (tid == 0) {
    double total = 0.0;
    for (int64_t i = 0; i < V; ++i) {
      if (p[i] >= 0.0) total = __dadd_rn(total, p[i]);
    }
    const double target = __dmul_rn(u, total);
    double running = 0.0;
    int64_t last = -1;
    for (int64_t i = 0; i < V; ++i) {
      const double pi = p[i];
      if (pi < 0.0) continue;
      running = __dadd_rn(running, pi);
      last = i;
      if (running > target) break;
    }
    a.token[r] = last;
  }
}

template <class T, class U>
__global__ void __launch_bounds__(kThreads)
    SampleKernel(const T* __restrict__ logits, const U* __restrict__ uniform, SampleArgs a,
                 int64_t N) {
  for (int64_t r = blockIdx.x; r < N; r += gridDim.x) SampleRow(logits, uniform, a, r);
}

}  // namespace

cudaError_t LaunchSample(DType logits_dtype, DType uniform_dtype, const void* logits,
                         const void* uniform, int64_t* token, int64_t* status, double* p,
                         uint64_t* keys, int32_t* idx, int64_t N, int64_t V, SampleMethod method,
                         double temperature, int64_t top_k, double top_p, double min_p,
                         cudaStream_t stream) {
  if (N == 0) return cudaSuccess;
  SampleArgs a{};
  a.token = token;
  a.status = status;
  a.p = p;
  a.keys = keys;
  a.idx = idx;
  a.V = V;
  a.P = SampleSortLength(V);
  a.method = method;
  a.sorts = SampleSorts(method, top_k, V);
  a.temperature = temperature;
  a.top_k = top_k;
  a.top_p = top_p;
  a.min_p = min_p;
  const unsigned grid = GridForItems(N);
  SY_DISPATCH_FLOAT(
      logits_dtype,
      if (uniform_dtype == DType::kF32) {
        SampleKernel<T, float><<<grid, kThreads, 0, stream>>>(
            static_cast<const T*>(logits), static_cast<const float*>(uniform), a, N);
      } else {
        SampleKernel<T, double><<<grid, kThreads, 0, stream>>>(
            static_cast<const T*>(logits), static_cast<const double*>(uniform), a, N);
      });
  return SY_LAUNCH_RESULT();
}

}  // namespace sy::cuda::kern
