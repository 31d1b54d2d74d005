// Fast quant_matmul for f32 activations (f16 reaches it through half_as_f32.h): the
// weights stay packed, as seed 000 asks, and are dequantized inside the kernel.
//
// Two paths, by the number of rows of `a` (tokens, in a decoder):
// - Few rows (decoding, kFusedMaxRows or fewer): each output y[r, n] is one pass over
//   weight row n's blocks, each block's codes unpacked to floats in registers, less its
//   zero point, dotted with a's block and scaled once per block. Memory traffic is the
//   packed weights (0.5 or 1 byte a weight) and nothing else. Outputs are split over the
//   threads by weight row, so a result does not depend on the split.
// - More rows (a prompt): weight rows are dequantized tile by tile into an f32 scratch
//   buffer (split over the threads) and each tile multiplied on OpenBLAS's sgemm, so
//   the arithmetic runs at sgemm's speed and the scratch stays a few MiB whatever the
//   layer's size.
// Other dtypes, and buffers not aligned for floats, go to the reference kernel.
#include <cblas.h>

#include <algorithm>
#include <cstdint>
#include <limits>
#include <new>
#include <string>
#include <vector>

#if defined(__x86_64__) && defined(__GNUC__)
#include <immintrin.h>
#define SY_QUANT_MATMUL_AVX2 1
#endif

#include "fast/fast_kernels.h"
#include "fast/vec_math.h"
#include "ref/ref_kernels.h"
#include "thread_pool.h"

namespace sy::cpu {
namespace {

// Rows of `a` up to which the fused path runs; above it, dequantized tiles on sgemm. The
// fused path unpacks every block once per row, so its cost grows with the rows where the
// tile path's unpacking does not.
constexpr int64_t kFusedMaxRows = 4;
// Bytes of f32 weights one dequantized tile holds (the tile path's scratch).
constexpr int64_t kTileBytes = int64_t{4} << 20;

// The packed weights of one quant_matmul call, as the schema lays them out (docs/ops.md).
struct PackedWeights {
  const uint8_t* codes;        // [n, n_blocks, block_bytes]
  const float* scales;         // [n, n_blocks]
  const uint8_t* zero_points;  // [n, n_blocks] or nullptr: 2^(bits - 1)
  int64_t n, k, n_blocks, block_bytes, block_size, bits;

