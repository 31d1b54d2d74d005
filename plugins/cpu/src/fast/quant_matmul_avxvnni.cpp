// quant_matmul's int8 path on AVX-VNNI (vpdpbusd's VEX form, on CPUs with VNNI and no
// AVX-512). Built with -mavx2 -mfma -mavxvnni; fast/quant_matmul_fast.cpp calls it only
// where the CPU has them.
#include "fast/quant_matmul_lanes.h"

namespace sy::cpu::quant {

void Int8RowsAvxVnni(const PackedWeights& w, const Int8Lanes& a, int64_t rows, float* y, int64_t j0,
                     int64_t j1) {
  if (w.bits == 4) return Int8Rows<4, DpbusdDot>(w, a, rows, y, j0, j1);
  Int8Rows<8, DpbusdDot>(w, a, rows, y, j0, j1);
}

}  // namespace sy::cpu::quant
