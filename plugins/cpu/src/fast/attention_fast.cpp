// Fused f32 attention (the reference semantics are ref/neural_ref.cpp's Attention): for
// each (batch, head, block of query rows) the scores are computed block by block over the
// keys with a streaming ("online") softmax, so no S x T score matrix exists, and P V is
// accumulated as it goes. Work items are (batch, head, query block), split over the pool.
//
// Per query row i the reference computes softmax_j(scale q_i . k_j + bias_ij) v_j in
// double. Here, in f32: q is scaled once; the two block products (q k^T, P v) run on
// oneDNN's sgemm, OpenBLAS or portable vectorised loops (ChooseProducts); the running
// maximum m, sum l and output row are rescaled by e^(m_old - m_new) when a later key block
// raises the maximum (Milakov and Gimelshein, "Online normalizer calculation for softmax",
// 2018). The bias of row i is offset by its own maximum over the keys row i may see (bmax): the
// softmax is unchanged, fully masked rows are known before any product (bmax = -inf: zeros, as the
// reference), and a large additive mask (-1e4 on every key of a padded row) leaves the scores
// intact where score + bias in f32 would round them to multiples of 1e-3, as the reference's double
// sum does not.
//
// Keys a row excludes (plugins/common/attention_mask.h: its causal future, -inf or false,
// finfo.min-like fill beside open keys) are never read: each (batch, head) reads keys up
// to the last one some row reads (KeyExtents), so a decoder's fixed-capacity cache costs
// the positions held, not the capacity.
//
// What runs the reference kernel instead: any dtype but f32 (the mask: bool or f32), D =
// 0, misaligned buffers, and inputs whose f32 results could differ from the reference's
// beyond rounding: a NaN or infinity in q or in the k and v this kernel reads, NaN or +inf
// in the mask (these make whole rows NaN in the reference), or scores that could exceed
// 1e28 in size (|q| |k| |scale| D).
#include <cblas.h>
#if SY_CPU_HAS_ONEDNN
#include <dnnl.h>
#endif

#include <algorithm>
#include <atomic>
#include <bit>
#include <cctype>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "attention_mask.h"
#include "fast/fast_kernels.h"
#include "fast/softmax_avx512.h"
#include "fast/vec_math.h"
#if SY_CPU_HAS_ONEDNN
#include "fast/onednn/onednn_common.h"
#endif
#include "ref/ref_kernels.h"
#include "thread_pool.h"

