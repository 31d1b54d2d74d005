// Reference kernels of the linalg family: matmul and gemm (spec/ops.md, "Linear algebra";
// ONNX semantics) and the extensions det and quant_matmul.
//
// Floats accumulate in double and are rounded once on store; matmul's integer dtypes
// accumulate in 64-bit two's complement (through uint64_t, so overflow wraps instead of
// being UB) and wrap again on store, as NumPy does. Output shapes come from core's shape
// rules (the output views already have them).
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <span>
#include <string_view>
#include <vector>

#include "ref/ref_kernels.h"

namespace sy::cpu {
namespace {

// ---------------------------------------------------------------------------------------
// matmul: NumPy semantics. A 1-D a is promoted to [1, K] and a 1-D b to [K, 1] (the
// promoted dim is absent from the output); batch dims broadcast.

// The product; matmul_integer passes its zero points (a's per row or scalar, b's per
// column or scalar), which integer operands lose before they meet.
Status MatMulWith(const KernelContext& ctx, const ConstTensorView* a_zero,
                  const ConstTensorView* b_zero) {
  const ConstTensorView& a = ctx.inputs[0];
  const ConstTensorView& b = ctx.inputs[1];
  const TensorView& y = ctx.outputs[0];
  Shape sa = a.shape();
  Shape sb = b.shape();
  if (sa.size() == 1) sa.insert(sa.begin(), 1);
  if (sb.size() == 1) sb.push_back(1);
  const int64_t m = sa[sa.size() - 2];
  const int64_t k = sa.back();
  const int64_t n = sb.back();
  const std::span<const int64_t> batch_a(sa.data(), sa.size() - 2);
  const std::span<const int64_t> batch_b(sb.data(), sb.size() - 2);
  Shape batch(std::max(batch_a.size(), batch_b.size()));
  for (size_t i = 0; i < batch.size(); ++i) {
    const size_t pa = batch.size() - batch_a.size();
    const size_t pb = batch.size() - batch_b.size();
    const int64_t da = i < pa ? 1 : batch_a[i - pa];
    const int64_t db = i < pb ? 1 : batch_b[i - pb];
    batch[i] = da == 1 ? db : da;
  }
  const int64_t batch_count = ElementCount(batch);
  const bool is_float = IsFloat(y.dtype());
  BroadcastCursor cursor_a(batch, batch_a);
  BroadcastCursor cursor_b(batch, batch_b);
  for (int64_t bi = 0; bi < batch_count; ++bi) {
    const int64_t a_base = cursor_a.offset() * m * k;
    const int64_t b_base = cursor_b.offset() * k * n;
    const int64_t y_base = bi * m * n;
    for (int64_t i = 0; i < m; ++i) {
      for (int64_t j = 0; j < n; ++j) {
        const int64_t out = y_base + i * n + j;
        if (is_float) {
          double acc = 0.0;
          for (int64_t l = 0; l < k; ++l) {
            acc += LoadFloat(a.dtype(), a.data, a_base + i * k + l) *
                   LoadFloat(b.dtype(), b.data, b_base + l * n + j);
          }
          StoreFloat(y.dtype(), y.data, out, acc);
        } else {
          const int64_t za = a_zero == nullptr ? 0
                                               : LoadInt(a_zero->dtype(), a_zero->data,
                                                         a_zero->count() > 1 ? i : 0);
          const int64_t zb = b_zero == nullptr ? 0
                                               : LoadInt(b_zero->dtype(), b_zero->data,
                                                         b_zero->count() > 1 ? j : 0);
          uint64_t acc = 0;  // wraps modulo 2^64 like NumPy's int64 accumulation
          for (int64_t l = 0; l < k; ++l) {
            acc += static_cast<uint64_t>(LoadInt(a.dtype(), a.data, a_base + i * k + l) - za) *
                   static_cast<uint64_t>(LoadInt(b.dtype(), b.data, b_base + l * n + j) - zb);
          }
          StoreInt(y.dtype(), y.data, out, static_cast<int64_t>(acc));
        }
      }
    }
    cursor_a.Next();
    cursor_b.Next();
  }
  return Status::Ok();
}

Status MatMul(const KernelContext& ctx) { return MatMulWith(ctx, nullptr, nullptr); }

// matmul_integer (ONNX MatMulInteger): sum_k (a - a_zero_point) (b - b_zero_point), exact,
// wrapped to i32 as any integer store.
Status MatMulInteger(const KernelContext& ctx) {
  const auto input = [&ctx](size_t i) {
    return ctx.inputs.size() > i && ctx.inputs[i].data != nullptr ? &ctx.inputs[i] : nullptr;
  };
  return MatMulWith(ctx, input(2), input(3));
}

// ---------------------------------------------------------------------------------------
// gemm: y = alpha * op(a) * op(b) + beta * c, with op(a) [M, K], op(b) [K, N] and c
// broadcast unidirectionally to [M, N]; without c, y = alpha * op(a) * op(b).

Status Gemm(const KernelContext& ctx) {
  const ConstTensorView& a = ctx.inputs[0];
  const ConstTensorView& b = ctx.inputs[1];
  const TensorView& y = ctx.outputs[0];
  const bool trans_a = ctx.attrs.GetInt("trans_a") != 0;
  const bool trans_b = ctx.attrs.GetInt("trans_b") != 0;
  const double alpha = ctx.attrs.GetFloat("alpha", 1.0);
  const double beta = ctx.attrs.GetFloat("beta", 1.0);
  const int64_t m = y.shape()[0];
  const int64_t n = y.shape()[1];
  const int64_t k = a.shape()[trans_a ? 0 : 1];
  const bool has_c = ctx.inputs.size() > 2;
  const Shape out_shape = {m, n};
  BroadcastCursor cursor_c(out_shape, has_c ? ctx.inputs[2].shape() : Shape{});
  for (int64_t i = 0; i < m; ++i) {
    for (int64_t j = 0; j < n; ++j) {
      double acc = 0.0;
      for (int64_t l = 0; l < k; ++l) {
        const int64_t ai = trans_a ? l * m + i : i * k + l;
        const int64_t bi = trans_b ? j * k + l : l * n + j;
        acc += LoadFloat(a.dtype(), a.data, ai) * LoadFloat(b.dtype(), b.data, bi);
      }
      double value = alpha * acc;
      if (has_c) {
        const ConstTensorView& c = ctx.inputs[2];
        value += beta * LoadFloat(c.dtype(), c.data, cursor_c.offset());
      }
      StoreFloat(y.dtype(), y.data, i * n + j, value);
      cursor_c.Next();
    }
  }
  return Status::Ok();
}

// ---------------------------------------------------------------------------------------
// det: each matrix's determinant by LU decomposition with partial pivoting, in double
// (LAPACK's getrf, which numpy.linalg.det calls): the product of the pivots, its sign
// flipped per row swap. A singular matrix gives a zero pivot and so 0 (or -0); NaN and
// infinities propagate through the arithmetic. An empty (0 x 0) matrix has determinant 1.

Status Det(const KernelContext& ctx) {
  const ConstTensorView& x = ctx.inputs[0];
  const TensorView& y = ctx.outputs[0];
  const int64_t m = x.shape()[x.shape().size() - 1];
  std::vector<double> a(static_cast<size_t>(m * m));
  for (int64_t b = 0; b < y.count(); ++b) {
    for (int64_t i = 0; i < m * m; ++i) {
      a[static_cast<size_t>(i)] = LoadFloat(x.dtype(), x.data, b * m * m + i);
    }
    auto at = [&](int64_t r, int64_t c) -> double& { return a[static_cast<size_t>(r * m + c)]; };
    double det = 1.0;
    for (int64_t k = 0; k < m; ++k) {
      int64_t pivot = k;  // the largest magnitude in column k at or below row k
      for (int64_t r = k + 1; r < m; ++r) {
        if (std::fabs(at(r, k)) > std::fabs(at(pivot, k))) pivot = r;
      }
      if (pivot != k) {
        for (int64_t c = 0; c < m; ++c) std::swap(at(k, c), at(pivot, c));
        det = -det;
      }
      const double p = at(k, k);
      det *= p;
      if (p == 0) continue;  // singular: det is 0 (or NaN from NaNs elsewhere)
      for (int64_t r = k + 1; r < m; ++r) {
        const double f = at(r, k) / p;
        for (int64_t c = k + 1; c < m; ++c) at(r, c) -= f * at(k, c);
      }
    }
    StoreFloat(y.dtype(), y.data, b, det);
  }
  return Status::Ok();
}

// ---------------------------------------------------------------------------------------
// quant_matmul: y[r, n] = sum_k a[r, k] * w[n, k], w[n, k] = (code(n, k) - zero_point) *
// scale of k's block (docs/ops.md). Each row of w is dequantized in double, then every
// row of a is multiplied with it, accumulating in double.

Status QuantMatmul(const KernelContext& ctx) {
  const ConstTensorView& a = ctx.inputs[0];
  const ConstTensorView& b = ctx.inputs[1];
  const ConstTensorView& scales = ctx.inputs[2];
  const uint8_t* zero_points =
      ctx.inputs.size() > 3 ? reinterpret_cast<const uint8_t*>(ctx.inputs[3].data) : nullptr;
  const TensorView& y = ctx.outputs[0];
  const int64_t bits = ctx.attrs.GetInt("bits", 4);
  const int64_t block_size = ctx.attrs.GetInt("block_size", 32);
  const int64_t k = a.shape().back();
  const int64_t n = b.shape()[0];
  const int64_t n_blocks = b.shape()[1];
  const int64_t block_bytes = b.shape()[2];
  const int64_t rows = n == 0 ? 0 : y.count() / n;
  const auto* codes = reinterpret_cast<const uint8_t*>(b.data);
  const int64_t default_zero = int64_t{1} << (bits - 1);
  std::vector<double> w(static_cast<size_t>(k));
  for (int64_t j = 0; j < n; ++j) {
    for (int64_t l = 0; l < k; ++l) {
      const int64_t block = l / block_size;
      const int64_t at = l % block_size;
      const uint8_t* bytes = codes + (j * n_blocks + block) * block_bytes;
      const int64_t code = bits == 8 ? bytes[at] : (bytes[at / 2] >> (4 * (at % 2))) & 0xF;
      const int64_t zero = zero_points ? zero_points[j * n_blocks + block] : default_zero;
      w[static_cast<size_t>(l)] = static_cast<double>(code - zero) *
                                  LoadFloat(scales.dtype(), scales.data, j * n_blocks + block);
    }
    for (int64_t r = 0; r < rows; ++r) {
      double acc = 0.0;
      for (int64_t l = 0; l < k; ++l) {
        acc += LoadFloat(a.dtype(), a.data, r * k + l) * w[static_cast<size_t>(l)];
      }
      StoreFloat(y.dtype(), y.data, r * n + j, acc);
    }
  }
  return Status::Ok();
}

}  // namespace

void AddLinalgRefKernels(KernelTable& table) {
  table.Add("matmul", MatMul);
  table.Add("matmul_integer", MatMulInteger);
  table.Add("gemm", Gemm);
  table.Add("det", Det);
  table.Add("quant_matmul", QuantMatmul);
}

}  // namespace sy::cpu
