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
#include <cstring>
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

// The codes of weight row j from code `begin` to K, each times its block's scale after
// its zero point is taken off, dotted with a_row[begin, K): the scalar path, and the
// vector path's tail.
float DotScalar(const PackedWeights& w, int64_t j, const float* a_row, int64_t begin) {
  float sum = 0.0f;
  for (int64_t blk = begin / w.block_size; blk < w.n_blocks; ++blk) {
    const int64_t start = std::max(blk * w.block_size, begin);
    const int64_t end = std::min((blk + 1) * w.block_size, w.k);
    if (start >= end) continue;
    const uint8_t* block = w.Block(j, blk);
    const float zero = w.Zero(j, blk);
    float dot = 0.0f;
    for (int64_t l = start; l < end; ++l) {
      dot += (static_cast<float>(w.Code(block, l - blk * w.block_size)) - zero) * a_row[l];
    }
    sum += dot * w.scales[j * w.n_blocks + blk];
  }
  return sum;
}

// The vector path reads a weight row 32 bytes (8 lanes of 32 bits) at a time: a chunk of
// 64 4-bit codes or 32 8-bit ones, each lane holding kPerLane consecutive codes. Code i of
// every lane comes out of one shift and one mask, with no shuffle; `a` is laid out once
// per call to match (LaneLayout), so that vector i of a chunk meets a's elements
// {lane * kPerLane + i}. A weight row's codes are contiguous across blocks (a block is
// block_size * bits / 8 bytes and the last one is padded), so chunk c is bytes
// [32c, 32c + 32) of the row.
struct LaneLayout {
  bool vector = false;      // laid out (the CPU runs AVX2)
  int64_t per_lane = 0;     // codes a 32-bit lane holds: 8 (4 bits) or 4 (8 bits)
  int64_t chunk = 0;        // codes a chunk holds: 8 * per_lane
  int64_t chunks = 0;       // chunks wholly inside K (the rest is the scalar tail)
  std::vector<float> a;     // [rows, K]: a permuted as above over whole chunks, then as is
  std::vector<float> sums;  // [rows, chunks * 8]: per lane, the sum of its a elements
};

LaneLayout LayOut(const PackedWeights& w, const float* a, int64_t rows) {
  LaneLayout l;
  l.vector = true;
  l.per_lane = 32 / w.bits;
  l.chunk = 8 * l.per_lane;
  l.chunks = w.k / l.chunk;
  const int64_t span = l.chunks * l.chunk;
  l.a.resize(static_cast<size_t>(rows * w.k));
  l.sums.assign(static_cast<size_t>(rows * l.chunks * 8), 0.0f);
  for (int64_t r = 0; r < rows; ++r) {
    for (int64_t c = 0; c < l.chunks; ++c) {
      for (int64_t lane = 0; lane < 8; ++lane) {
        for (int64_t i = 0; i < l.per_lane; ++i) {
          const float v = a[r * w.k + c * l.chunk + lane * l.per_lane + i];
          l.a[static_cast<size_t>(r * w.k + c * l.chunk + i * 8 + lane)] = v;
          l.sums[static_cast<size_t>((r * l.chunks + c) * 8 + lane)] += v;
        }
      }
    }
    for (int64_t p = span; p < w.k; ++p) l.a[static_cast<size_t>(r * w.k + p)] = a[r * w.k + p];
  }
  return l;
}

#ifdef SY_QUANT_MATMUL_AVX2
inline float HorizontalSum(__m256 v) __attribute__((target("avx2,fma")));
inline float HorizontalSum(__m256 v) {
  const __m128 s = _mm_add_ps(_mm256_castps256_ps128(v), _mm256_extractf128_ps(v, 1));
  const __m128 t = _mm_add_ps(s, _mm_movehl_ps(s, s));
  return _mm_cvtss_f32(_mm_add_ss(t, _mm_shuffle_ps(t, t, 1)));
}

// What every chunk of one call shares: lane L's block within its chunk (a chunk covers
// 64 / block_size blocks of 4-bit codes, or 32 / block_size of 8-bit ones, when
// block_size is smaller, else lies in one block) and the default zero point.
struct LaneBlocks {
  int64_t blocks;      // blocks a chunk covers (1, 2 or 4)
  __m256i lane_block;  // lane L -> L * per_lane / block_size
  __m256 default_zero;
};

inline LaneBlocks LaneBlocksOf(const PackedWeights& w, const LaneLayout& l)
    __attribute__((target("avx2,fma")));
inline LaneBlocks LaneBlocksOf(const PackedWeights& w, const LaneLayout& l) {
  LaneBlocks b;
  b.blocks = std::max<int64_t>(1, l.chunk / w.block_size);
  const int shift = __builtin_ctzll(static_cast<uint64_t>(w.block_size / l.per_lane));
  b.lane_block = b.blocks == 1 ? _mm256_setzero_si256()
                               : _mm256_srlv_epi32(_mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7),
                                                   _mm256_set1_epi32(shift));
  b.default_zero = _mm256_set1_ps(static_cast<float>(int64_t{1} << (w.bits - 1)));
  return b;
}

