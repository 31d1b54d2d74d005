#include "conv_pool.h"

#include "op_common.cuh"

namespace sy::cuda::kern {
namespace {

struct Window {
  const int64_t* in;
  const int64_t* out;
  const int64_t* kernel;
  const int64_t* stride;
  const int64_t* pad;  // begins, then ends
  const int64_t* dilation;
};

__device__ inline Window ReadWindow(const int64_t* meta, int s) {
  return {meta, meta + s, meta + 2 * s, meta + 3 * s, meta + 4 * s, meta + 6 * s};
}

// Multi-index of `flat` over dims[s] (row-major) into idx.
__device__ inline void Unflatten(int64_t flat, const int64_t* dims, int s, int64_t* idx) {
  for (int d = s - 1; d >= 0; --d) {
    const int64_t q = flat / dims[d];
    idx[d] = flat - q * dims[d];
    flat = q;
  }
}

// The input offset (within one channel plane) tap t of output o reads, or -1 when it
// lands in the padding.
__device__ inline int64_t TapOffset(const Window& w, int s, const int64_t* pos,
                                    const int64_t* tap) {
  int64_t offset = 0;
  for (int d = 0; d < s; ++d) {
    const int64_t p = pos[d] * w.stride[d] - w.pad[d] + tap[d] * w.dilation[d];
    if (p < 0 || p >= w.in[d]) return -1;
    offset = offset * w.in[d] + p;
  }
  return offset;
}

template <class R>
__global__ void Im2ColKernel(const R* __restrict__ x, R* __restrict__ cols, int64_t total,
                             int64_t channels, int64_t in_count, int64_t taps,
                             int64_t out_count, int s, const int64_t* __restrict__ meta) {
  const Window w = ReadWindow(meta, s);
  SY_GRID_LOOP(i, total) {
    const int64_t o = i % out_count;
    const int64_t row = i / out_count;  // item * channels * taps + c * taps + t
    const int64_t t = row % taps;
    const int64_t ic = row / taps;  // item * channels + c
    int64_t pos[kMaxSpatial], tap[kMaxSpatial];
    Unflatten(o, w.out, s, pos);
    Unflatten(t, w.kernel, s, tap);
    const int64_t off = TapOffset(w, s, pos, tap);
    cols[i] = off < 0 ? R(0) : x[ic * in_count + off];
  }
}

template <class T>
__global__ void BiasFillKernel(const T* __restrict__ bias, T* __restrict__ y, int64_t total,
                               int64_t channels, int64_t plane) {
  SY_GRID_LOOP(i, total) { y[i] = bias[(i / plane) % channels]; }
}

template <class T>
__global__ void ConvDirectKernel(const T* __restrict__ x, const T* __restrict__ wt,
                                 const T* __restrict__ bias, T* __restrict__ y, int64_t total,
                                 int64_t channels, int64_t out_channels, int64_t group,
                                 int64_t in_count, int64_t out_count, int64_t taps, int s,
                                 const int64_t* __restrict__ meta) {
  using A = typename Num<T>::Acc;
  const Window w = ReadWindow(meta, s);
  const int64_t cpg = channels / group;
  const int64_t opg = out_channels / group;
  SY_GRID_LOOP(i, total) {
    const int64_t o = i % out_count;
    const int64_t m = (i / out_count) % out_channels;
    const int64_t nb = i / (out_count * out_channels);
    const int64_t g = m / opg;
    int64_t pos[kMaxSpatial], tap[kMaxSpatial];
    Unflatten(o, w.out, s, pos);
    A acc = bias != nullptr ? Num<T>::Load(bias, m) : A(0);
    for (int64_t t = 0; t < taps; ++t) {
      Unflatten(t, w.kernel, s, tap);
      const int64_t off = TapOffset(w, s, pos, tap);
      if (off < 0) continue;
      for (int64_t c = 0; c < cpg; ++c) {
        acc += Num<T>::Load(x, (nb * channels + g * cpg + c) * in_count + off) *
               Num<T>::Load(wt, (m * cpg + c) * taps + t);
      }
    }
    Num<T>::Store(y, i, acc);
  }
}

// A = f32 or f64 columns; y of T.
template <class T, class A>
__global__ void Col2ImKernel(const A* __restrict__ cols, const T* __restrict__ bias,
                             T* __restrict__ y, int64_t total, int64_t out_channels,
                             int64_t in_count, int64_t taps, int64_t out_count, int s,
                             const int64_t* __restrict__ meta) {
  const Window w = ReadWindow(meta, s);
  SY_GRID_LOOP(i, total) {
    const int64_t p = i % out_count;
    const int64_t nm = i / out_count;  // item * out_channels + m
    const int64_t m = nm % out_channels;
    int64_t pos[kMaxSpatial], tap[kMaxSpatial];
    Unflatten(p, w.out, s, pos);
    A acc = bias != nullptr ? static_cast<A>(Num<T>::Load(bias, m)) : A(0);
    const A* col = cols + nm * taps * in_count;
    for (int64_t t = 0; t < taps; ++t) {
      Unflatten(t, w.kernel, s, tap);
      int64_t offset = 0;
      bool inside = true;
      for (int d = 0; d < s && inside; ++d) {
        const int64_t q = pos[d] + w.pad[d] - tap[d] * w.dilation[d];
        if (q < 0 || q % w.stride[d] != 0) {
          inside = false;
          break;
        }
        const int64_t id = q / w.stride[d];
        inside = id < w.in[d];
        offset = offset * w.in[d] + id;
      }
      if (inside) acc += col[t * in_count + offset];
    }
    Num<T>::Store(y, i, static_cast<typename Num<T>::Acc>(acc));
  }
}

template <class T>
__global__ void PoolKernel(const T* __restrict__ x, T* __restrict__ y, int64_t total,
                           int64_t in_count, int64_t out_count, int s,
                           const int64_t* __restrict__ meta, bool is_max,
                           bool count_include_pad) {
  using A = typename Num<T>::Acc;
  const Window w = ReadWindow(meta, s);
  int64_t taps = 1;
  for (int d = 0; d < s; ++d) taps *= w.kernel[d];
  SY_GRID_LOOP(i, total) {
    const int64_t o = i % out_count;
    const int64_t plane = i / out_count;
    int64_t pos[kMaxSpatial], tap[kMaxSpatial];
    Unflatten(o, w.out, s, pos);
    A best = -Infinity<A>();
    A sum = 0;
    int64_t in_bounds = 0, in_padded = 0;
    for (int64_t t = 0; t < taps; ++t) {
      Unflatten(t, w.kernel, s, tap);
      int64_t offset = 0;
      bool inside = true, inside_padded = true;
      for (int d = 0; d < s; ++d) {
        const int64_t p = pos[d] * w.stride[d] - w.pad[d] + tap[d] * w.dilation[d];
        inside = inside && p >= 0 && p < w.in[d];
        inside_padded = inside_padded && p >= -w.pad[d] && p < w.in[d] + w.pad[s + d];
        if (inside) offset = offset * w.in[d] + p;
      }
      if (inside_padded) ++in_padded;
      if (!inside) continue;
      ++in_bounds;
      const A v = Num<T>::Load(x, plane * in_count + offset);
      if (!IsNan(best) && (IsNan(v) || v > best)) best = v;  // NaN sticks
      sum += v;
    }
    A value = best;
    if (!is_max) {
      const int64_t divisor = count_include_pad ? in_padded : in_bounds;
      value = divisor == 0 ? QuietNan<A>() : sum / static_cast<A>(divisor);
    }
    Num<T>::Store(y, i, value);
  }
}

}  // namespace

cudaError_t LaunchIm2Col(int elem_bytes, const void* x, void* cols, int64_t items,
                         int64_t channels, int64_t in_count, int64_t taps, int64_t out_count,
                         int spatial, const int64_t* meta, cudaStream_t stream) {
  const int64_t total = items * channels * taps * out_count;
  if (total == 0) return cudaSuccess;
  if (spatial < 1 || spatial > kMaxSpatial) return cudaErrorInvalidValue;
  SY_DISPATCH_RAW(elem_bytes, Im2ColKernel<T><<<GridFor(total), kThreads, 0, stream>>>(
                                  static_cast<const T*>(x), static_cast<T*>(cols), total,
                                  channels, in_count, taps, out_count, spatial, meta));
  return SY_LAUNCH_RESULT();
}

cudaError_t LaunchBiasFill(DType dtype, const void* bias, void* y, int64_t batch,
                           int64_t channels, int64_t plane, cudaStream_t stream) {
  const int64_t total = batch * channels * plane;
  if (total == 0) return cudaSuccess;
  SY_DISPATCH_RAW(static_cast<int>(DTypeSize(dtype)),
                  BiasFillKernel<T><<<GridFor(total), kThreads, 0, stream>>>(
                      static_cast<const T*>(bias), static_cast<T*>(y), total, channels, plane));
  return SY_LAUNCH_RESULT();
}

cudaError_t LaunchConvDirect(DType dtype, const void* x, const void* w, const void* bias,
                             void* y, int64_t batch, int64_t channels, int64_t out_channels,
                             int64_t group, int64_t in_count, int64_t out_count, int64_t taps,
                             int spatial, const int64_t* meta, cudaStream_t stream) {
  const int64_t total = batch * out_channels * out_count;
  if (total == 0) return cudaSuccess;
  if (spatial < 1 || spatial > kMaxSpatial) return cudaErrorInvalidValue;
  SY_DISPATCH_FLOAT(dtype, ConvDirectKernel<T><<<GridFor(total), kThreads, 0, stream>>>(
                               static_cast<const T*>(x), static_cast<const T*>(w),
                               static_cast<const T*>(bias), static_cast<T*>(y), total, channels,
                               out_channels, group, in_count, out_count, taps, spatial, meta));
  return SY_LAUNCH_RESULT();
}

cudaError_t LaunchCol2Im(DType dtype, const void* cols, const void* bias, void* y,
                         int64_t items, int64_t out_channels, int64_t in_count, int64_t taps,
                         int64_t out_count, int spatial, const int64_t* meta,
                         cudaStream_t stream) {
  const int64_t total = items * out_channels * out_count;
  if (total == 0) return cudaSuccess;
  if (spatial < 1 || spatial > kMaxSpatial) return cudaErrorInvalidValue;
  SY_DISPATCH_FLOAT(
      dtype, using A = std::conditional_t<std::is_same_v<T, double>, double, float>;
      Col2ImKernel<T, A><<<GridFor(total), kThreads, 0, stream>>>(
          static_cast<const A*>(cols), static_cast<const T*>(bias), static_cast<T*>(y), total,
          out_channels, in_count, taps, out_count, spatial, meta));
  return SY_LAUNCH_RESULT();
}

cudaError_t LaunchPool(DType dtype, bool is_max, bool count_include_pad, const void* x, void* y,
                       int64_t planes, int64_t in_count, int64_t out_count, int spatial,
                       const int64_t* meta, cudaStream_t stream) {
  const int64_t total = planes * out_count;
  if (total == 0) return cudaSuccess;
  if (spatial < 1 || spatial > kMaxSpatial) return cudaErrorInvalidValue;
  SY_DISPATCH_FLOAT(dtype, PoolKernel<T><<<GridFor(total), kThreads, 0, stream>>>(
                               static_cast<const T*>(x), static_cast<T*>(y), total, in_count,
                               out_count, spatial, meta, is_max, count_include_pad));
  return SY_LAUNCH_RESULT();
}

}  // namespace sy::cuda::kern
