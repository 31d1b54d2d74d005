// PanelGemv (panel_gemv.h).
#include "fast/onednn/panel_gemv.h"

#include <immintrin.h>

#include <algorithm>
#include <cstring>

namespace sy::cpu::fast {
namespace {

constexpr int64_t kPanel = 64;  // columns per panel (BA16a64b's inner block of N)

// Panels [p0, p1): eight 8-lane accumulators per parity of k, so that two chains of FMAs
// are in flight while the next rows stream in.
// Rows after the first read the panel again from the cache (K x 64 floats: 192 KiB at
// K = 768), so a few rows cost little more than one.
__attribute__((target("avx2,fma"))) void Panels(const PanelLayout& l, int64_t rows,
                                                const float* x_rows, const float* packed,
                                                const float* bias, const float* residual_rows,
                                                float* y_rows, int64_t p0, int64_t p1) {
  for (int64_t p = p0; p < p1; ++p) {
    for (int64_t r = 0; r < rows; ++r) {
      const float* x = x_rows + r * l.k;
      const float* residual = residual_rows != nullptr ? residual_rows + r * l.n : nullptr;
      float* y = y_rows + r * l.n;
      const float* w = packed + p * l.padded_k * kPanel;
      __m256 even[8], odd[8];
      for (int j = 0; j < 8; ++j) even[j] = odd[j] = _mm256_setzero_ps();
      int64_t k = 0;
      for (; k + 2 <= l.k; k += 2, w += 2 * kPanel) {
        const __m256 x0 = _mm256_broadcast_ss(x + k);
        const __m256 x1 = _mm256_broadcast_ss(x + k + 1);
        for (int j = 0; j < 8; ++j) {
          even[j] = _mm256_fmadd_ps(x0, _mm256_loadu_ps(w + 8 * j), even[j]);
          odd[j] = _mm256_fmadd_ps(x1, _mm256_loadu_ps(w + kPanel + 8 * j), odd[j]);
        }
      }
      if (k < l.k) {
        const __m256 x0 = _mm256_broadcast_ss(x + k);
        for (int j = 0; j < 8; ++j)
          even[j] = _mm256_fmadd_ps(x0, _mm256_loadu_ps(w + 8 * j), even[j]);
      }
      alignas(32) float sums[kPanel];
      for (int j = 0; j < 8; ++j) _mm256_store_ps(sums + 8 * j, _mm256_add_ps(even[j], odd[j]));
      const int64_t first = p * kPanel;
      const int64_t count = std::min(kPanel, l.n - first);
      for (int64_t j = 0; j < count; ++j) {
        float v = sums[j];
        if (bias != nullptr) v += bias[first + j];
        if (residual != nullptr) v += residual[first + j];
        y[first + j] = v;
      }
    }
  }
}

}  // namespace

bool PanelGemvAvailable() {
  static const bool available = __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
  return available;
}

void PanelGemv(ThreadPool* pool, const PanelLayout& layout, int64_t rows, const float* x,
               const float* packed, const float* bias, const float* residual, float* y) {
  const int64_t panels = (layout.n + kPanel - 1) / kPanel;
  // A panel is padded_k * 64 floats of streaming: a chunk of a few panels is tens of
  // microseconds, well above a worker's wake-up.
  ParallelFor(pool, panels, 2, [&](int64_t p0, int64_t p1) {
    Panels(layout, rows, x, packed, bias, residual, y, p0, p1);
  });
}

}  // namespace sy::cpu::fast