namespace sy::cpu {
namespace {

constexpr float kInf = std::numeric_limits<float>::infinity();

Status Reference(const KernelContext& ctx) { return RefKernels().Find("attention")(ctx); }

// Query rows per work item. The portable product's register tile: 4 rows x 8 columns of
// C, eight 4-float vectors, which with the two vectors of B and one of A fits the 16
// registers of baseline x86-64 (SSE2) without spilling.
constexpr int64_t kBlockRows = 64;
constexpr int kTileRows = 4;
constexpr int kTileCols = 8;

// Up to this magnitude of a row's largest bias, double holds score + bias to within
// 1e-8 (its ulp at 1e8 is 1.5e-8), so the reference's softmax is that of the exact sums,
// which f32 gets from score + (bias - bmax); beyond, the reference's rounding shows.
constexpr float kExactBias = 1e8f;

int64_t RoundUp(int64_t n, int64_t m) { return (n + m - 1) / m * m; }

// ---- block products ------------------------------------------------------------------

// Four floats as one value: GCC and Clang compile arithmetic on it to one SIMD instruction
// (SSE on x86-64, NEON on arm64) or to scalars where there is none. Written out, because
// left to itself the vectoriser turned the loops below into shuffles across rows (measured:
// 3 GFLOP/s instead of 27).
using F4 = float __attribute__((vector_size(16)));

F4 Load4(const float* p) {
  F4 v;
  std::memcpy(&v, p, sizeof v);
  return v;
}
void Store4(float* p, F4 v) { std::memcpy(p, &v, sizeof v); }

// C[4 x 8] (+)= A[4 x k] B[k x 8], the 4 x 8 accumulators in registers: per step one row
// of B (two vectors) times each of four elements of A.
void ProductTile(const float* a, int64_t lda, const float* b, int64_t ldb, int64_t k, float* c,
                 int64_t ldc, bool accumulate) {
  F4 acc[kTileRows][2];
  for (int r = 0; r < kTileRows; ++r) {
    for (int u = 0; u < 2; ++u) acc[r][u] = accumulate ? Load4(c + r * ldc + 4 * u) : F4{};
  }
  for (int64_t d = 0; d < k; ++d) {
    const F4 b0 = Load4(b + d * ldb), b1 = Load4(b + d * ldb + 4);
    for (int r = 0; r < kTileRows; ++r) {
      const float x = a[r * lda + d];
      const F4 av = {x, x, x, x};
      acc[r][0] += av * b0;
      acc[r][1] += av * b1;
    }
  }
  for (int r = 0; r < kTileRows; ++r) {
    for (int u = 0; u < 2; ++u) Store4(c + r * ldc + 4 * u, acc[r][u]);
  }
}

// C[m x n] (+)= A[m x k] B[k x n], row-major with leading dimensions; m a multiple of
// kTileRows and n of kTileCols (the callers pad their blocks).
void ProductLoops(int64_t m, int64_t n, int64_t k, const float* a, int64_t lda, const float* b,
                  int64_t ldb, float* c, int64_t ldc, bool accumulate) {
  for (int64_t i = 0; i < m; i += kTileRows) {
    for (int64_t j = 0; j < n; j += kTileCols) {
      ProductTile(a + i * lda, lda, b + j, ldb, k, c + i * ldc + j, ldc, accumulate);
    }
  }
}

// C[m x n] (+)= A[m x k] op(B), op(B) = B [k x n] or, with `b_transposed`, the transpose
// of B [n x k]. Every call stays under OpenBLAS's threshold for running one product on
// several threads (m n k <= 4 * 65536, its default GEMM_MULTITHREAD_THRESHOLD): the calls
// already run on the pool's threads.
//
// With `onednn`, oneDNN's sgemm instead: always on the calling thread (inside the pool's
// OpenMP team there are no nested teams; Attention holds one thread for calls outside
// one), so blocks need not stay under any threshold; it is
// JIT-compiled for this CPU's features. 12-21% faster than OpenBLAS on every shape of the
// attention benchmark (docs/performance.md, "Fused attention").
void ProductBlas(bool onednn, int64_t m, int64_t n, int64_t k, const float* a, int64_t lda,
                 const float* b, int64_t ldb, bool b_transposed, float* c, int64_t ldc,
                 bool accumulate) {
#if SY_CPU_HAS_ONEDNN
  if (onednn) {
    dnnl_sgemm('N', b_transposed ? 'T' : 'N', m, n, k, 1.0f, a, lda, b, ldb,
               accumulate ? 1.0f : 0.0f, c, ldc);
    return;
  }
#else
  (void)onednn;
#endif
  cblas_sgemm(CblasRowMajor, CblasNoTrans, b_transposed ? CblasTrans : CblasNoTrans,
              static_cast<blasint>(m), static_cast<blasint>(n), static_cast<blasint>(k), 1.0f, a,
              static_cast<blasint>(lda), b, static_cast<blasint>(ldb), accumulate ? 1.0f : 0.0f, c,
              static_cast<blasint>(ldc));
}
constexpr int64_t kBlasSingleThreadWork = 4 * 65536;
// Keys per block on oneDNN: the fastest of 64 to 512 on the benchmark's shapes (256 and
// 512 tie; 512 doubles the scores' scratch).
constexpr int64_t kOneDnnKeyBlock = 256;

std::atomic<AttentionProducts> products_choice{AttentionProducts::kAuto};

// What computes the block products, unless a test or benchmark chose: oneDNN where the
// plugin is built with it and it is selected (SWITCHYARD_CPU_GEMM); else OpenBLAS where it
// runs one of its AVX2 or AVX-512 kernels on this CPU (3.5x the portable tile on 64 x 128
// x 32 blocks, AMD EPYC with AVX-512); else the portable tile (OpenBLAS fell back to an
// older kernel, as on CPUs newer than its build: docs/cpu-kernels.md).
AttentionProducts ChooseProducts() {
  AttentionProducts choice = products_choice.load(std::memory_order_relaxed);
#if !SY_CPU_HAS_ONEDNN
  if (choice == AttentionProducts::kOneDnn) choice = AttentionProducts::kBlas;
#endif
  if (choice != AttentionProducts::kAuto) return choice;
#if SY_CPU_HAS_ONEDNN
  if (onednn::Selected()) return AttentionProducts::kOneDnn;
#endif
  static const bool modern = [] {
    std::string core = openblas_get_corename();
    for (char& ch : core) ch = static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
    for (const char* name : {"haswell", "zen", "skylakex", "cooperlake", "sapphirerapids"}) {
      if (core == name) return true;
    }
    return false;
  }();
  return modern ? AttentionProducts::kBlas : AttentionProducts::kLoops;
}

// ---- reductions the compiler vectorises -------------------------------------------------

// Sixteen partial results (one AVX-512 register), combined at the end: a plain running max
// or sum is a loop-carried dependence the compiler may not reorder (no -ffast-math),
// independent ones it vectorises.
constexpr int kLanes = 16;
SY_CPU_ISA_CLONES float RowMax(const float* x, int64_t n) {
  float part[kLanes];
  for (float& p : part) p = -kInf;
  int64_t j = 0;
  for (; j + kLanes <= n; j += kLanes) {
    for (int u = 0; u < kLanes; ++u) part[u] = x[j + u] > part[u] ? x[j + u] : part[u];
  }
  for (; j < n; ++j) part[0] = x[j] > part[0] ? x[j] : part[0];
  float m = part[0];
  for (int u = 1; u < kLanes; ++u) m = part[u] > m ? part[u] : m;
  return m;
}

// x[j] = e^(x[j] - m) in place (x[j] <= m, or -inf); returns their sum.
SY_CPU_ISA_CLONES float ExpAndSum(float* x, int64_t n, float m) {
  float part[kLanes] = {};
  int64_t j = 0;
  for (; j + kLanes <= n; j += kLanes) {
    for (int u = 0; u < kLanes; ++u) {
      x[j + u] = fast::ExpNonPositive(x[j + u] - m);
      part[u] += x[j + u];
    }
  }
  for (; j < n; ++j) {
    x[j] = fast::ExpNonPositive(x[j] - m);
    part[0] += x[j];
  }
  for (int w = kLanes / 2; w > 0; w /= 2) {  // pairwise, the same on every CPU
    for (int u = 0; u < w; ++u) part[u] += part[u + w];
  }
  return part[0];
}

// The largest magnitude in x as the bit pattern of its absolute value (with the sign
// cleared, a float's pattern orders as its magnitude does, infinities and NaN above every
// finite one). An integer maximum vectorises where a float one (NaN semantics) does not.
SY_CPU_ISA_CLONES uint32_t MaxAbsBits(const float* x, int64_t n) {
  uint32_t part[8] = {};
  int64_t j = 0;
  for (; j + 8 <= n; j += 8) {
    for (int u = 0; u < 8; ++u) {
      const uint32_t a = std::bit_cast<uint32_t>(x[j + u]) & 0x7fffffffu;
      part[u] = a > part[u] ? a : part[u];
    }
  }
  for (; j < n; ++j) {
    const uint32_t a = std::bit_cast<uint32_t>(x[j]) & 0x7fffffffu;
    part[0] = a > part[0] ? a : part[0];
  }
  uint32_t m = 0;
  for (uint32_t p : part) m = p > m ? p : m;
  return m;
}

// Whether every element of x is finite (split over the pool: it reads all of q, k and v
// once more); *max_abs gets the largest magnitude.
bool AllFinite(ThreadPool* pool, const float* x, int64_t n, float* max_abs) {
  std::atomic<uint32_t> max_bits{0};
  ParallelFor(pool, n, fast::kCheapGrain, [x, &max_bits](int64_t begin, int64_t end) {
    const uint32_t m = MaxAbsBits(x + begin, end - begin);
    uint32_t seen = max_bits.load(std::memory_order_relaxed);
    while (m > seen && !max_bits.compare_exchange_weak(seen, m, std::memory_order_relaxed)) {
    }
  });
  const uint32_t m = max_bits.load(std::memory_order_relaxed);
  *max_abs = std::bit_cast<float>(m);
  return m < 0x7f800000u;  // below +inf's pattern
}

// ---- the problem -------------------------------------------------------------------------

struct Problem {
  int64_t batch, hq, hkv, group, seq, kv_seq, dim, dv;
  float scale;
  bool causal;
  const float *q, *k, *v;
  float* y;
  // The mask (nullptr: none), f32 or bool (one byte, nonzero = attend), and its element
  // strides along [B, Hq, S, T] (0 where it broadcasts).
  const float* mask_f32 = nullptr;
  const uint8_t* mask_bool = nullptr;
  int64_t mask_stride[4] = {0, 0, 0, 0};
  // How the block products run (blas: a library, on unpacked blocks; onednn: that library
  // is oneDNN, else OpenBLAS), the keys per block, and the output row's width in the
  // accumulators (padded to whole tiles for the portable product).
  bool blas, onednn;
  // The softmax's row loops in AVX-512 with FMA (fast/softmax_avx512.h), where the CPU
  // has it.
  bool avx512 = false;
  int64_t key_block, dv_pad;

