#include "neural.h"

#include "attention_mask.h"
#include "op_common.cuh"

namespace sy::cuda::kern {
namespace {

// ---- attention ----------------------------------------------------------------------------

constexpr int kAttnThreads = 128;  // also the keys per chunk

// One block per query row (b, h, i), keys in chunks of kAttnThreads: one thread per key
// computes its biased score, then the chunk updates a running maximum, sum and output
// accumulator (the online softmax), rescaling what came before by exp(old max - new max).
// A chunk whose keys are all -inf so far is skipped (it contributes nothing); a NaN score
// makes the running maximum NaN and so the row NaN, as the reference's max does; a row
// whose every bias is -inf (or whose biased scores are all -inf) is zeros. Keys the row
// excludes (plugins/common/attention_mask.h) are never read.
template <class T, int kMaskKind>
__device__ typename Num<T>::Acc RowBias(const void* __restrict__ mask, int64_t at, int64_t i,
                                        int64_t j, bool causal) {
  using A = typename Num<T>::Acc;
  A bias = 0;
  if constexpr (kMaskKind == 1) {
    bias = Num<T>::Load(static_cast<const T*>(mask), at);
  } else if constexpr (kMaskKind == 2) {
    bias = static_cast<const uint8_t*>(mask)[at] != 0 ? A(0) : -Infinity<A>();
  }
  return causal && j > i ? -Infinity<A>() : bias;
}

template <class T, int kMaskKind>
__global__ void __launch_bounds__(kAttnThreads)
    AttentionKernel(const T* __restrict__ q, const T* __restrict__ k, const T* __restrict__ v,
                    const void* __restrict__ mask, T* __restrict__ y, AttentionDims dims,
                    typename Num<T>::Acc scale, bool causal) {
  using A = typename Num<T>::Acc;
  extern __shared__ __align__(16) unsigned char smem_raw[];
  A* qs = reinterpret_cast<A*>(smem_raw);  // scale * q row [D]
  A* p = qs + dims.d;                      // the chunk's weights [kAttnThreads]
  A* acc = p + kAttnThreads;               // output accumulator [Dv]
  A* scratch = acc + dims.dv;              // [32]
  const int tid = threadIdx.x;
  const int64_t rows = dims.b * dims.hq * dims.s;
  const int64_t group = dims.hq / dims.hkv;
  for (int64_t row = blockIdx.x; row < rows; row += gridDim.x) {
    const int64_t i = row % dims.s;
    const int64_t h = (row / dims.s) % dims.hq;
    const int64_t b = row / (dims.s * dims.hq);
    const int64_t kvh = h / group;
    const int64_t k_base = (b * dims.hkv + kvh) * dims.t * dims.d;
    const int64_t v_base = (b * dims.hkv + kvh) * dims.t * dims.dv;
    const int64_t mask_row =
        b * dims.mask_strides[0] + h * dims.mask_strides[1] + i * dims.mask_strides[2];
    for (int64_t d = tid; d < dims.d; d += kAttnThreads) {
      qs[d] = scale * Num<T>::Load(q, row * dims.d + d);
    }
    for (int64_t e = tid; e < dims.dv; e += kAttnThreads) acc[e] = 0;
    __syncthreads();
    // Whether some key's bias is above the dominant bound (then fills at or below the
    // excluded bound are excluded).
    int dominant_here = 0;
    for (int64_t j = tid; j < dims.t; j += kAttnThreads) {
      const A bias = RowBias<T, kMaskKind>(mask, mask_row + j * dims.mask_strides[3], i, j, causal);
      if (plugin::AttentionBiasDominates(bias)) dominant_here = 1;
    }
    const bool dominant = __syncthreads_or(dominant_here) != 0;
    A m_run = -Infinity<A>();
    A sum = 0;
    int unmasked = 0;  // this thread saw a key it does not exclude
    for (int64_t j0 = 0; j0 < dims.t; j0 += kAttnThreads) {
      const int64_t j = j0 + tid;
      const bool valid = j < dims.t;
      bool excluded = true;
      A s = -Infinity<A>();
      if (valid) {
        const A bias =
            RowBias<T, kMaskKind>(mask, mask_row + j * dims.mask_strides[3], i, j, causal);
        excluded = plugin::AttentionKeyExcluded(bias, dominant);
        if (!excluded) {
          unmasked = 1;
          A score = 0;  // with D = 0, 0 whatever the scale (as the reference)
          const int64_t kr = k_base + j * dims.d;
          for (int64_t d = 0; d < dims.d; ++d) score += qs[d] * Num<T>::Load(k, kr + d);
          s = score + bias;
        }
      }
      const A chunk_max = BlockReduce(s, MaxNanOp{}, scratch);
      const A m_new = NanMax(m_run, chunk_max);
      if (m_new == -Infinity<A>()) continue;  // the same in every thread
      const A factor = Exp(m_run - m_new);    // 0 while nothing was accumulated
      const A pj = valid && !excluded ? Exp(s - m_new) : A(0);
      // -0 marks an excluded key (exp never gives -0), whose v is not read.
      p[tid] = valid && excluded ? -A(0) : pj;
      sum = sum * factor + BlockReduce(pj, AddOp{}, scratch);
      __syncthreads();  // p complete
      const int64_t keys = dims.t - j0 < kAttnThreads ? dims.t - j0 : kAttnThreads;
      for (int64_t e = tid; e < dims.dv; e += kAttnThreads) {
        A a = acc[e] * factor;
        const T* vr = v + v_base + j0 * dims.dv + e;
        for (int64_t jj = 0; jj < keys; ++jj) {
          if (!signbit(p[jj])) a += p[jj] * Num<T>::Load(vr, jj * dims.dv);
        }
        acc[e] = a;
      }
      __syncthreads();  // p and acc consumed before the next chunk
      m_run = m_new;
    }
    const bool any_unmasked = __syncthreads_or(unmasked) != 0;
    const bool zeros = !any_unmasked || m_run == -Infinity<A>();
    const int64_t y_base = row * dims.dv;
    for (int64_t e = tid; e < dims.dv; e += kAttnThreads) {
      Num<T>::Store(y, y_base + e, zeros ? A(0) : acc[e] / sum);
    }
    __syncthreads();  // before the next row reuses the shared memory
  }
}

template <class T>
cudaError_t AttentionTyped(int mask_kind, const void* q, const void* k, const void* v,
                           const void* mask, void* y, const AttentionDims& dims, double scale,
                           bool causal, cudaStream_t stream) {
  using A = typename Num<T>::Acc;
  const int64_t rows = dims.b * dims.hq * dims.s;
  const unsigned grid = GridForItems(rows);
  const size_t shared =
      AttentionSharedBytes(std::is_same_v<T, double> ? DType::kF64 : DType::kF32, dims.d, dims.dv);
  const T* qt = static_cast<const T*>(q);
  const T* kt = static_cast<const T*>(k);
  const T* vt = static_cast<const T*>(v);
  T* yt = static_cast<T*>(y);
  const A sc = static_cast<A>(scale);
  switch (mask_kind) {
    case 0:
      AttentionKernel<T, 0>
          <<<grid, kAttnThreads, shared, stream>>>(qt, kt, vt, mask, yt, dims, sc, causal);
      break;
    case 1:
      AttentionKernel<T, 1>
          <<<grid, kAttnThreads, shared, stream>>>(qt, kt, vt, mask, yt, dims, sc, causal);
      break;
    default:
      AttentionKernel<T, 2>
          <<<grid, kAttnThreads, shared, stream>>>(qt, kt, vt, mask, yt, dims, sc, causal);
      break;
  }
  return SY_LAUNCH_RESULT();
}

// ---- rotary_embedding ---------------------------------------------------------------------

template <class T>
__global__ void RotaryKernel(const T* __restrict__ x, const T* __restrict__ cosv,
                             const T* __restrict__ sinv, T* __restrict__ y, int64_t count,
                             int64_t seq, int64_t dim, int64_t rotary, bool interleaved) {
  using A = typename Num<T>::Acc;
  const int64_t half = rotary / 2;
  SY_GRID_LOOP(idx, count) {
    const int64_t d = idx % dim;
    if (d >= rotary) {
      Num<T>::Store(y, idx, Num<T>::Load(x, idx));
      continue;
    }
    const int64_t p = (idx / dim) % seq;
    const int64_t row = idx - d;
    bool first;
    int64_t i;
    if (interleaved) {
      i = d / 2;
      first = (d & 1) == 0;
    } else {
      first = d < half;
      i = first ? d : d - half;
    }
    const int64_t i1 = interleaved ? 2 * i : i;
    const int64_t i2 = interleaved ? 2 * i + 1 : i + half;
    const A c = Num<T>::Load(cosv, p * half + i);
    const A s = Num<T>::Load(sinv, p * half + i);
    const A x1 = Num<T>::Load(x, row + i1);
    const A x2 = Num<T>::Load(x, row + i2);
    Num<T>::Store(y, idx, first ? c * x1 - s * x2 : s * x1 + c * x2);
  }
}

// ---- resize -------------------------------------------------------------------------------

template <class T>
__global__ void ResizeKernel(const T* __restrict__ x, T* __restrict__ y, int64_t count, int rank,
                             const int64_t* __restrict__ meta) {
  const int64_t* out_dims = meta;
  const int64_t* in_strides = meta + rank;
  const int64_t* tab_first = meta + 2 * rank;
  const int64_t* table = meta + 3 * rank;
  SY_GRID_LOOP(o, count) {
    const int64_t* entry[8];
    int pick[8];
    int64_t rest = o;
    for (int d = rank - 1; d >= 0; --d) {
      const int64_t q = rest / out_dims[d];
      const int64_t pos = rest - q * out_dims[d];
      rest = q;
      entry[d] = table + (tab_first[d] + pos) * 9;
      pick[d] = 0;
    }
    double sum = -0.0;  // so that a single tap copies -0.0 as it is
    while (true) {
      double w = 1.0;
      int64_t off = 0;
      for (int d = 0; d < rank; ++d) {
        w *= __longlong_as_double(entry[d][5 + pick[d]]);
        off += entry[d][1 + pick[d]] * in_strides[d];
      }
      sum += w * static_cast<double>(Num<T>::Load(x, off));
      int d = rank - 1;
      for (; d >= 0; --d) {
        if (++pick[d] < entry[d][0]) break;
        pick[d] = 0;
      }
      if (d < 0) break;
    }
    Num<T>::StoreD(y, o, sum);
  }
}

// ---- grid_sample --------------------------------------------------------------------------

__device__ inline double Clamp(double v, double lo, double hi) {
  return v < lo ? lo : (hi < v ? hi : v);
}

// op_grid_sample.py's _gs_reflect: v folded into [lo, hi] by reflecting at the bounds.
__device__ inline double GridReflect(double v, double lo, double hi) {
  const double span = hi - lo;
  if (!(span > 0)) return lo;
  if (v >= lo && v <= hi) return v;
  const double dx = v < lo ? lo - v : v - hi;
  const double n = floor(dx / span);
  const double r = Clamp(dx - n * span, 0.0, span);
  const bool even = fmod(n, 2.0) == 0;
  if (v < lo) return even ? lo + r : hi - r;
  return even ? hi - r : lo + r;
}

// Keys' cubic weights of the taps floor(x) - 1 .. floor(x) + 2 (op_resize.py's form).
__device__ inline void CubicCoeffs(double ratio, double a, double c[4]) {
  const double r1 = ratio + 1, q = 1 - ratio, q1 = q + 1;
  c[0] = ((a * r1 - 5 * a) * r1 + 8 * a) * r1 - 4 * a;
  c[1] = ((a + 2) * ratio - (a + 3)) * ratio * ratio + 1;
  c[2] = ((a + 2) * q - (a + 3)) * q * q + 1;
  c[3] = ((a * q1 - 5 * a) * q1 + 8 * a) * q1 - 4 * a;
}

// The taps of a (padded) coordinate along one axis; weight-0 taps are left out.
__device__ inline int GridTaps(int interp, double v, double idx[4], double wt[4]) {
  if (interp == 0) {
    idx[0] = v;
    wt[0] = 1.0;
    return 1;
  }
  const double lo = floor(v);
  const double t = v - lo;
  int n = 0;
  if (interp == 1) {
    if (1 - t != 0) {
      idx[n] = lo;
      wt[n++] = 1 - t;
    }
    if (t != 0) {
      idx[n] = lo + 1;
      wt[n++] = t;
    }
    return n;
  }
  double c[4];
  CubicCoeffs(t, -0.75, c);
  for (int k = 0; k < 4; ++k) {
    if (c[k] != 0) {
      idx[n] = lo - 1 + k;
      wt[n++] = c[k];
    }
  }
  return n;
}

// The element a tap index reads along an axis of `size`, or -1 (zeros padding outside).
__device__ inline int64_t GridElement(double i, int64_t size, int padding, double lo, double hi) {
  const double last = static_cast<double>(size - 1);
  if (i >= 0 && i <= last) return static_cast<int64_t>(i);
  if (padding == 0) return -1;
  if (padding == 1) return i < 0 ? 0 : size - 1;
  const double r = trunc(GridReflect(i, lo, hi));
  return static_cast<int64_t>(Clamp(r, 0.0, last));
}

template <class T>
__global__ void GridSampleKernel(const T* __restrict__ x, const T* __restrict__ grid,
                                 T* __restrict__ y, int64_t count, int64_t channels, int64_t h,
                                 int64_t w, int64_t ho, int64_t wo, int interp, int padding,
                                 bool align) {
  SY_GRID_LOOP(out, count) {
    const int64_t plane_out = ho * wo;
    const int64_t p = out % plane_out;
    const int64_t nc = out / plane_out;
    const int64_t n = nc / channels;
    const int64_t g = (n * plane_out + p) * 2;
    const int64_t sizes[2] = {w, h};
    double idx[2][4], wt[2][4];
    int counts[2];
    bool finite = true;
    for (int a = 0; a < 2; ++a) {
      const double gv = static_cast<double>(Num<T>::Load(grid, g + a));
      if (!isfinite(gv)) {
        finite = false;
        break;
      }
      const double size = static_cast<double>(sizes[a]);
      const double lo = align ? 0.0 : -0.5;
      const double hi = align ? size - 1 : size - 0.5;
      double v = align ? (gv + 1) / 2 * (size - 1) : ((gv + 1) * size - 1) / 2;
      if (interp == 0) v = rint(v);  // half to even
      if (v < lo || v > hi) {
        if (padding == 1) {
          v = Clamp(v, 0.0, size - 1);
        } else if (padding == 2) {
          v = GridReflect(v, lo, hi);
        }
      }
      counts[a] = GridTaps(interp, v, idx[a], wt[a]);
    }
    if (!finite) {
      Num<T>::StoreD(y, out, __longlong_as_double(0x7ff8000000000000LL));
      continue;
    }
    const int64_t base = nc * h * w;
    double sum = -0.0;  // so that nearest copies -0.0 as it is
    for (int ty = 0; ty < counts[1]; ++ty) {
      const double lo_y = align ? 0.0 : -0.5;
      const double hi_y = align ? static_cast<double>(h - 1) : static_cast<double>(h) - 0.5;
      const int64_t iy = GridElement(idx[1][ty], h, padding, lo_y, hi_y);
      for (int tx = 0; tx < counts[0]; ++tx) {
        const double lo_x = align ? 0.0 : -0.5;
        const double hi_x = align ? static_cast<double>(w - 1) : static_cast<double>(w) - 0.5;
        const int64_t ix = GridElement(idx[0][tx], w, padding, lo_x, hi_x);
        const double val =
            iy < 0 || ix < 0 ? 0.0 : static_cast<double>(Num<T>::Load(x, base + iy * w + ix));
        sum += wt[1][ty] * wt[0][tx] * val;
      }
    }
    Num<T>::StoreD(y, out, sum);
  }
}

}  // namespace

cudaError_t LaunchAttention(DType dtype, int mask_kind, const void* q, const void* k, const void* v,
                            const void* mask, void* y, const AttentionDims& dims, double scale,
                            bool causal, cudaStream_t stream) {
  if (dims.b * dims.hq * dims.s * dims.dv == 0) return cudaSuccess;
  SY_DISPATCH_FLOAT(
      dtype, return AttentionTyped<T>(mask_kind, q, k, v, mask, y, dims, scale, causal, stream));
  return cudaErrorInvalidValue;
}

cudaError_t LaunchRotary(DType dtype, const void* x, const void* cos, const void* sin, void* y,
                         int64_t rows, int64_t seq, int64_t dim, int64_t rotary, bool interleaved,
                         cudaStream_t stream) {
  const int64_t count = rows * seq * dim;
  if (count == 0) return cudaSuccess;
  SY_DISPATCH_FLOAT(
      dtype, RotaryKernel<T><<<GridFor(count), kThreads, 0, stream>>>(
                 static_cast<const T*>(x), static_cast<const T*>(cos), static_cast<const T*>(sin),
                 static_cast<T*>(y), count, seq, dim, rotary, interleaved));
  return SY_LAUNCH_RESULT();
}

cudaError_t LaunchResize(DType dtype, const void* x, void* y, int64_t count, int rank,
                         const int64_t* meta, cudaStream_t stream) {
  if (count == 0) return cudaSuccess;
  if (rank > 8) return cudaErrorInvalidValue;
  SY_DISPATCH_FLOAT(dtype, ResizeKernel<T><<<GridFor(count), kThreads, 0, stream>>>(
                               static_cast<const T*>(x), static_cast<T*>(y), count, rank, meta));
  return SY_LAUNCH_RESULT();
}

cudaError_t LaunchGridSample(DType dtype, const void* x, const void* grid, void* y, int64_t n,
                             int64_t c, int64_t h, int64_t w, int64_t ho, int64_t wo, int interp,
                             int padding, bool align_corners, cudaStream_t stream) {
  const int64_t count = n * c * ho * wo;
  if (count == 0) return cudaSuccess;
  SY_DISPATCH_FLOAT(
      dtype, GridSampleKernel<T><<<GridFor(count), kThreads, 0, stream>>>(
                 static_cast<const T*>(x), static_cast<const T*>(grid), static_cast<T*>(y), count,
                 c, h, w, ho, wo, interp, padding, align_corners));
  return SY_LAUNCH_RESULT();
}

}  // namespace sy::cuda::kern
