// The x86 vector paths of quant_matmul (fast/quant_matmul_fast.cpp chooses and threads
// them; docs/cpu-kernels.md, "Block-quantized matmul"). Each lives in a file built for its
// instruction set (plugins/cpu/CMakeLists.txt): quant_matmul_avx2.cpp (AVX2 + FMA: the f32
// paths and the int8 path on vpmaddubsw), quant_matmul_avx512vnni.cpp (AVX-512 VNNI with VL,
// and quant_matmul_avxvnni.cpp (AVX-VNNI): the int8 path on vpdpbusd).
//
// Plain data and declarations only: this header is shared by files built for different
// instruction sets, and an inline function defined here could be compiled with AVX-512
// in one of them and be the copy the linker keeps for all.
#pragma once

#include <cstdint>

namespace sy::cpu::quant {

// The packed weights of one quant_matmul call, as the schema lays them out (docs/ops.md).
struct PackedWeights {
  const uint8_t* codes;        // [n, n_blocks, block_bytes]
  const float* scales;         // [n, n_blocks]
  const uint8_t* zero_points;  // [n, n_blocks] or nullptr: 2^(bits - 1)
  int64_t n, k, n_blocks, block_bytes, block_size, bits;
};

// The vector paths read a weight row 32 bytes (8 lanes of 32 bits) at a time: a chunk of
// 64 4-bit codes or 32 8-bit ones. A weight row's codes are contiguous across blocks (a
// block is block_size * bits / 8 bytes and the last one is padded), so chunk c is bytes
// [32c, 32c + 32) of the row. Each path lays `a` out once per call to meet a chunk's codes
// where they lie, whole chunks first and the rest of K (the scalar tail) after them.

// For the f32 paths: lane L holds codes L * per_lane + i (i < per_lane: 8 of 4 bits or 4
// of 8 bits), and code i of every lane comes out of one shift and one mask; a is permuted
// so that vector i of a chunk meets a's elements {L * per_lane + i}.
struct FloatLanes {
  const float* a;     // [rows, K]: a permuted over whole chunks, then as is
  const float* sums;  // [rows, chunks, 8]: per lane, the sum of its a elements
  int64_t chunks;     // chunks wholly inside K
  int64_t chunk;      // codes a chunk holds
};

// For the int8 paths: a quantized per block of the weights' block_size (scale = max|a| /
// 127, codes rounded to nearest even), laid out so that a 4-bit chunk's low nibbles (codes
// 2i of the chunk) meet its first 32 bytes and its high nibbles (codes 2i + 1) the next
// 32; an 8-bit chunk meets a's codes in their order. Lane L of a chunk covers bytes 4L to
// 4L + 3 of its codes, which lie in one block.
struct Int8Lanes {
  const int8_t* q;           // [rows, K]: a's codes, laid out over whole chunks, then as is
  const float* lane_scales;  // [rows, chunks, 8]: per lane, the scale of a's block
  const float* block_sums;   // [rows, n_blocks]: a's scale times the sum of its codes over
                             // the whole chunks (what a zero point multiplies)
  int64_t chunks;            // chunks wholly inside K
  int64_t chunk;             // codes a chunk holds
};

// y[r * n + j] for rows r < rows and weight rows j in [j0, j1): the chunks' part of each
// dot product (the caller adds the scalar tail past chunks * chunk). rows is 1 to
// kMaxFusedRows.
inline constexpr int64_t kMaxFusedRows = 4;
void FloatRowsAvx2(const PackedWeights& w, const FloatLanes& a, int64_t rows, float* y, int64_t j0,
                   int64_t j1);
void Int8RowsAvx2(const PackedWeights& w, const Int8Lanes& a, int64_t rows, float* y, int64_t j0,
                  int64_t j1);
void Int8RowsAvx512Vnni(const PackedWeights& w, const Int8Lanes& a, int64_t rows, float* y,
                        int64_t j0, int64_t j1);
void Int8RowsAvxVnni(const PackedWeights& w, const Int8Lanes& a, int64_t rows, float* y, int64_t j0,
                     int64_t j1);

// Weight row j dequantized into out[0, chunks * chunk) in FloatLanes' order (the tile path
// multiplies it with a laid out the same way); the caller writes the tail.
void DequantizeRowLanesAvx2(const PackedWeights& w, int64_t chunks, int64_t j, float* out);

}  // namespace sy::cpu::quant