  // Per (batch, q head): the keys [0, extent) that some row reads; the rest are excluded
  // for every row (plugins/common/attention_mask.h) and never read. Empty: all T.
  std::vector<int64_t> key_extent;

  bool has_mask() const { return mask_f32 != nullptr || mask_bool != nullptr; }
  int64_t KeyExtent(int64_t b, int64_t h) const {
    return key_extent.empty() ? kv_seq : key_extent[static_cast<size_t>(b * hq + h)];
  }
  // Floats of scratch one work item needs.
  int64_t ScratchFloats() const {
    const int64_t packed = blas ? 0 : dim * key_block + key_block * dv_pad;
    return kBlockRows * dim          // q, scaled
           + packed                  // k block transposed, v block padded (portable only)
           + kBlockRows * key_block  // scores, then probabilities
           + kBlockRows * dv_pad     // output accumulators
           + 3 * kBlockRows;         // m, l, bmax
  }
};

// The bias of row (b, h, i) over keys [j0, j0 + n) into out (before the row's offset):
// the mask's values, or 0 / -inf for a bool mask; 0 without a mask.
void MaskRow(const Problem& p, int64_t b, int64_t h, int64_t i, int64_t j0, int64_t n, float* out) {
  const int64_t base = b * p.mask_stride[0] + h * p.mask_stride[1] + i * p.mask_stride[2];
  const int64_t sj = p.mask_stride[3];
  if (p.mask_f32 != nullptr) {
    const float* m = p.mask_f32 + base + j0 * sj;
    for (int64_t j = 0; j < n; ++j) out[j] = m[j * sj];
  } else if (p.mask_bool != nullptr) {
    const uint8_t* m = p.mask_bool + base + j0 * sj;
    for (int64_t j = 0; j < n; ++j) out[j] = m[j * sj] != 0 ? 0.0f : -kInf;
  } else {
    for (int64_t j = 0; j < n; ++j) out[j] = 0.0f;
  }
}

// The keys query row i may see: [0, KeyEnd(i)).
int64_t KeyEnd(const Problem& p, int64_t i) {
  return p.causal ? std::min(p.kv_seq, i + 1) : p.kv_seq;
}

// One work item: rows [i0, i0 + rows) of head h of batch b.
void RunItem(const Problem& p, int64_t b, int64_t h, int64_t i0, int64_t rows, float* scratch) {
  const int64_t rows_pad = RoundUp(rows, kTileRows);
  const int64_t tk = p.key_block, dvp = p.dv_pad, dim = p.dim, dv = p.dv;
  float* qs = scratch;
  float* kt = qs + kBlockRows * dim;
  float* vb = kt + (p.blas ? 0 : dim * tk);
  float* s = vb + (p.blas ? 0 : tk * dvp);
  float* acc = s + kBlockRows * tk;
  float* m = acc + kBlockRows * dvp;
  float* l = m + kBlockRows;
  float* bmax = l + kBlockRows;

  const int64_t g = h / p.group;
  const float* q = p.q + ((b * p.hq + h) * p.seq + i0) * dim;
  const float* k = p.k + (b * p.hkv + g) * p.kv_seq * dim;
  const float* v = p.v + (b * p.hkv + g) * p.kv_seq * dv;
  float* y = p.y + ((b * p.hq + h) * p.seq + i0) * dv;

  // q scaled once (rounding scale q to f32 costs half an ulp of each score term); the
  // padding rows are zeros, and so are their scores and outputs, never stored.
  for (int64_t r = 0; r < rows_pad; ++r) {
    for (int64_t d = 0; d < dim; ++d) qs[r * dim + d] = r < rows ? q[r * dim + d] * p.scale : 0.0f;
  }
  // Each row's bias maximum over the keys it may see; -inf: nothing to attend.
  const int64_t extent = p.KeyExtent(b, h);
  for (int64_t r = 0; r < rows_pad; ++r) {
    const int64_t end = r < rows ? std::min(KeyEnd(p, i0 + r), extent) : 0;
    float mx = end > 0 && !p.has_mask() ? 0.0f : -kInf;
    for (int64_t j0 = 0; p.has_mask() && j0 < end; j0 += tk) {
      const int64_t n = std::min(tk, end - j0);
      MaskRow(p, b, h, i0 + r, j0, n, s);
      mx = std::max(mx, p.avx512 ? fast::RowMaxAvx512(s, n) : RowMax(s, n));
    }
    bmax[r] = mx;
    m[r] = -kInf;
    l[r] = 0.0f;
  }
  std::fill(acc, acc + rows_pad * dvp, 0.0f);

  const int64_t key_end = std::min(KeyEnd(p, i0 + rows - 1), extent);
  for (int64_t j0 = 0; j0 < key_end; j0 += tk) {
    const int64_t n = std::min(tk, key_end - j0);
    const int64_t n_pad = p.blas ? n : RoundUp(n, kTileCols);
    // Scores s [rows_pad x n_pad] = q_scaled k_block^T.
    if (p.blas) {
      ProductBlas(p.onednn, rows_pad, n, dim, qs, dim, k + j0 * dim, dim, true, s, n_pad, false);
    } else {
      // k block transposed to [dim][n_pad] and v block padded to [n][dvp], zeros in the
      // padding, so that every tile of both products is whole.
      for (int64_t j = 0; j < n_pad; ++j) {
        for (int64_t d = 0; d < dim; ++d) kt[d * n_pad + j] = j < n ? k[(j0 + j) * dim + d] : 0.0f;
      }
      for (int64_t j = 0; j < n; ++j) {
        for (int64_t e = 0; e < dvp; ++e) vb[j * dvp + e] = e < dv ? v[(j0 + j) * dv + e] : 0.0f;
      }
      ProductLoops(rows_pad, n_pad, dim, qs, dim, kt, n_pad, s, n_pad, false);
    }
    // Each row: bias, running maximum, probabilities in place of the scores.
    for (int64_t r = 0; r < rows_pad; ++r) {
      float* t = s + r * n_pad;
      const int64_t i = i0 + r;
      // Keys this row may not see (causal) count as -inf; a row with none, or a dead or
      // padding row, adds nothing (zeros in P).
      const int64_t seen =
          r < rows ? std::clamp<int64_t>(std::min(KeyEnd(p, i), extent) - j0, 0, n) : 0;
      if (bmax[r] == -kInf || seen == 0) {
        std::fill(t, t + n_pad, 0.0f);
        continue;
      }
      // t = score + (bias - bmax), the mask read in pieces into a small buffer. Where the
      // bias of every key this row sees is huge (finfo(f32).min on a padded row), the
      // reference's double sum score + bias rounds the score partly or wholly away (all
      // keys then weigh the same); that sum is formed in double here too, to agree.
      if (p.has_mask()) {
        const float offset = bmax[r];
        const bool absorbs = std::fabs(offset) > kExactBias;
        float bias[256];
        for (int64_t c0 = 0; c0 < seen; c0 += 256) {
          const int64_t c = std::min<int64_t>(256, seen - c0);
          MaskRow(p, b, h, i, j0 + c0, c, bias);
          float* tc = t + c0;
          if (absorbs) {
            for (int64_t j = 0; j < c; ++j) {
              tc[j] = static_cast<float>((static_cast<double>(tc[j]) + bias[j]) - offset);
            }
          } else {
            for (int64_t j = 0; j < c; ++j) tc[j] += bias[j] - offset;
          }
        }
      }
      for (int64_t j = seen; j < n_pad; ++j) t[j] = -kInf;
      const float m_new = std::max(m[r], p.avx512 ? fast::RowMaxAvx512(t, seen) : RowMax(t, seen));
      if (m_new == -kInf) {  // every key so far masked: nothing accumulated yet
        std::fill(t, t + n_pad, 0.0f);
        continue;
      }
      // What was accumulated is rescaled to the new maximum (nothing yet where m was -inf).
      const bool first = m[r] == -kInf;
      const float alpha = first ? 0.0f : fast::ExpNonPositive(m[r] - m_new);
      const float sum =
          p.avx512 ? fast::ExpAndSumAvx512(t, n_pad, m_new) : ExpAndSum(t, n_pad, m_new);
      l[r] = l[r] * alpha + sum;
      m[r] = m_new;
      if (!first && alpha != 1.0f) {
        float* a = acc + r * dvp;
        for (int64_t e = 0; e < dvp; ++e) a[e] *= alpha;
      }
    }
    // acc [rows_pad x dv] += P [rows_pad x n] v_block [n x dv].
    if (p.blas) {
      ProductBlas(p.onednn, rows_pad, dv, n, s, n_pad, v + j0 * dv, dv, false, acc, dvp, true);
    } else {
      ProductLoops(rows_pad, dvp, n, s, n_pad, vb, dvp, acc, dvp, true);
    }
  }
  for (int64_t r = 0; r < rows; ++r) {
    float* out = y + r * dv;
    const float* a = acc + r * dvp;
    if (l[r] == 0.0f) {  // a dead row (bmax = -inf); a live one has l >= 1
      for (int64_t e = 0; e < dv; ++e) out[e] = 0.0f;
      continue;
    }
    const float inv = 1.0f / l[r];
    for (int64_t e = 0; e < dv; ++e) out[e] = a[e] * inv;
  }
}

// Per (batch, q head): one past the last key some row reads (plugins/common/
// attention_mask.h: a row excludes its causal future, -inf biases, and fills at or below
// kAttentionExcludedBias when some key's bias dominates). A decoder's
// cache of fixed capacity is read up to its current length, not the capacity. Rows of a
// mask that broadcasts over the heads are scanned once.
std::vector<int64_t> KeyExtents(const Problem& p) {
  std::vector<int64_t> extent(static_cast<size_t>(p.batch * p.hq), 0);
  std::vector<float> bias(static_cast<size_t>(p.kv_seq));
  for (int64_t b = 0; b < p.batch; ++b) {
    for (int64_t h = 0; h < p.hq; ++h) {
      int64_t& e = extent[static_cast<size_t>(b * p.hq + h)];
      if (h > 0 && p.mask_stride[1] == 0) {
        e = extent[static_cast<size_t>(b * p.hq)];
        continue;
      }
      for (int64_t i = 0; i < p.seq; ++i) {
        const int64_t end = KeyEnd(p, i);
        if (end <= e) continue;
        MaskRow(p, b, h, i, 0, end, bias.data());
        bool dominant = false;
        for (int64_t j = 0; j < end; ++j) {
          dominant = dominant || plugin::AttentionBiasDominates(bias[static_cast<size_t>(j)]);
        }
        int64_t last = end;
        while (last > e &&
               plugin::AttentionKeyExcluded(bias[static_cast<size_t>(last - 1)], dominant)) {
          --last;
        }
        e = std::max(e, last);
      }
    }
  }
  return extent;
}

// Scratch for the work items that run at once. A chunk of ParallelFor runs on one thread
// from start to end, so no more chunks hold a slot at a time than the pool has threads.
class ScratchSlots {
 public:
  ScratchSlots(int count, int64_t floats)
      : floats_(floats),
        data_(std::make_unique_for_overwrite<float[]>(static_cast<size_t>(count * floats))),
        used_(std::make_unique<std::atomic<bool>[]>(static_cast<size_t>(count))),
        count_(count) {}
  float* Claim() {
    for (;;) {
      for (int i = 0; i < count_; ++i) {
        if (!used_[i].exchange(true, std::memory_order_acquire)) return data_.get() + i * floats_;
      }
    }
  }
  void Release(float* slot) {
    used_[(slot - data_.get()) / floats_].store(false, std::memory_order_release);
  }