  float Zero(int64_t row, int64_t block) const {
    return zero_points ? static_cast<float>(zero_points[row * n_blocks + block])
                       : static_cast<float>(int64_t{1} << (bits - 1));
  }
  const uint8_t* Block(int64_t row, int64_t block) const {
    return codes + (row * n_blocks + block) * block_bytes;
  }
  int64_t Code(const uint8_t* block, int64_t at) const {
    return bits == 8 ? block[at] : (block[at / 2] >> (4 * (at % 2))) & 0xF;
  }
};

// sum over the block's first `count` codes of (code - zero) * a[i], in float.
float DotBlockScalar(const PackedWeights& w, const uint8_t* block, float zero, const float* a,
                     int64_t count) {
  float acc = 0.0f;
  for (int64_t i = 0; i < count; ++i) acc += (static_cast<float>(w.Code(block, i)) - zero) * a[i];
  return acc;
}

#ifdef SY_QUANT_MATMUL_AVX2
inline float HorizontalSum(__m256 v) __attribute__((target("avx2,fma")));
inline float HorizontalSum(__m256 v) {
  const __m128 s = _mm_add_ps(_mm256_castps256_ps128(v), _mm256_extractf128_ps(v, 1));
  const __m128 t = _mm_add_ps(s, _mm_movehl_ps(s, s));
  return _mm_cvtss_f32(_mm_add_ss(t, _mm_shuffle_ps(t, t, 1)));
}

// DotBlockScalar for count a multiple of 16, 16 codes a step: 8 bytes (bits 4) or 16
// (bits 8) widened to two vectors of 8 floats.
__attribute__((target("avx2,fma"))) float DotBlockAvx2(const PackedWeights& w, const uint8_t* block,
                                                       float zero, const float* a, int64_t count) {
  const __m256 z = _mm256_set1_ps(zero);
  __m256 acc0 = _mm256_setzero_ps();
  __m256 acc1 = _mm256_setzero_ps();
  for (int64_t i = 0; i < count; i += 16) {
    __m128i codes;
    if (w.bits == 4) {
      const __m128i packed = _mm_loadl_epi64(reinterpret_cast<const __m128i*>(block + i / 2));
      const __m128i mask = _mm_set1_epi8(0x0F);
      const __m128i lo = _mm_and_si128(packed, mask);
      const __m128i hi = _mm_and_si128(_mm_srli_epi16(packed, 4), mask);
      codes = _mm_unpacklo_epi8(lo, hi);  // code 2j from the low nibble, 2j + 1 the high
    } else {
      codes = _mm_loadu_si128(reinterpret_cast<const __m128i*>(block + i));
    }
    const __m256 f0 = _mm256_sub_ps(_mm256_cvtepi32_ps(_mm256_cvtepu8_epi32(codes)), z);
    const __m256 f1 =
        _mm256_sub_ps(_mm256_cvtepi32_ps(_mm256_cvtepu8_epi32(_mm_srli_si128(codes, 8))), z);
    acc0 = _mm256_fmadd_ps(f0, _mm256_loadu_ps(a + i), acc0);
    acc1 = _mm256_fmadd_ps(f1, _mm256_loadu_ps(a + i + 8), acc1);
  }
  return HorizontalSum(_mm256_add_ps(acc0, acc1));
}

bool HasAvx2() {
  static const bool has = [] {
    __builtin_cpu_init();
    return __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
  }();
  return has;
}
#endif

// y[r, j] for rows r of a and weight rows [j0, j1): the fused path.
void FusedRows(const PackedWeights& w, const float* a, int64_t rows, float* y, int64_t j0,
               int64_t j1) {
#ifdef SY_QUANT_MATMUL_AVX2
  const bool avx2 = HasAvx2();
#else
  const bool avx2 = false;
#endif
  for (int64_t j = j0; j < j1; ++j) {
    for (int64_t r = 0; r < rows; ++r) {
      const float* a_row = a + r * w.k;
      float sum = 0.0f;
      for (int64_t blk = 0; blk < w.n_blocks; ++blk) {
        const int64_t start = blk * w.block_size;
        const int64_t count = std::min(w.block_size, w.k - start);
        const uint8_t* block = w.Block(j, blk);
        const float zero = w.Zero(j, blk);
        float dot;
#ifdef SY_QUANT_MATMUL_AVX2
        if (avx2 && count == w.block_size) {
          dot = DotBlockAvx2(w, block, zero, a_row + start, count);
        } else {
          dot = DotBlockScalar(w, block, zero, a_row + start, count);
        }
#else
        (void)avx2;
        dot = DotBlockScalar(w, block, zero, a_row + start, count);
#endif
        sum += dot * w.scales[j * w.n_blocks + blk];
      }
      y[r * w.n + j] = sum;
    }
  }
}

// Weight row j dequantized into out[0, k).
SY_CPU_ISA_CLONES void DequantizeRow(const PackedWeights& w, int64_t j, float* out) {
  for (int64_t blk = 0; blk < w.n_blocks; ++blk) {
    const int64_t start = blk * w.block_size;
    const int64_t count = std::min(w.block_size, w.k - start);
    const uint8_t* block = w.Block(j, blk);
    const float zero = w.Zero(j, blk);
    const float scale = w.scales[j * w.n_blocks + blk];
    float* o = out + start;
    if (w.bits == 8) {
      for (int64_t i = 0; i < count; ++i) o[i] = (static_cast<float>(block[i]) - zero) * scale;
    } else {
      for (int64_t i = 0; i + 1 < count; i += 2) {
        const uint8_t byte = block[i / 2];
        o[i] = (static_cast<float>(byte & 0xF) - zero) * scale;
        o[i + 1] = (static_cast<float>(byte >> 4) - zero) * scale;
      }
      if (count % 2 == 1)
        o[count - 1] = (static_cast<float>(block[count / 2] & 0xF) - zero) * scale;
    }
  }
}

Status QuantMatmulFast(const KernelContext& ctx) {
  const ConstTensorView& a = ctx.inputs[0];
  const ConstTensorView& b = ctx.inputs[1];
  const ConstTensorView& scales = ctx.inputs[2];
  const TensorView& y = ctx.outputs[0];
  const int64_t k = a.shape().back();
  const int64_t n = b.shape()[0];
  const bool takes = a.dtype() == DType::kF32 && scales.dtype() == DType::kF32 &&
                     fast::IsF32Aligned(a.data) && fast::IsF32Aligned(scales.data) &&
                     fast::IsF32Aligned(y.data) && k > 0 && k <= std::numeric_limits<int>::max() &&
                     n <= std::numeric_limits<int>::max() &&
                     y.count() / std::max<int64_t>(n, 1) <= std::numeric_limits<int>::max();
  if (!takes) {
    const KernelFn ref = RefKernels().Find(ctx.op);
    if (ref == nullptr) return Internal("no reference kernel for op " + std::string(ctx.op));
    return ref(ctx);
  }
  if (y.count() == 0) return Status::Ok();
  const PackedWeights w{
      reinterpret_cast<const uint8_t*>(b.data),
      reinterpret_cast<const float*>(scales.data),
      ctx.inputs.size() > 3 ? reinterpret_cast<const uint8_t*>(ctx.inputs[3].data) : nullptr,
      n,
      k,
      b.shape()[1],
      b.shape()[2],
      ctx.attrs.GetInt("block_size", 32),
      ctx.attrs.GetInt("bits", 4)};
  const auto* x = reinterpret_cast<const float*>(a.data);
  auto* out = reinterpret_cast<float*>(y.data);
  const int64_t rows = y.count() / n;
  ThreadPool* pool = ctx.pool;
  const auto parallel_for = [pool](int64_t count, int64_t grain, auto&& fn) {
    if (pool != nullptr) {
      pool->ParallelFor(count, grain, fn);
    } else {
      fn(int64_t{0}, count);
    }
  };
  if (rows <= kFusedMaxRows) {
    parallel_for(n, fast::RowGrain(fast::kCheapGrain, k * rows),
                 [&](int64_t j0, int64_t j1) { FusedRows(w, x, rows, out, j0, j1); });
    return Status::Ok();
  }
  const int64_t tile_rows = std::clamp<int64_t>(kTileBytes / (k * 4), 16, n);
  std::vector<float> tile;
  try {
    tile.resize(static_cast<size_t>(tile_rows * k));
  } catch (const std::bad_alloc&) {
    return ResourceExhausted("quant_matmul: no memory for a dequantized tile of " +
                             std::to_string(tile_rows) + " x " + std::to_string(k) + " floats");
  }
  for (int64_t j0 = 0; j0 < n; j0 += tile_rows) {
    const int64_t count = std::min(tile_rows, n - j0);
    parallel_for(count, fast::RowGrain(fast::kCheapGrain, k), [&](int64_t t0, int64_t t1) {
      for (int64_t t = t0; t < t1; ++t) DequantizeRow(w, j0 + t, tile.data() + t * k);
    });
    // y[:, j0 : j0 + count] = a [rows, k] x tile^T.
    cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasTrans, static_cast<blasint>(rows),
                static_cast<blasint>(count), static_cast<blasint>(k), 1.0f, x,
                static_cast<blasint>(k), tile.data(), static_cast<blasint>(k), 0.0f, out + j0,
                static_cast<blasint>(n));
  }
  return Status::Ok();
}

}  // namespace

void AddQuantMatmulFastKernels(KernelTable& table) { table.Add("quant_matmul", QuantMatmulFast); }

}  // namespace sy::cpu
