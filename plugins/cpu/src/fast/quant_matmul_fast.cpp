// Fast quant_matmul for f32 activations (f16 reaches it through half_as_f32.h): the
// weights stay packed, as seed 000 asks, and are dequantized inside the kernel.
//
// Paths, by the number of rows of `a` (tokens, in a decoder) and the node's
// accuracy_level:
// - accuracy_level 4 (ONNX Runtime's "int8 compute"), any number of rows: a is quantized
//   to int8 per block once per call (scale max|a| / 127, rounded to nearest even) and each
//   block's codes are multiplied with it as integers (vpdpbusd with VNNI, vpmaddubsw on
//   AVX2), the sum scaled once per block; within max|a| / 254 of each a element
//   (docs/ops.md). Rows go in groups of four against blocks of 32 weight rows, which stay
//   in the cache from one group to the next: the packed weights are read once per call.
// - Other levels, few rows (decoding, kMaxFusedRows or fewer): each output y[r, n] is one
//   pass over weight row n's blocks, codes unpacked to floats in registers, less their
//   zero point, dotted with a's block and scaled once per block. Memory traffic is the
//   packed weights (0.5 or 1 byte a weight) and nothing else.
// - Other levels, more rows (a prompt): weight rows are dequantized tile by tile into an
//   f32 scratch buffer (split over the threads) and each tile multiplied on OpenBLAS's
//   sgemm, so the arithmetic runs at sgemm's speed and the scratch stays a few MiB.
// Outputs are split over the threads by weight row, so a result does not depend on the
// split.
// The vector paths live in files built for their instruction sets (fast/quant_matmul_x86.h);
// this file lays `a` out for them, adds the scalar tail past their whole chunks, and runs
// everything on CPUs without AVX2. Other dtypes, and buffers not aligned for floats, go to
// the reference kernel.
#include <cblas.h>

#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <new>
#include <string>
#include <string_view>
#include <vector>

#include "fast/fast_kernels.h"
#include "fast/quant_matmul_x86.h"
#include "fast/vec_math.h"
#include "ref/ref_kernels.h"
#include "thread_pool.h"

#if defined(__x86_64__) && defined(__GNUC__) && defined(SY_QUANT_MATMUL_X86)
#define SY_QUANT_MATMUL_VECTOR 1
#endif