// Per lane of chunk c of weight row j: its block's scale and zero point.
inline void LaneParams(const PackedWeights& w, const LaneLayout& l, const LaneBlocks& lb, int64_t j,
                       int64_t c, __m256* scale, __m256* zero) __attribute__((target("avx2,fma")));
inline void LaneParams(const PackedWeights& w, const LaneLayout& l, const LaneBlocks& lb, int64_t j,
                       int64_t c, __m256* scale, __m256* zero) {
  const int64_t first = j * w.n_blocks + c * l.chunk / w.block_size;
  const float* s = w.scales + first;
  const uint8_t* z = w.zero_points ? w.zero_points + first : nullptr;
  if (lb.blocks == 1) {
    *scale = _mm256_set1_ps(s[0]);
    *zero = z ? _mm256_set1_ps(static_cast<float>(z[0])) : lb.default_zero;
    return;
  }
  // 2 or 4 consecutive blocks, their parameters spread over the lanes.
  const __m128 scales =
      lb.blocks == 4 ? _mm_loadu_ps(s)
                     : _mm_castsi128_ps(_mm_loadl_epi64(reinterpret_cast<const __m128i*>(s)));
  *scale = _mm256_permutevar8x32_ps(_mm256_castps128_ps256(scales), lb.lane_block);
  if (z == nullptr) {
    *zero = lb.default_zero;
    return;
  }
  uint32_t bytes = 0;
  if (lb.blocks == 4) {
    std::memcpy(&bytes, z, 4);
  } else {
    std::memcpy(&bytes, z, 2);
  }
  const __m128 zeros =
      _mm_cvtepi32_ps(_mm_cvtepu8_epi32(_mm_cvtsi32_si128(static_cast<int>(bytes))));
  *zero = _mm256_permutevar8x32_ps(_mm256_castps128_ps256(zeros), lb.lane_block);
}

// Weight row j dequantized into out[0, K) in the lane order of LayOut over whole chunks
// (out[c * chunk + i * 8 + L] is code L * per_lane + i of chunk c) and in natural order
// after them: the tile path multiplies it with a laid out the same way.
template <int kBits>
__attribute__((target("avx2,fma"))) void DequantizeRowLanes(const PackedWeights& w,
                                                            const LaneLayout& l,
                                                            const LaneBlocks& lb, int64_t j,
                                                            float* out) {
  constexpr int kPerLane = 32 / kBits;
  const __m256i mask = _mm256_set1_epi32((1 << kBits) - 1);
  const uint8_t* codes = w.codes + j * w.n_blocks * w.block_bytes;
  for (int64_t c = 0; c < l.chunks; ++c) {
    const __m256i packed = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(codes + c * 32));
    __m256 scale, zero;
    LaneParams(w, l, lb, j, c, &scale, &zero);
    for (int i = 0; i < kPerLane; ++i) {
      const __m256 f =
          _mm256_cvtepi32_ps(_mm256_and_si256(_mm256_srli_epi32(packed, i * kBits), mask));
      _mm256_storeu_ps(out + c * l.chunk + 8 * i, _mm256_mul_ps(_mm256_sub_ps(f, zero), scale));
    }
  }
  for (int64_t k = l.chunks * l.chunk; k < w.k; ++k) {
    const int64_t blk = k / w.block_size;
    out[k] = (static_cast<float>(w.Code(w.Block(j, blk), k % w.block_size)) - w.Zero(j, blk)) *
             w.scales[j * w.n_blocks + blk];
  }
}

// y[r, j] for rows r of a and weight rows [j0, j1): each chunk's codes unpacked once into
// kPerLane vectors and met with every row of a.
template <int kBits>
__attribute__((target("avx2,fma"))) void FusedRowsAvx2(const PackedWeights& w, const LaneLayout& l,
                                                       const float* a, int64_t rows, float* y,
                                                       int64_t j0, int64_t j1) {
  constexpr int kPerLane = 32 / kBits;
  const __m256i mask = _mm256_set1_epi32((1 << kBits) - 1);
  const int64_t span = l.chunks * l.chunk;
  const int64_t row_bytes = w.n_blocks * w.block_bytes;
  const LaneBlocks lb = LaneBlocksOf(w, l);
  for (int64_t j = j0; j < j1; ++j) {
    const uint8_t* codes = w.codes + j * row_bytes;
    __m256 acc[kFusedMaxRows];
    for (int64_t r = 0; r < rows; ++r) acc[r] = _mm256_setzero_ps();
    for (int64_t c = 0; c < l.chunks; ++c) {
      const __m256i packed = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(codes + c * 32));
      __m256 f[kPerLane];
      for (int i = 0; i < kPerLane; ++i) {
        f[i] = _mm256_cvtepi32_ps(_mm256_and_si256(_mm256_srli_epi32(packed, i * kBits), mask));
      }
      __m256 scale, zero;
      LaneParams(w, l, lb, j, c, &scale, &zero);
      for (int64_t r = 0; r < rows; ++r) {
        const float* ar = l.a.data() + r * w.k + c * l.chunk;
        __m256 p0 = _mm256_mul_ps(f[0], _mm256_loadu_ps(ar));
        __m256 p1 = _mm256_mul_ps(f[1], _mm256_loadu_ps(ar + 8));
        for (int i = 2; i < kPerLane; i += 2) {
          p0 = _mm256_fmadd_ps(f[i], _mm256_loadu_ps(ar + 8 * i), p0);
          p1 = _mm256_fmadd_ps(f[i + 1], _mm256_loadu_ps(ar + 8 * i + 8), p1);
        }
        // sum (code - zero) * a = sum code * a - zero * sum a, per lane.
        const __m256 sums = _mm256_loadu_ps(l.sums.data() + (r * l.chunks + c) * 8);
        const __m256 dot = _mm256_fnmadd_ps(zero, sums, _mm256_add_ps(p0, p1));
        acc[r] = _mm256_fmadd_ps(dot, scale, acc[r]);
      }
    }
    for (int64_t r = 0; r < rows; ++r) {
      y[r * w.n + j] = HorizontalSum(acc[r]) + DotScalar(w, j, a + r * w.k, span);
    }
  }
}

