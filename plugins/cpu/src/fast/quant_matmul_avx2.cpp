// quant_matmul's AVX2 + FMA paths (this file is built with -mavx2 -mfma; fast/
// quant_matmul_fast.cpp calls it only where the CPU has both): f32 activations against
// codes unpacked to floats in registers, the dequantized rows of the tile path, and int8
// activations on vpmaddubsw.
#include <immintrin.h>

#include <cstdint>

#include "fast/quant_matmul_lanes.h"
#include "fast/quant_matmul_x86.h"

namespace sy::cpu::quant {
namespace {

// One chunk of codes, as kPerLane vectors of floats: code L * kPerLane + i of the chunk in
// lane L of vector i.
template <int kBits>
void UnpackChunk(const uint8_t* chunk_codes, __m256* f) {
  constexpr int kPerLane = 32 / kBits;
  const __m256i mask = _mm256_set1_epi32((1 << kBits) - 1);
  const __m256i packed = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(chunk_codes));
  for (int i = 0; i < kPerLane; ++i) {
    f[i] = _mm256_cvtepi32_ps(_mm256_and_si256(_mm256_srli_epi32(packed, i * kBits), mask));
  }
}

template <int kBits>
void FloatRows(const PackedWeights& w, const FloatLanes& a, int64_t rows, float* y, int64_t j0,
               int64_t j1) {
  constexpr int kPerLane = 32 / kBits;
  const int64_t row_bytes = w.n_blocks * w.block_bytes;
  const LaneBlocks lb = LaneBlocksOf(w, a.chunk);
  for (int64_t j = j0; j < j1; ++j) {
    const uint8_t* codes = w.codes + j * row_bytes;
    __m256 acc[kMaxFusedRows];
    for (int64_t r = 0; r < rows; ++r) acc[r] = _mm256_setzero_ps();
    for (int64_t c = 0; c < a.chunks; ++c) {
      __m256 f[kPerLane];
      UnpackChunk<kBits>(codes + c * 32, f);
      __m256 scale, zero;
      LaneParams(w, a.chunk, lb, j, c, &scale, &zero);
      for (int64_t r = 0; r < rows; ++r) {
        const float* ar = a.a + r * w.k + c * a.chunk;
        __m256 p0 = _mm256_mul_ps(f[0], _mm256_loadu_ps(ar));
        __m256 p1 = _mm256_mul_ps(f[1], _mm256_loadu_ps(ar + 8));
        for (int i = 2; i < kPerLane; i += 2) {
          p0 = _mm256_fmadd_ps(f[i], _mm256_loadu_ps(ar + 8 * i), p0);
          p1 = _mm256_fmadd_ps(f[i + 1], _mm256_loadu_ps(ar + 8 * i + 8), p1);
        }
        // sum (code - zero) * a = sum code * a - zero * sum a, per lane.
        const __m256 sums = _mm256_loadu_ps(a.sums + (r * a.chunks + c) * 8);
        const __m256 dot = _mm256_fnmadd_ps(zero, sums, _mm256_add_ps(p0, p1));
        acc[r] = _mm256_fmadd_ps(dot, scale, acc[r]);
      }
    }
    for (int64_t r = 0; r < rows; ++r) y[r * w.n + j] = HorizontalSum(acc[r]);
  }
}

template <int kBits>
void DequantizeRowLanes(const PackedWeights& w, int64_t chunks, int64_t j, float* out) {
  constexpr int kPerLane = 32 / kBits;
  constexpr int64_t kChunk = 8 * kPerLane;
  const LaneBlocks lb = LaneBlocksOf(w, kChunk);
  const uint8_t* codes = w.codes + j * w.n_blocks * w.block_bytes;
  for (int64_t c = 0; c < chunks; ++c) {
    __m256 f[kPerLane];
    UnpackChunk<kBits>(codes + c * 32, f);
    __m256 scale, zero;
    LaneParams(w, kChunk, lb, j, c, &scale, &zero);
    for (int i = 0; i < kPerLane; ++i) {
      _mm256_storeu_ps(out + c * kChunk + 8 * i, _mm256_mul_ps(_mm256_sub_ps(f[i], zero), scale));
    }
  }
}

// vpmaddubsw multiplies unsigned bytes by signed ones and adds pairs into 16 bits with
// saturation; vpmaddwd by ones then adds pairs of those into 32 bits. Nothing saturates
// with 4-bit codes: a 16-bit sum is at most 4 * 15 * 127. 8-bit codes are split into
// their nibbles, each product widened on its own (the high one by 16).
struct MaddubsDot {
  static __m256i Chunk4(__m256i lo, __m256i hi, const int8_t* q) {
    const __m256i pairs = _mm256_add_epi16(_mm256_maddubs_epi16(lo, LoadBytes(q)),
                                           _mm256_maddubs_epi16(hi, LoadBytes(q + 32)));
    return _mm256_madd_epi16(pairs, _mm256_set1_epi16(1));
  }
  static __m256i Chunk8(__m256i codes, const int8_t* q) {
    const __m256i low = _mm256_set1_epi8(0x0F);
    const __m256i qa = LoadBytes(q);
    const __m256i lo = _mm256_maddubs_epi16(_mm256_and_si256(codes, low), qa);
    const __m256i hi = _mm256_maddubs_epi16(_mm256_and_si256(_mm256_srli_epi16(codes, 4), low), qa);
    return _mm256_add_epi32(_mm256_madd_epi16(lo, _mm256_set1_epi16(1)),
                            _mm256_madd_epi16(hi, _mm256_set1_epi16(16)));
  }
};

}  // namespace

void FloatRowsAvx2(const PackedWeights& w, const FloatLanes& a, int64_t rows, float* y, int64_t j0,
                   int64_t j1) {
  if (w.bits == 4) return FloatRows<4>(w, a, rows, y, j0, j1);
  FloatRows<8>(w, a, rows, y, j0, j1);
}

void DequantizeRowLanesAvx2(const PackedWeights& w, int64_t chunks, int64_t j, float* out) {
  if (w.bits == 4) return DequantizeRowLanes<4>(w, chunks, j, out);
  DequantizeRowLanes<8>(w, chunks, j, out);
}

void Int8RowsAvx2(const PackedWeights& w, const Int8Lanes& a, int64_t rows, float* y, int64_t j0,
                  int64_t j1) {
  if (w.bits == 4) return Int8Rows<4, MaddubsDot>(w, a, rows, y, j0, j1);
  Int8Rows<8, MaddubsDot>(w, a, rows, y, j0, j1);
}

}  // namespace sy::cpu::quant