namespace sy::cpu {
namespace {

using quant::kMaxFusedRows;
using quant::PackedWeights;
// Bytes of f32 weights one dequantized tile holds (the tile path's scratch).
constexpr int64_t kTileBytes = int64_t{4} << 20;
// quant_matmul's accuracy_level at which a may be quantized to int8 (docs/ops.md).
constexpr int64_t kInt8Accuracy = 4;

float ZeroOf(const PackedWeights& w, int64_t row, int64_t block) {
  return w.zero_points ? static_cast<float>(w.zero_points[row * w.n_blocks + block])
                       : static_cast<float>(int64_t{1} << (w.bits - 1));
}
const uint8_t* BlockOf(const PackedWeights& w, int64_t row, int64_t block) {
  return w.codes + (row * w.n_blocks + block) * w.block_bytes;
}
int CodeAt(const PackedWeights& w, const uint8_t* block, int64_t at) {
  return w.bits == 8 ? block[at] : (block[at / 2] >> (4 * (at % 2))) & 0xF;
}

// The codes of weight row j from code `begin` to K, each times its block's scale after
// its zero point is taken off, dotted with a_row[begin, K): the scalar path, and the
// f32 vector path's tail.
float DotScalar(const PackedWeights& w, int64_t j, const float* a_row, int64_t begin) {
  float sum = 0.0f;
  for (int64_t blk = begin / w.block_size; blk < w.n_blocks; ++blk) {
    const int64_t start = std::max(blk * w.block_size, begin);
    const int64_t end = std::min((blk + 1) * w.block_size, w.k);
    if (start >= end) continue;
    const uint8_t* block = BlockOf(w, j, blk);
    const float zero = ZeroOf(w, j, blk);
    float dot = 0.0f;
    for (int64_t l = start; l < end; ++l) {
      dot += (static_cast<float>(CodeAt(w, block, l - blk * w.block_size)) - zero) * a_row[l];
    }
    sum += dot * w.scales[j * w.n_blocks + blk];
  }
  return sum;
}

// Which vector paths this CPU runs (the best int8 one and whether the AVX2 ones run),
// capped by LimitQuantMatmulIsaForTesting.
enum class Isa { kBaseline, kAvx2, kAvxVnni, kAvx512Vnni };
std::atomic<int> isa_cap{static_cast<int>(Isa::kAvx512Vnni)};

bool CpuHas(Isa isa) {
#ifdef SY_QUANT_MATMUL_VECTOR
  static const bool avx2 = [] {
    __builtin_cpu_init();
    return __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
  }();
  switch (isa) {
    case Isa::kBaseline:
      return true;
    case Isa::kAvx2:
      return avx2;
#ifdef SY_QUANT_MATMUL_AVXVNNI
    case Isa::kAvxVnni:
      return avx2 && __builtin_cpu_supports("avxvnni");
#endif
    case Isa::kAvx512Vnni:
      return avx2 && __builtin_cpu_supports("avx512vnni") && __builtin_cpu_supports("avx512vl");
    default:
      return false;
  }
#else
  return isa == Isa::kBaseline;
#endif
}

// SWITCHYARD_CPU_QUANT_ISA caps the sets too (for measuring a slower path on a faster CPU):
// baseline, avx2, avxvnni or avx512vnni; unset or empty: no cap.
Expected<Isa> EnvironmentCap() {
  const char* value = std::getenv("SWITCHYARD_CPU_QUANT_ISA");
  if (value == nullptr || *value == '\0') return Isa::kAvx512Vnni;
  const std::string_view v(value);
  if (v == "baseline") return Isa::kBaseline;
  if (v == "avx2") return Isa::kAvx2;
  if (v == "avxvnni") return Isa::kAvxVnni;
  if (v == "avx512vnni") return Isa::kAvx512Vnni;
  return InvalidArgument(std::string("SWITCHYARD_CPU_QUANT_ISA=") + value +
                         ": expected baseline, avx2, avxvnni or avx512vnni (or unset)");
}

// The best set this CPU has, at most the caps.
Isa DetectIsa(Isa environment_cap = Isa::kAvx512Vnni) {
  for (int i = std::min(isa_cap.load(), static_cast<int>(environment_cap)); i > 0; --i) {
    if (CpuHas(static_cast<Isa>(i))) return static_cast<Isa>(i);
  }
  return Isa::kBaseline;
}

// a laid out for the f32 vector paths (quant::FloatLanes).
struct FloatLayout {
  std::vector<float> a;
  std::vector<float> sums;
  quant::FloatLanes View() const { return {a.data(), sums.data(), chunks, chunk}; }
  int64_t chunks = 0, chunk = 0;
};

FloatLayout LayOutFloats(const PackedWeights& w, const float* a, int64_t rows) {
  FloatLayout l;
  const int64_t per_lane = 32 / w.bits;
  l.chunk = 8 * per_lane;
  l.chunks = w.k / l.chunk;
  const int64_t span = l.chunks * l.chunk;
  l.a.resize(static_cast<size_t>(rows * w.k));
  l.sums.assign(static_cast<size_t>(rows * l.chunks * 8), 0.0f);
  for (int64_t r = 0; r < rows; ++r) {
    for (int64_t c = 0; c < l.chunks; ++c) {
      for (int64_t lane = 0; lane < 8; ++lane) {
        for (int64_t i = 0; i < per_lane; ++i) {
          const float v = a[r * w.k + c * l.chunk + lane * per_lane + i];
          l.a[static_cast<size_t>(r * w.k + c * l.chunk + i * 8 + lane)] = v;
          l.sums[static_cast<size_t>((r * l.chunks + c) * 8 + lane)] += v;
        }
      }
    }
    for (int64_t p = span; p < w.k; ++p) l.a[static_cast<size_t>(r * w.k + p)] = a[r * w.k + p];
  }
  return l;
}

// a quantized to int8 per block of block_size and laid out for the int8 paths
// (quant::Int8Lanes); block_scales [rows, n_blocks] serve the scalar tail.
struct Int8Layout {
  std::vector<int8_t> q;
  std::vector<float> lane_scales, block_sums, block_scales;
  int64_t chunks = 0, chunk = 0;
  quant::Int8Lanes View() const {
    return {q.data(), lane_scales.data(), block_sums.data(), chunks, chunk};
  }
};

// One block of a row of a to int8 codes, ONNX Runtime's choice (MLAS's int8 row
// quantizer): a * (127 / max|a|), rounded to nearest even; an all-zero block has scale 0
// and codes 0. *amax gets max|a|; false where the block holds a NaN or an infinity. The
// rounding adds and takes off 1.5 * 2^23 (exact for |v| < 2^22, in the default rounding
// mode), which vectorises where a call to nearbyint does not.
SY_CPU_ISA_CLONES bool QuantizeBlock(const float* a, int64_t n, int8_t* q, float* amax) {
  float m = 0.0f;
  bool finite = true;
  for (int64_t k = 0; k < n; ++k) {
    m = std::max(m, std::fabs(a[k]));
    finite = finite && std::isfinite(a[k]);
  }
  if (!finite) return false;
  const float inverse = m > 0.0f ? 127.0f / m : 0.0f;
  constexpr float kRound = 12582912.0f;  // 1.5 * 2^23
  for (int64_t k = 0; k < n; ++k) {
    const float v = std::clamp((a[k] * inverse + kRound) - kRound, -127.0f, 127.0f);
    q[k] = static_cast<int8_t>(v);
  }
  *amax = m;
  return true;
}

// a quantized and laid out; false when a holds a NaN or an infinity (no int8 scale for it:
// the f32 path runs). Without the vector paths (`lanes` false) a's codes stay in their
// order.
bool QuantizeActivations(const PackedWeights& w, const float* a, int64_t rows, bool lanes,
                         Int8Layout* l) {
  constexpr int64_t kChunkBytes = 32;
  l->chunk = kChunkBytes * 8 / w.bits;
  l->chunks = lanes ? w.k / l->chunk : 0;
  const int64_t span = l->chunks * l->chunk;
  l->q.resize(static_cast<size_t>(rows * w.k));
  l->block_scales.resize(static_cast<size_t>(rows * w.n_blocks));
  l->block_sums.resize(static_cast<size_t>(rows * w.n_blocks));
  std::vector<int8_t> natural(static_cast<size_t>(w.k));
  for (int64_t r = 0; r < rows; ++r) {
    const float* ar = a + r * w.k;
    for (int64_t b = 0; b < w.n_blocks; ++b) {
      const int64_t begin = b * w.block_size, end = std::min(w.k, begin + w.block_size);
      float amax = 0.0f;
      if (!QuantizeBlock(ar + begin, end - begin, natural.data() + begin, &amax)) return false;
      const size_t at = static_cast<size_t>(r * w.n_blocks + b);
      l->block_scales[at] = amax / 127.0f;
      int sum = 0;
      for (int64_t k = begin; k < std::min(end, span); ++k) sum += natural[static_cast<size_t>(k)];
      l->block_sums[at] = static_cast<float>(sum) * l->block_scales[at];
    }
    int8_t* q = l->q.data() + r * w.k;
    for (int64_t c = 0; c < l->chunks; ++c) {
      const int8_t* src = natural.data() + c * l->chunk;
      int8_t* dst = q + c * l->chunk;
      if (w.bits == 4) {  // low nibbles meet codes 2i, high ones 2i + 1
        for (int64_t i = 0; i < kChunkBytes; ++i) {
          dst[i] = src[2 * i];
          dst[kChunkBytes + i] = src[2 * i + 1];
        }
      } else {
        std::memcpy(dst, src, kChunkBytes);
      }
    }
    std::memcpy(q + l->chunks * l->chunk, natural.data() + l->chunks * l->chunk,
                static_cast<size_t>(w.k - l->chunks * l->chunk));
  }
  // Per lane: the codes it meets (8 of 4 bits or 4 of 8, consecutive in a) lie in one
  // block.
  const int64_t per_lane = l->chunk / 8;
  l->lane_scales.resize(static_cast<size_t>(rows * l->chunks * 8));
  for (int64_t r = 0; r < rows; ++r) {
    for (int64_t c = 0; c < l->chunks; ++c) {
      for (int64_t lane = 0; lane < 8; ++lane) {
        const int64_t block = (c * l->chunk + lane * per_lane) / w.block_size;
        l->lane_scales[static_cast<size_t>((r * l->chunks + c) * 8 + lane)] =
            l->block_scales[static_cast<size_t>(r * w.n_blocks + block)];
      }
    }
  }
  return true;
}

// The int8 path's tail: sum over a's codes from `begin` to K, per block, of code * (weight
// code - zero point), times the two scales.
float Int8DotScalar(const PackedWeights& w, const Int8Layout& l, int64_t r, int64_t j,
                    int64_t begin) {
  float sum = 0.0f;
  const int8_t* q = l.q.data() + r * w.k;
  for (int64_t blk = begin / w.block_size; blk < w.n_blocks; ++blk) {
    const int64_t start = std::max(blk * w.block_size, begin);
    const int64_t end = std::min((blk + 1) * w.block_size, w.k);
    if (start >= end) continue;
    const uint8_t* block = BlockOf(w, j, blk);
    const int zero = static_cast<int>(ZeroOf(w, j, blk));
    int dot = 0;
    for (int64_t k = start; k < end; ++k) {
      dot += q[k] * (CodeAt(w, block, k - blk * w.block_size) - zero);
    }
    sum += static_cast<float>(dot) * (w.scales[j * w.n_blocks + blk] *
                                      l.block_scales[static_cast<size_t>(r * w.n_blocks + blk)]);
  }
  return sum;
}

// y[r, j] for rows r of a and weight rows [j0, j1) on the int8 path.
void Int8Rows(Isa isa, const PackedWeights& w, const Int8Layout& l, int64_t rows, float* y,
              int64_t j0, int64_t j1) {
#ifdef SY_QUANT_MATMUL_VECTOR
  // Rows of a in groups of kMaxFusedRows against blocks of weight rows small enough to
  // stay in the L1/L2 cache from one group to the next, so that a prompt reads the packed
  // weights once from memory however many rows it has.
  constexpr int64_t kWeightRowsPerBlock = 32;
  const quant::Int8Lanes lanes = l.View();
  for (int64_t jb = j0; isa != Isa::kBaseline && jb < j1; jb += kWeightRowsPerBlock) {
    const int64_t je = std::min(j1, jb + kWeightRowsPerBlock);
    for (int64_t r0 = 0; r0 < rows; r0 += kMaxFusedRows) {
      const int64_t count = std::min(kMaxFusedRows, rows - r0);
      const quant::Int8Lanes group{lanes.q + r0 * w.k, lanes.lane_scales + r0 * l.chunks * 8,
                                   lanes.block_sums + r0 * w.n_blocks, l.chunks, l.chunk};
      float* yg = y + r0 * w.n;
      if (isa == Isa::kAvx512Vnni) {
        quant::Int8RowsAvx512Vnni(w, group, count, yg, jb, je);
#ifdef SY_QUANT_MATMUL_AVXVNNI
      } else if (isa == Isa::kAvxVnni) {
        quant::Int8RowsAvxVnni(w, group, count, yg, jb, je);
#endif
      } else {
        quant::Int8RowsAvx2(w, group, count, yg, jb, je);
      }
    }
  }
#endif
  const int64_t span = isa == Isa::kBaseline ? 0 : l.chunks * l.chunk;
  for (int64_t j = j0; j < j1; ++j) {
    for (int64_t r = 0; r < rows; ++r) {
      float& out = y[r * w.n + j];
      out = (span > 0 ? out : 0.0f) + Int8DotScalar(w, l, r, j, span);
    }
  }
}

// y[r, j] for rows r of a and weight rows [j0, j1) on the f32 path. `layout` is a laid
// out for the vector path (empty where it does not run).
void FloatRows(Isa isa, const PackedWeights& w, const FloatLayout& layout, const float* a,
               int64_t rows, float* y, int64_t j0, int64_t j1) {
#ifdef SY_QUANT_MATMUL_VECTOR
  if (isa != Isa::kBaseline) quant::FloatRowsAvx2(w, layout.View(), rows, y, j0, j1);
#endif
  const int64_t span = isa == Isa::kBaseline ? 0 : layout.chunks * layout.chunk;
  for (int64_t j = j0; j < j1; ++j) {
    for (int64_t r = 0; r < rows; ++r) {
      float& out = y[r * w.n + j];
      out = (span > 0 ? out : 0.0f) + DotScalar(w, j, a + r * w.k, span);
    }
  }
}

// Weight row j dequantized into out[0, k).
SY_CPU_ISA_CLONES void DequantizeRow(const PackedWeights& w, int64_t j, float* out) {
  for (int64_t blk = 0; blk < w.n_blocks; ++blk) {
    const int64_t start = blk * w.block_size;
    const int64_t count = std::min(w.block_size, w.k - start);
    const uint8_t* block = BlockOf(w, j, blk);
    const float zero = ZeroOf(w, j, blk);
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
  static const Expected<Isa> environment_cap = EnvironmentCap();
  if (!environment_cap.ok()) return environment_cap.status();
  const Isa isa = DetectIsa(*environment_cap);
  const int64_t grain = fast::RowGrain(fast::kCheapGrain, k * rows);
  // At accuracy level 4 the int8 path takes every row count: a prompt's rows in groups of
  // four reuse each block of weights from the cache.
  if (ctx.attrs.GetInt("accuracy_level", 0) == kInt8Accuracy) {
    try {
      Int8Layout layout;
      if (QuantizeActivations(w, x, rows, isa != Isa::kBaseline, &layout)) {
        ParallelFor(ctx.pool, n, grain,
                    [&](int64_t j0, int64_t j1) { Int8Rows(isa, w, layout, rows, out, j0, j1); });
        return Status::Ok();
      }
    } catch (const std::bad_alloc&) {
      return ResourceExhausted("quant_matmul: no memory to quantize " + std::to_string(rows) +
                               " rows of a");
    }
  }
  if (rows <= kMaxFusedRows) {
    try {
      FloatLayout layout;
      if (isa != Isa::kBaseline) layout = LayOutFloats(w, x, rows);
      ParallelFor(ctx.pool, n, grain,
                  [&](int64_t j0, int64_t j1) { FloatRows(isa, w, layout, x, rows, out, j0, j1); });
    } catch (const std::bad_alloc&) {
      return ResourceExhausted("quant_matmul: no memory to lay out " + std::to_string(rows) +
                               " rows of a");
    }
    return Status::Ok();
  }
  const int64_t tile_rows = std::clamp<int64_t>(kTileBytes / (k * 4), 16, n);
  std::vector<float> tile;
  FloatLayout layout;
  try {
    tile.resize(static_cast<size_t>(tile_rows * k));
    if (isa != Isa::kBaseline) layout = LayOutFloats(w, x, rows);
  } catch (const std::bad_alloc&) {
    return ResourceExhausted("quant_matmul: no memory for a dequantized tile of " +
                             std::to_string(tile_rows) + " x " + std::to_string(k) + " floats");
  }
  // With AVX2 both sides are in the lane order of FloatLayout along K (the product does not
  // depend on the order of K), so that a tile is dequantized without shuffles.
  const bool lanes = isa != Isa::kBaseline;
  const float* lhs = lanes ? layout.a.data() : x;
  for (int64_t j0 = 0; j0 < n; j0 += tile_rows) {
    const int64_t count = std::min(tile_rows, n - j0);
    ParallelFor(ctx.pool, count, fast::RowGrain(fast::kCheapGrain, k), [&](int64_t t0, int64_t t1) {
      for (int64_t t = t0; t < t1; ++t) {
        float* row = tile.data() + t * k;
        if (!lanes) {
          DequantizeRow(w, j0 + t, row);
          continue;
        }
#ifdef SY_QUANT_MATMUL_VECTOR
        quant::DequantizeRowLanesAvx2(w, layout.chunks, j0 + t, row);
#endif
        for (int64_t p = layout.chunks * layout.chunk; p < k; ++p) {
          const int64_t blk = p / w.block_size;
          row[p] = (static_cast<float>(CodeAt(w, BlockOf(w, j0 + t, blk), p % w.block_size)) -
                    ZeroOf(w, j0 + t, blk)) *
                   w.scales[(j0 + t) * w.n_blocks + blk];
        }
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

std::string LimitQuantMatmulIsaForTesting(std::string_view isa) {
  Isa cap = Isa::kAvx512Vnni;
  if (isa == "baseline") cap = Isa::kBaseline;
  if (isa == "avx2") cap = Isa::kAvx2;
  if (isa == "avxvnni") cap = Isa::kAvxVnni;
  isa_cap.store(static_cast<int>(cap));
  switch (DetectIsa()) {
    case Isa::kBaseline:
      return "baseline";
    case Isa::kAvx2:
      return "avx2";
    case Isa::kAvxVnni:
      return "avxvnni";
    case Isa::kAvx512Vnni:
      return "avx512vnni";
  }
  return "baseline";
}

}  // namespace sy::cpu