 private:
  int64_t floats_;
  std::unique_ptr<float[]> data_;
  std::unique_ptr<std::atomic<bool>[]> used_;
  int count_;
};

// Fills `p` for the case in `ctx`, or returns false where the reference kernel runs it.
bool MakeProblem(const KernelContext& ctx, Problem& p) {
  const ConstTensorView& q = ctx.inputs[0];
  const ConstTensorView& k = ctx.inputs[1];
  const ConstTensorView& v = ctx.inputs[2];
  const ConstTensorView* mask = ctx.inputs.size() > 3 ? &ctx.inputs[3] : nullptr;
  const TensorView& y = ctx.outputs[0];
  if (q.dtype() != DType::kF32 || k.dtype() != DType::kF32 || v.dtype() != DType::kF32 ||
      y.dtype() != DType::kF32 ||
      (mask != nullptr && mask->dtype() != DType::kF32 && mask->dtype() != DType::kBool)) {
    return false;
  }
  if (!fast::IsF32Aligned(q.data) || !fast::IsF32Aligned(k.data) || !fast::IsF32Aligned(v.data) ||
      !fast::IsF32Aligned(y.data) ||
      (mask != nullptr && mask->dtype() == DType::kF32 && !fast::IsF32Aligned(mask->data))) {
    return false;
  }
  p.batch = q.shape()[0];
  p.hq = q.shape()[1];
  p.seq = q.shape()[2];
  p.dim = q.shape()[3];
  p.hkv = k.shape()[1];
  p.kv_seq = k.shape()[2];
  p.dv = v.shape()[3];
  if (p.dim == 0 || p.hkv == 0) return false;  // D = 0: scores are 0 whatever the scale
  p.group = p.hq / p.hkv;
  const double scale = ctx.attrs.Has("scale") ? ctx.attrs.GetFloat("scale")
                                              : 1.0 / std::sqrt(static_cast<double>(p.dim));
  p.scale = static_cast<float>(scale);
  p.causal = ctx.attrs.GetInt("is_causal", 0) != 0;
  p.q = reinterpret_cast<const float*>(q.data);
  p.k = reinterpret_cast<const float*>(k.data);
  p.v = reinterpret_cast<const float*>(v.data);
  p.y = reinterpret_cast<float*>(y.data);

  if (mask != nullptr) {
    const std::vector<int64_t> strides = Strides(mask->shape());
    const size_t lead = 4 - static_cast<size_t>(mask->rank());
    for (size_t d = 0; d < strides.size(); ++d) {
      if (mask->shape()[d] != 1) p.mask_stride[lead + d] = strides[d];
    }
    if (mask->dtype() == DType::kBool) {
      p.mask_bool = reinterpret_cast<const uint8_t*>(mask->data);
    } else {
      p.mask_f32 = reinterpret_cast<const float*>(mask->data);
      const int64_t n = mask->count();
      bool bad = false;  // NaN or +inf
      for (int64_t j = 0; j < n; ++j) bad |= !(p.mask_f32[j] < kInf);
      if (bad) return false;
    }
  }
  if (p.has_mask() || p.causal) p.key_extent = KeyExtents(p);
  // Inputs whose f32 results could leave the reference's (see the top), over what the
  // kernel reads: all of q, and per kv head the keys some row of its q heads reads.
  float q_max, k_max = 0, v_max = 0;
  if (!AllFinite(ctx.pool, p.q, q.count(), &q_max)) return false;
  for (int64_t b = 0; b < p.batch; ++b) {
    for (int64_t g = 0; g < p.hkv; ++g) {
      int64_t keys = 0;
      for (int64_t h = g * p.group; h < (g + 1) * p.group; ++h)
        keys = std::max(keys, p.KeyExtent(b, h));
      float km, vm;
      if (!AllFinite(ctx.pool, p.k + (b * p.hkv + g) * p.kv_seq * p.dim, keys * p.dim, &km) ||
          !AllFinite(ctx.pool, p.v + (b * p.hkv + g) * p.kv_seq * p.dv, keys * p.dv, &vm)) {
        return false;
      }
      k_max = std::max(k_max, km);
      v_max = std::max(v_max, vm);
    }
  }
  // Scores below 1e28 in size, so that a key a row excludes by a fill at or below -1e30
  // beside one above -1e29 gets a weight of exactly zero here too (its score plus bias
  // stays below -8e29).
  if (static_cast<double>(q_max) * k_max * std::fabs(scale) * static_cast<double>(p.dim) > 1e28) {
    return false;
  }

  p.avx512 = fast::HasSoftmaxAvx512();
  const AttentionProducts products = ChooseProducts();
  p.onednn = products == AttentionProducts::kOneDnn;
  p.blas = products != AttentionProducts::kLoops;
  if (p.blas) {
    // Keys per block: on OpenBLAS as many as keep both products under its threading
    // threshold (above it each product would start threads of its own inside the pool's).
    const int64_t widest = std::max(p.dim, p.dv);
    p.key_block = p.onednn
                      ? kOneDnnKeyBlock
                      : std::clamp<int64_t>(kBlasSingleThreadWork / (kBlockRows * widest), 1, 512);
    if ((!p.onednn && widest > kBlasSingleThreadWork / kBlockRows) || p.dim > 1 << 20 ||
        p.dv > 1 << 20) {
      p.blas = p.onednn = false;  // heads so wide that no block fits (or beyond BLAS's int)
    }
    p.dv_pad = p.dv;
  }
  if (!p.blas) {
    p.key_block = 128;
    p.dv_pad = RoundUp(p.dv, kTileCols);
  }
  return true;
}

Status Attention(const KernelContext& ctx) {
  if (ctx.outputs[0].count() == 0) return Status::Ok();
  Problem p;
  if (!MakeProblem(ctx, p)) return Reference(ctx);

  const int64_t blocks = (p.seq + kBlockRows - 1) / kBlockRows;
  const int64_t items = p.batch * p.hq * blocks;
  // About 100k multiply-adds per chunk at least, so that small problems run inline.
  const int64_t item_work = std::min(p.seq, kBlockRows) * p.kv_seq * (p.dim + p.dv);
  const int64_t grain = std::max<int64_t>(1, 100000 / std::max<int64_t>(1, item_work));
  const int slots = ctx.pool != nullptr ? ctx.pool->num_threads() : 1;
  ScratchSlots scratch(slots, p.ScratchFloats());
#if SY_CPU_HAS_ONEDNN
  // oneDNN's sgemm on one thread wherever it is called: inside the pool's OpenMP team it
  // would be anyway (no nested teams), but a call outside one (inline, or a one-thread
  // pool) would start a team of the thread's default size, whose idle threads spin.
  std::optional<onednn::ScopedThreads> one_thread;
  if (p.onednn) one_thread.emplace(1);
#endif
  ParallelFor(ctx.pool, items, grain, [&p, &scratch, blocks](int64_t begin, int64_t end) {
    float* slot = scratch.Claim();
    for (int64_t it = begin; it < end; ++it) {
      const int64_t bh = it / blocks, blk = it % blocks;
      const int64_t i0 = blk * kBlockRows;
      RunItem(p, bh / p.hq, bh % p.hq, i0, std::min(kBlockRows, p.seq - i0), slot);
    }
    scratch.Release(slot);
  });
  return Status::Ok();
}

}  // namespace

void SetAttentionProducts(AttentionProducts choice) {
  products_choice.store(choice, std::memory_order_relaxed);
}

bool AttentionFastTakes(const KernelContext& ctx) {
  Problem p;
  return MakeProblem(ctx, p);
}

void AddAttentionFastKernels(KernelTable& table) { table.Add("attention", Attention); }

}  // namespace sy::cpu
