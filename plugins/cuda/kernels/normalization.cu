#include "normalization.h"

#include "op_common.cuh"

namespace sy::cuda::kern {
namespace {

// Threads cooperating on one row: one per row when rows are strided (neighbouring rows
// are neighbours in memory), a warp for short contiguous rows, a block for long ones.
int RowTeam(int64_t n, int64_t inner) {
  if (inner > 1) return 1;
  return n <= 1024 ? 32 : 256;
}

// ---- softmax, log_softmax -----------------------------------------------------------------

template <class T, int kTeam>
__global__ void __launch_bounds__(256)
    SoftmaxKernel(const T* __restrict__ x, T* __restrict__ y, int64_t lines, int64_t n,
                  int64_t inner, bool log) {
  using A = typename Num<T>::Acc;
  __shared__ A scratch[32];
  const int64_t tid = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  const int lane = static_cast<int>(threadIdx.x % kTeam);
  const int64_t teams = static_cast<int64_t>(gridDim.x) * blockDim.x / kTeam;
  for (int64_t line = tid / kTeam; line < lines; line += teams) {
    const int64_t o = line / inner;
    const int64_t base = o * n * inner + (line - o * inner);
    // The row's maximum, NaN if any is NaN (np.max); -inf for an all -inf row.
    A m = -Infinity<A>();
    for (int64_t k = lane; k < n; k += kTeam) m = NanMax(m, Num<T>::Load(x, base + k * inner));
    m = TeamAllReduce<kTeam>(m, MaxNanOp{}, scratch);
    A sum = 0;
    for (int64_t k = lane; k < n; k += kTeam) sum += Exp(Num<T>::Load(x, base + k * inner) - m);
    sum = TeamAllReduce<kTeam>(sum, AddOp{}, scratch);
    const A log_sum = Log(sum);
    for (int64_t k = lane; k < n; k += kTeam) {
      const A shifted = Num<T>::Load(x, base + k * inner) - m;
      Num<T>::Store(y, base + k * inner, log ? shifted - log_sum : Exp(shifted) / sum);
    }
  }
}

template <class T>
cudaError_t SoftmaxTyped(bool log, const void* x, void* y, int64_t outer, int64_t n, int64_t inner,
                         cudaStream_t stream) {
  const int64_t lines = outer * inner;
  const int team = RowTeam(n, inner);
  const unsigned grid = GridFor(lines * team, 256);
  const T* xt = static_cast<const T*>(x);
  T* yt = static_cast<T*>(y);
  if (team == 1) {
    SoftmaxKernel<T, 1><<<grid, 256, 0, stream>>>(xt, yt, lines, n, inner, log);
  } else if (team == 32) {
    SoftmaxKernel<T, 32><<<grid, 256, 0, stream>>>(xt, yt, lines, n, inner, log);
  } else {
    SoftmaxKernel<T, 256><<<grid, 256, 0, stream>>>(xt, yt, lines, n, inner, log);
  }
  return SY_LAUNCH_RESULT();
}

// ---- layer_norm, rms_norm -----------------------------------------------------------------

template <class T, int kTeam>
__global__ void __launch_bounds__(256)
    AxisNormKernel(const T* __restrict__ x, const T* __restrict__ scale, const T* __restrict__ bias,
                   T* __restrict__ y, int64_t outer, int64_t n, int rank,
                   const int64_t* __restrict__ meta, typename Num<T>::Acc eps, bool rms) {
  using A = typename Num<T>::Acc;
  __shared__ A scratch[32];
  const int64_t tid = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  const int lane = static_cast<int>(threadIdx.x % kTeam);
  const int64_t teams = static_cast<int64_t>(gridDim.x) * blockDim.x / kTeam;
  const int64_t* dims = meta;
  const int64_t* scale_strides = meta + rank;
  const int64_t* bias_strides = meta + 2 * rank;
  for (int64_t row = tid / kTeam; row < outer; row += teams) {
    const int64_t base = row * n;
    A mean = 0;
    if (!rms) {
      A sum = 0;
      for (int64_t k = lane; k < n; k += kTeam) sum += Num<T>::Load(x, base + k);
      mean = TeamAllReduce<kTeam>(sum, AddOp{}, scratch) / static_cast<A>(n);
    }
    A var = 0;  // mean((x - mean)^2), or mean(x^2) for rms_norm
    for (int64_t k = lane; k < n; k += kTeam) {
      const A d = Num<T>::Load(x, base + k) - mean;
      var += d * d;
    }
    var = TeamAllReduce<kTeam>(var, AddOp{}, scratch) / static_cast<A>(n);
    const A inv = A(1) / Sqrt(var + eps);
    for (int64_t k = lane; k < n; k += kTeam) {
      A v = (Num<T>::Load(x, base + k) - mean) * inv *
            Num<T>::Load(scale, StridedOffset(k, rank, dims, scale_strides));
      if (bias != nullptr) v += Num<T>::Load(bias, StridedOffset(k, rank, dims, bias_strides));
      Num<T>::Store(y, base + k, v);
    }
  }
}

template <class T>
cudaError_t AxisNormTyped(bool rms, const void* x, const void* scale, const void* bias, void* y,
                          int64_t outer, int64_t n, int rank, const int64_t* meta, double eps,
                          cudaStream_t stream) {
  using A = typename Num<T>::Acc;
  const int team = RowTeam(n, 1);
  const unsigned grid = GridFor(outer * team, 256);
  const T* xt = static_cast<const T*>(x);
  const T* st = static_cast<const T*>(scale);
  const T* bt = static_cast<const T*>(bias);
  T* yt = static_cast<T*>(y);
  if (team == 32) {
    AxisNormKernel<T, 32>
        <<<grid, 256, 0, stream>>>(xt, st, bt, yt, outer, n, rank, meta, static_cast<A>(eps), rms);
  } else {
    AxisNormKernel<T, 256>
        <<<grid, 256, 0, stream>>>(xt, st, bt, yt, outer, n, rank, meta, static_cast<A>(eps), rms);
  }
  return SY_LAUNCH_RESULT();
}

// ---- batch_norm ---------------------------------------------------------------------------

template <class T>
__global__ void BatchNormKernel(const T* __restrict__ x, const T* __restrict__ scale,
                                const T* __restrict__ bias, const T* __restrict__ mean,
                                const T* __restrict__ var, T* __restrict__ y, int64_t count,
                                int64_t channels, int64_t spatial, typename Num<T>::Acc eps) {
  using A = typename Num<T>::Acc;
  SY_GRID_LOOP(i, count) {
    const int64_t c = (i / spatial) % channels;
    const A inv = A(1) / Sqrt(Num<T>::Load(var, c) + eps);
    const A v = (Num<T>::Load(x, i) - Num<T>::Load(mean, c)) * inv * Num<T>::Load(scale, c) +
                Num<T>::Load(bias, c);
    Num<T>::Store(y, i, v);
  }
}

// ---- group_norm, instance_norm ------------------------------------------------------------

template <class T, int kTeam>
__global__ void __launch_bounds__(256)
    GroupNormKernel(const T* __restrict__ x, const T* __restrict__ scale,
                    const T* __restrict__ bias, T* __restrict__ y, int64_t rows, int64_t groups,
                    int64_t cpg, int64_t spatial, typename Num<T>::Acc eps) {
  using A = typename Num<T>::Acc;
  __shared__ A scratch[32];
  const int64_t tid = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  const int lane = static_cast<int>(threadIdx.x % kTeam);
  const int64_t teams = static_cast<int64_t>(gridDim.x) * blockDim.x / kTeam;
  const int64_t size = cpg * spatial;
  for (int64_t row = tid / kTeam; row < rows; row += teams) {
    const int64_t g = row % groups;
    const int64_t base = row * size;
    A sum = 0;
    for (int64_t k = lane; k < size; k += kTeam) sum += Num<T>::Load(x, base + k);
    const A mean = TeamAllReduce<kTeam>(sum, AddOp{}, scratch) / static_cast<A>(size);
    A var = 0;
    for (int64_t k = lane; k < size; k += kTeam) {
      const A d = Num<T>::Load(x, base + k) - mean;
      var += d * d;
    }
    var = TeamAllReduce<kTeam>(var, AddOp{}, scratch) / static_cast<A>(size);
    const A inv = A(1) / Sqrt(var + eps);
    for (int64_t k = lane; k < size; k += kTeam) {
      const int64_t c = g * cpg + k / spatial;
      Num<T>::Store(y, base + k,
                    (Num<T>::Load(x, base + k) - mean) * inv * Num<T>::Load(scale, c) +
                        Num<T>::Load(bias, c));
    }
  }
}

}  // namespace

cudaError_t LaunchSoftmax(DType dtype, bool log, const void* x, void* y, int64_t outer, int64_t n,
                          int64_t inner, cudaStream_t stream) {
  if (outer * inner == 0 || n == 0) return cudaSuccess;
  SY_DISPATCH_FLOAT(dtype, return SoftmaxTyped<T>(log, x, y, outer, n, inner, stream));
  return cudaErrorInvalidValue;
}

cudaError_t LaunchAxisNorm(DType dtype, bool rms, const void* x, const void* scale,
                           const void* bias, void* y, int64_t outer, int64_t n, int rank,
                           const int64_t* meta, double eps, cudaStream_t stream) {
  if (outer == 0 || n == 0) return cudaSuccess;
  SY_DISPATCH_FLOAT(
      dtype, return AxisNormTyped<T>(rms, x, scale, bias, y, outer, n, rank, meta, eps, stream));
  return cudaErrorInvalidValue;
}

cudaError_t LaunchBatchNorm(DType dtype, const void* x, const void* scale, const void* bias,
                            const void* mean, const void* var, void* y, int64_t count,
                            int64_t channels, int64_t spatial, double eps, cudaStream_t stream) {
  if (count == 0) return cudaSuccess;
  SY_DISPATCH_FLOAT(dtype, BatchNormKernel<T><<<GridFor(count), kThreads, 0, stream>>>(
                               static_cast<const T*>(x), static_cast<const T*>(scale),
                               static_cast<const T*>(bias), static_cast<const T*>(mean),
                               static_cast<const T*>(var), static_cast<T*>(y), count, channels,
                               spatial, static_cast<typename Num<T>::Acc>(eps)));
  return SY_LAUNCH_RESULT();
}

cudaError_t LaunchGroupNorm(DType dtype, const void* x, const void* scale, const void* bias,
                            void* y, int64_t rows, int64_t groups, int64_t cpg, int64_t spatial,
                            double eps, cudaStream_t stream) {
  const int64_t size = cpg * spatial;
  if (rows == 0 || size == 0) return cudaSuccess;
  const int team = size <= 1024 ? 32 : 256;
  const unsigned grid = GridFor(rows * team, 256);
  SY_DISPATCH_FLOAT(
      dtype, using A = typename Num<T>::Acc; if (team == 32) {
        GroupNormKernel<T, 32><<<grid, 256, 0, stream>>>(
            static_cast<const T*>(x), static_cast<const T*>(scale), static_cast<const T*>(bias),
            static_cast<T*>(y), rows, groups, cpg, spatial, static_cast<A>(eps));
      } else {
        GroupNormKernel<T, 256><<<grid, 256, 0, stream>>>(
            static_cast<const T*>(x), static_cast<const T*>(scale), static_cast<const T*>(bias),
            static_cast<T*>(y), rows, groups, cpg, spatial, static_cast<A>(eps));
      });
  return SY_LAUNCH_RESULT();
}

}  // namespace sy::cuda::kern
