// What the two files of matmul_integer's cpu kernels share (fast/matmul_integer_fast.cpp:
// the widened f32/f64 products; fast/onednn/onednn_matmul_integer.cpp: oneDNN's u8 x s8
// product on CPUs with VNNI).
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>

#include "kernel.h"

namespace sy::cpu {

// a [..., M, K] (its leading dims folded into `rows`) times b [K, N].
struct MatMulIntegerShape {
  int64_t rows = 0, m = 0, k = 0, n = 0;
};

// The shape of a case the fast kernels take: b one matrix (its batch dims all 1), sizes
// within BLAS's int; nullopt for the rest (the reference kernel runs them).
std::optional<MatMulIntegerShape> MatMulIntegerShapeOf(const Shape& a, const Shape& b,
                                                       int64_t y_count);

// Element i of u8 or i8 data.
inline int64_t LoadByte(DType dtype, const std::byte* data, int64_t i) {
  return dtype == DType::kU8 ? static_cast<int64_t>(reinterpret_cast<const uint8_t*>(data)[i])
                             : static_cast<int64_t>(reinterpret_cast<const int8_t*>(data)[i]);
}

// The prepared kernel that widens a constant b (less its zero point) to f32 once, or
// nullptr when b (or its zero point) is not a constant. oneDNN's prepare falls back to it.
std::unique_ptr<PreparedKernel> PrepareWidenedMatMulInteger(const PrepareContext& ctx);

}  // namespace sy::cpu
