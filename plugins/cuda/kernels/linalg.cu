#include "linalg.h"

#include "op_common.cuh"

namespace sy::cuda::kern {
namespace {

template <class T>
__global__ void IntMatmulKernel(const T* __restrict__ a, const T* __restrict__ b,
                                T* __restrict__ y, int64_t m, int64_t n, int64_t k,
                                int64_t total, const int64_t* __restrict__ offsets) {
  SY_GRID_LOOP(i, total) {
    const int64_t mn = m * n;
    const int64_t bi = i / mn;
    const int64_t rem = i - bi * mn;
    const int64_t row = rem / n;
    const int64_t col = rem - row * n;
    const T* pa = a + offsets[2 * bi] + row * k;
    const T* pb = b + offsets[2 * bi + 1] + col;
    uint64_t acc = 0;  // wraps modulo 2^64 like the reference
    for (int64_t l = 0; l < k; ++l) {
      acc += static_cast<uint64_t>(static_cast<int64_t>(pa[l])) *
             static_cast<uint64_t>(static_cast<int64_t>(pb[l * n]));
    }
    y[i] = static_cast<T>(acc);
  }
}

__global__ void GemmPointersKernel(const char* a, const char* b, char* y, int ab_bytes,
                                   int y_bytes, const int64_t* __restrict__ offsets,
                                   int64_t batches, int64_t y_stride, void** ptrs) {
  SY_GRID_LOOP(bi, batches) {
    ptrs[bi] = const_cast<char*>(a + offsets[2 * bi] * ab_bytes);
    ptrs[batches + bi] = const_cast<char*>(b + offsets[2 * bi + 1] * ab_bytes);
    ptrs[2 * batches + bi] = y + bi * y_stride * y_bytes;
  }
}

template <class T>
__global__ void BroadcastScaleKernel(const T* __restrict__ c, T* __restrict__ y, int64_t n,
                                     int rank, const int64_t* __restrict__ meta,
                                     typename Num<T>::Acc scale) {
  SY_GRID_LOOP(i, n) {
    const int64_t off = StridedOffset(i, rank, meta, meta + rank);
    Num<T>::Store(y, i, scale * Num<T>::Load(c, off));
  }
}

}  // namespace

cudaError_t LaunchIntMatmul(DType dtype, const void* a, const void* b, void* y, int64_t m,
                            int64_t n, int64_t k, int64_t batches, const int64_t* offsets,
                            cudaStream_t stream) {
  const int64_t total = m * n * batches;
  if (total == 0) return cudaSuccess;
  SY_DISPATCH_INT(dtype, IntMatmulKernel<T><<<GridFor(total), kThreads, 0, stream>>>(
                             static_cast<const T*>(a), static_cast<const T*>(b),
                             static_cast<T*>(y), m, n, k, total, offsets));
  return SY_LAUNCH_RESULT();
}

cudaError_t LaunchGemmPointers(const void* a, const void* b, void* y, int ab_elem_bytes,
                               int y_elem_bytes, const int64_t* offsets, int64_t batches,
                               int64_t y_stride, void** ptrs, cudaStream_t stream) {
  if (batches == 0) return cudaSuccess;
  GemmPointersKernel<<<GridFor(batches), kThreads, 0, stream>>>(
      static_cast<const char*>(a), static_cast<const char*>(b), static_cast<char*>(y),
      ab_elem_bytes, y_elem_bytes, offsets, batches, y_stride, ptrs);
  return SY_LAUNCH_RESULT();
}

cudaError_t LaunchBroadcastScale(DType dtype, const void* c, void* y, int64_t n, int rank,
                                 const int64_t* meta, double scale, cudaStream_t stream) {
  if (n == 0) return cudaSuccess;
  SY_DISPATCH_FLOAT(dtype, BroadcastScaleKernel<T><<<GridFor(n), kThreads, 0, stream>>>(
                               static_cast<const T*>(c), static_cast<T*>(y), n, rank, meta,
                               static_cast<typename Num<T>::Acc>(scale)));
  return SY_LAUNCH_RESULT();
}

}  // namespace sy::cuda::kern
