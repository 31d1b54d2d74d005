// What quant_matmul's x86 files share (fast/quant_matmul_x86.h says which file is built
// for which instruction set): a chunk's per-lane weight parameters and the int8 path's
// loop over the weight rows, a template over the dot product of one chunk.
//
// Include only from those files, each built with at least AVX2 and FMA. Everything here is
// in an anonymous namespace, so each file compiles its own copy for its own instruction
// set (a shared inline copy could carry AVX-512 instructions into the AVX2 file).
#pragma once

#include <immintrin.h>

#include <cstdint>
#include <cstring>

#include "fast/quant_matmul_x86.h"

namespace sy::cpu::quant {
namespace {

inline float HorizontalSum(__m256 v) {
  const __m128 s = _mm_add_ps(_mm256_castps256_ps128(v), _mm256_extractf128_ps(v, 1));
  const __m128 t = _mm_add_ps(s, _mm_movehl_ps(s, s));
  return _mm_cvtss_f32(_mm_add_ss(t, _mm_shuffle_ps(t, t, 1)));
}

// What every chunk of one call shares: lane L's block within its chunk (a chunk covers
// chunk / block_size blocks when block_size is smaller, else lies in one block) and the
// default zero point.
struct LaneBlocks {
  int64_t blocks;      // blocks a chunk covers (1, 2 or 4)
  int block_shift;     // log2(block_size): code k lies in block k >> block_shift (no divide
                       // in the loops: block_size is a power of two)
  __m256i lane_block;  // lane L -> L * codes_per_lane / block_size
  __m256 default_zero;
};

inline LaneBlocks LaneBlocksOf(const PackedWeights& w, int64_t chunk) {
  LaneBlocks b;
  b.blocks = chunk > w.block_size ? chunk / w.block_size : 1;
  const int64_t codes_per_lane = chunk / 8;
  const int shift = __builtin_ctzll(static_cast<uint64_t>(w.block_size / codes_per_lane));
  b.lane_block = b.blocks == 1 ? _mm256_setzero_si256()
                               : _mm256_srlv_epi32(_mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7),
                                                   _mm256_set1_epi32(shift));
  b.default_zero = _mm256_set1_ps(static_cast<float>(int64_t{1} << (w.bits - 1)));
  b.block_shift = __builtin_ctzll(static_cast<uint64_t>(w.block_size));
  return b;
}

// Per lane of chunk c of weight row j: its block's scale.
inline __m256 LaneScales(const PackedWeights& w, int64_t chunk, const LaneBlocks& lb, int64_t j,
                         int64_t c) {
  const float* s = w.scales + j * w.n_blocks + ((c * chunk) >> lb.block_shift);
  if (lb.blocks == 1) return _mm256_set1_ps(s[0]);
  // 2 or 4 consecutive blocks, their scales spread over the lanes (two with one unaligned
  // 8-byte load: a float pointer is not a double's alignment).
  const __m128 scales =
      lb.blocks == 4 ? _mm_loadu_ps(s)
                     : _mm_castsi128_ps(_mm_loadl_epi64(reinterpret_cast<const __m128i*>(s)));
  return _mm256_permutevar8x32_ps(_mm256_castps128_ps256(scales), lb.lane_block);
}

// Per lane of chunk c of weight row j: its block's scale and zero point.
inline void LaneParams(const PackedWeights& w, int64_t chunk, const LaneBlocks& lb, int64_t j,
                       int64_t c, __m256* scale, __m256* zero) {
  *scale = LaneScales(w, chunk, lb, j, c);
  const uint8_t* z =
      w.zero_points ? w.zero_points + j * w.n_blocks + ((c * chunk) >> lb.block_shift) : nullptr;
  if (z == nullptr) {
    *zero = lb.default_zero;
  } else if (lb.blocks == 1) {
    *zero = _mm256_set1_ps(static_cast<float>(z[0]));
  } else {
    // Constant-size copies: a variable-length memcpy is a libc call per chunk.
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
}

// sum over blocks b of weight row j of scale * zero_point * a_sums[b]: what the zero
// points take off a row's int8 dot products (a_sums: Int8Lanes::block_sums of one row).
inline float ZeroCorrection(const PackedWeights& w, int64_t j, const float* a_sums) {
  const float* s = w.scales + j * w.n_blocks;
  const uint8_t* z = w.zero_points ? w.zero_points + j * w.n_blocks : nullptr;
  const __m256 default_zero = _mm256_set1_ps(static_cast<float>(int64_t{1} << (w.bits - 1)));
  __m256 acc = _mm256_setzero_ps();
  int64_t b = 0;
  for (; b + 8 <= w.n_blocks; b += 8) {
    const __m256 zero = z ? _mm256_cvtepi32_ps(_mm256_cvtepu8_epi32(
                                _mm_loadl_epi64(reinterpret_cast<const __m128i*>(z + b))))
                          : default_zero;
    acc = _mm256_fmadd_ps(_mm256_mul_ps(_mm256_loadu_ps(s + b), zero), _mm256_loadu_ps(a_sums + b),
                          acc);
  }
  float sum = HorizontalSum(acc);
  const float zero = static_cast<float>(int64_t{1} << (w.bits - 1));
  for (; b < w.n_blocks; ++b) sum += s[b] * (z ? static_cast<float>(z[b]) : zero) * a_sums[b];
  return sum;
}

// The int8 path over weight rows [j0, j1) for kRows rows of a, 32-byte chunks (accumulators in
// registers, two per row so that consecutive chunks' FMAs do not wait on each other).
// Dot::Chunk4(lo, hi, q) is the per-lane sum of the low nibbles times q[0, 32) and the
// high nibbles times q[32, 64); Dot::Chunk8(codes, q) the per-lane sum of codes times
// q[0, 32); both exact in 32 bits. Each lane's sum, scaled by the weight block's scale
// times a's block's, is accumulated in f32; the zero points come off once per row
// (ZeroCorrection), as sum (code - zero) * q = sum code * q - zero * sum q.
template <int kBits, int kRows, class Dot>
void Int8RowsOf(const PackedWeights& w, const Int8Lanes& a, float* y, int64_t j0, int64_t j1) {
  const int64_t row_bytes = w.n_blocks * w.block_bytes;
  const LaneBlocks lb = LaneBlocksOf(w, a.chunk);
  const __m256i low = _mm256_set1_epi8(0x0F);
  for (int64_t j = j0; j < j1; ++j) {
    const uint8_t* codes = w.codes + j * row_bytes;
    __m256 acc[kRows][2];
    for (int r = 0; r < kRows; ++r) acc[r][0] = acc[r][1] = _mm256_setzero_ps();
    const auto step = [&](int64_t c, int half) {
      const __m256i packed = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(codes + c * 32));
      __m256i lo = packed, hi = packed;
      if (kBits == 4) {
        lo = _mm256_and_si256(packed, low);
        hi = _mm256_and_si256(_mm256_srli_epi16(packed, 4), low);
      }
      const __m256 scale = LaneScales(w, a.chunk, lb, j, c);
      for (int r = 0; r < kRows; ++r) {
        const int8_t* q = a.q + r * w.k + c * a.chunk;
        const __m256i dot = kBits == 4 ? Dot::Chunk4(lo, hi, q) : Dot::Chunk8(packed, q);
        const __m256 both =
            _mm256_mul_ps(scale, _mm256_loadu_ps(a.lane_scales + (r * a.chunks + c) * 8));
        acc[r][half] = _mm256_fmadd_ps(_mm256_cvtepi32_ps(dot), both, acc[r][half]);
      }
    };
    int64_t c = 0;
    for (; c + 2 <= a.chunks; c += 2) {
      step(c, 0);
      step(c + 1, 1);
    }
    if (c < a.chunks) step(c, 0);
    for (int r = 0; r < kRows; ++r) {
      y[r * w.n + j] = HorizontalSum(_mm256_add_ps(acc[r][0], acc[r][1])) -
                       ZeroCorrection(w, j, a.block_sums + r * w.n_blocks);
    }
  }
}

template <int kBits, class Dot>
void Int8Rows(const PackedWeights& w, const Int8Lanes& a, int64_t rows, float* y, int64_t j0,
              int64_t j1) {
  switch (rows) {
    case 1:
      return Int8RowsOf<kBits, 1, Dot>(w, a, y, j0, j1);
    case 2:
      return Int8RowsOf<kBits, 2, Dot>(w, a, y, j0, j1);
    case 3:
      return Int8RowsOf<kBits, 3, Dot>(w, a, y, j0, j1);
    default:
      return Int8RowsOf<kBits, 4, Dot>(w, a, y, j0, j1);
  }
}

inline __m256i LoadBytes(const int8_t* q) {
  return _mm256_loadu_si256(reinterpret_cast<const __m256i*>(q));
}

// vpdpbusd over 256 bits, in the files built for it: unsigned codes times a's signed
// codes, four products a lane added into 32 bits with no intermediate saturation, so
// 8-bit codes need no split. AVX-512 VNNI's EVEX form (256 bits measured faster than 512
// on the AMD EPYC of docs/performance.md, whose 512-bit operations take two cycles) or
// AVX-VNNI's VEX form (CPUs with VNNI and no AVX-512).
#if defined(__AVX512VNNI__) && defined(__AVX512VL__)
#define SY_QUANT_DPBUSD _mm256_dpbusd_epi32
#elif defined(__AVXVNNI__)
#define SY_QUANT_DPBUSD _mm256_dpbusd_avx_epi32
#endif
#ifdef SY_QUANT_DPBUSD
struct DpbusdDot {
  static __m256i Chunk4(__m256i lo, __m256i hi, const int8_t* q) {
    const __m256i even = SY_QUANT_DPBUSD(_mm256_setzero_si256(), lo, LoadBytes(q));
    return SY_QUANT_DPBUSD(even, hi, LoadBytes(q + 32));
  }
  static __m256i Chunk8(__m256i codes, const int8_t* q) {
    return SY_QUANT_DPBUSD(_mm256_setzero_si256(), codes, LoadBytes(q));
  }
};
#endif

}  // namespace
}  // namespace sy::cpu::quant