bool HasAvx2() {
  static const bool has = [] {
    __builtin_cpu_init();
    return __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
  }();
  return has;
}
#endif

// y[r, j] for rows r of a and weight rows [j0, j1): the fused path. `layout` is a laid
// out for the vector path (empty where it does not run).
void FusedRows(const PackedWeights& w, const LaneLayout& layout, const float* a, int64_t rows,
               float* y, int64_t j0, int64_t j1) {
#ifdef SY_QUANT_MATMUL_AVX2
  if (layout.vector) {
    if (w.bits == 4) return FusedRowsAvx2<4>(w, layout, a, rows, y, j0, j1);
    return FusedRowsAvx2<8>(w, layout, a, rows, y, j0, j1);
  }
#endif
  (void)layout;
  for (int64_t j = j0; j < j1; ++j) {
    for (int64_t r = 0; r < rows; ++r) y[r * w.n + j] = DotScalar(w, j, a + r * w.k, 0);
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
  if (rows <= kFusedMaxRows) {
    LaneLayout layout;
#ifdef SY_QUANT_MATMUL_AVX2
    if (HasAvx2()) {
      try {
        layout = LayOut(w, x, rows);
      } catch (const std::bad_alloc&) {
        return ResourceExhausted("quant_matmul: no memory to lay out " + std::to_string(rows) +
                                 " rows of a");
      }
    }
#endif
    ParallelFor(ctx.pool, n, fast::RowGrain(fast::kCheapGrain, k * rows),
                [&](int64_t j0, int64_t j1) { FusedRows(w, layout, x, rows, out, j0, j1); });
    return Status::Ok();
  }
  const int64_t tile_rows = std::clamp<int64_t>(kTileBytes / (k * 4), 16, n);
  std::vector<float> tile;
  LaneLayout layout;
  try {
    tile.resize(static_cast<size_t>(tile_rows * k));
#ifdef SY_QUANT_MATMUL_AVX2
    if (HasAvx2()) layout = LayOut(w, x, rows);
#endif
  } catch (const std::bad_alloc&) {
    return ResourceExhausted("quant_matmul: no memory for a dequantized tile of " +
                             std::to_string(tile_rows) + " x " + std::to_string(k) + " floats");
  }
  // With AVX2 both sides are in the lane order of LayOut along K (the product does not
  // depend on the order of K), so that a tile is dequantized without shuffles.
  const float* lhs = layout.vector ? layout.a.data() : x;
#ifdef SY_QUANT_MATMUL_AVX2
  const LaneBlocks lb = layout.vector ? LaneBlocksOf(w, layout) : LaneBlocks{};
#endif
  for (int64_t j0 = 0; j0 < n; j0 += tile_rows) {
    const int64_t count = std::min(tile_rows, n - j0);
    ParallelFor(ctx.pool, count, fast::RowGrain(fast::kCheapGrain, k), [&](int64_t t0, int64_t t1) {
      for (int64_t t = t0; t < t1; ++t) {
        float* row = tile.data() + t * k;
#ifdef SY_QUANT_MATMUL_AVX2
        if (layout.vector) {
          if (w.bits == 4) {
            DequantizeRowLanes<4>(w, layout, lb, j0 + t, row);
          } else {
            DequantizeRowLanes<8>(w, layout, lb, j0 + t, row);
          }
          continue;
        }
#endif
        DequantizeRow(w, j0 + t, row);
      }
    });
    // y[:, j0 : j0 + count] = a [rows, k] x tile^T.
    cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasTrans, static_cast<blasint>(rows),
                static_cast<blasint>(count), static_cast<blasint>(k), 1.0f, lhs,
                static_cast<blasint>(k), tile.data(), static_cast<blasint>(k), 0.0f, out + j0,
                static_cast<blasint>(n));
  }
  return Status::Ok();
}

}  // namespace

void AddQuantMatmulFastKernels(KernelTable& table) { table.Add("quant_matmul", QuantMatmulFast); }

}  // namespace sy::cpu
