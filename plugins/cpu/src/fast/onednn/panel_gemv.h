// A few rows times a matrix that oneDNN packed (a decoder's token through a layer): oneDNN's
// matmul primitive reads its packed f32 weights at about 13 GB/s when M is 1 (measured on
// AVX-512 and AVX2 machines), well under the memory's bandwidth that bounds a decoding
// step, while the packed layout itself is a plain stream for one row: panels of 64
// columns, each the padded K rows of 64 floats (oneDNN's BA16a64b, the layout its
// avx512/avx2 brgemm kernels choose for any M). PanelGemv walks each panel once, in
// order, at 27 to 31 GB/s on the same machines (docs/cpu-kernels.md).
#pragma once

#include <cstdint>

#include "thread_pool.h"

namespace sy::cpu::fast {

struct PanelLayout {
  int64_t k = 0;         // the rows of the product (x's length)
  int64_t padded_k = 0;  // rows per panel in memory, k rounded up to oneDNN's block (16)
  int64_t n = 0;         // the columns (y's length); the last panel may be partly padding
};

// Whether the CPU runs PanelGemv's vector code (AVX2 and FMA); read once.
bool PanelGemvAvailable();

// For each of `rows` rows (at most kPanelGemvRows; x [rows, k], residual and y [rows, n],
// row-major): y[j] = sum_k x[k] * W[k, j] (+ bias[j]) (+ residual[j]) for j < layout.n, W
// packed as described above at `packed` (padding rows and columns are zero). bias (one
// row) and residual may be null. Sums in f32, two partial sums per column (even and odd
// k) added at the end. The panels are split over `pool`'s threads; each panel serves
// every row while it is in the cache (a batch of sequences decoding together).
inline constexpr int64_t kPanelGemvRows = 8;
void PanelGemv(ThreadPool* pool, const PanelLayout& layout, int64_t rows, const float* x,
               const float* packed, const float* bias, const float* residual, float* y);

}  // namespace sy::cpu::fast
