// matmul_integer (ONNX MatMulInteger) on the `cpu` device: u8/i8 a [..., M, K] and b [K, N]
// (b one matrix: all its batch dims 1) less their zero points, multiplied exactly into i32.
//
// Two ways, both exact:
// - here: the shifted operands widened to f32 and multiplied on OpenBLAS's sgemm when every
//   partial sum stays below 2^24 (K * max|a - za| * max|b - zb|), else to f64 on dgemm below
//   2^53, else the reference kernel (int64 arithmetic). With a constant b (a layer's
//   weights) b is widened once, at prepare.
// - fast/onednn/onednn_matmul_integer.cpp: oneDNN's u8 x s8 -> s32 matmul (vpdpbusd, four
//   times as many products an instruction as f32) on CPUs with VNNI, where a is u8 and b
//   a constant; it runs before the prepare here and falls back to it.
// Other shapes (b with batch dims) go to the reference kernel.
#include <cblas.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <memory>
#include <new>
#include <optional>
#include <string>
#include <type_traits>
#include <vector>

#include "fast/fast_kernels.h"
#include "fast/matmul_integer.h"
#include "fast/vec_math.h"
#include "ref/ref_kernels.h"
#include "thread_pool.h"

namespace sy::cpu {
namespace {

Status Reference(const KernelContext& ctx) { return RefKernels().Find("matmul_integer")(ctx); }

// v - zero into out[0, count) as F, with each element's zero point zero(i); returns
// max |v - zero|.
template <typename F, typename Zero>
int64_t Shift(DType dtype, const std::byte* data, int64_t count, Zero zero, F* out) {
  int64_t largest = 0;
  for (int64_t i = 0; i < count; ++i) {
    const int64_t v = LoadByte(dtype, data, i) - zero(i);
    largest = std::max(largest, v < 0 ? -v : v);
    out[i] = static_cast<F>(v);
  }
  return largest;
}

// y [rows, n] = a' [rows, k] b' [k, n] on BLAS, stored as i32 (exact integers).
template <typename F>
void Product(int64_t rows, int64_t k, int64_t n, const F* a, const F* b, F* c, int32_t* y) {
  if constexpr (std::is_same_v<F, float>) {
    cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, static_cast<blasint>(rows),
                static_cast<blasint>(n), static_cast<blasint>(k), 1.0f, a, static_cast<blasint>(k),
                b, static_cast<blasint>(n), 0.0f, c, static_cast<blasint>(n));
  } else {
    cblas_dgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, static_cast<blasint>(rows),
                static_cast<blasint>(n), static_cast<blasint>(k), 1.0, a, static_cast<blasint>(k),
                b, static_cast<blasint>(n), 0.0, c, static_cast<blasint>(n));
  }
  for (int64_t i = 0; i < rows * n; ++i) y[i] = static_cast<int32_t>(static_cast<int64_t>(c[i]));
}

// b' = b - zb widened to F, and its largest magnitude.
template <typename F>
struct WidenedB {
  std::vector<F> values;
  int64_t largest = 0;
};

template <typename F>
WidenedB<F> WidenB(const MatMulIntegerShape& s, DType dtype, const std::byte* b,
                   const ConstTensorView* zb) {
  WidenedB<F> w;
  w.values.resize(static_cast<size_t>(s.k * s.n));
  const auto zero = [&](int64_t i) {
    return zb == nullptr ? 0 : LoadByte(zb->dtype(), zb->data, zb->count() > 1 ? i % s.n : 0);
  };
  w.largest = Shift(dtype, b, s.k * s.n, zero, w.values.data());
  return w;
}

// The product with b' given (widened at prepare) or not (widened here): a shifted and
// widened, then sgemm, or both in f64 (b widened again) when f32 is not exact. Shapes the
// fast kernels do not take go to the reference.
Status RunWidened(const KernelContext& ctx, const WidenedB<float>* b32) {
  const ConstTensorView& a = ctx.inputs[0];
  const std::optional<MatMulIntegerShape> shape =
      MatMulIntegerShapeOf(a.shape(), ctx.inputs[1].shape(), ctx.outputs[0].count());
  if (!shape) return Reference(ctx);
  const MatMulIntegerShape& s = *shape;
  if (s.rows * s.n == 0) return Status::Ok();
  const ConstTensorView* za = ctx.inputs.size() > 2 ? &ctx.inputs[2] : nullptr;
  const ConstTensorView* zb = ctx.inputs.size() > 3 ? &ctx.inputs[3] : nullptr;
  auto* y = reinterpret_cast<int32_t*>(ctx.outputs[0].data);
  const auto a_zero = [&](int64_t i) {
    return za == nullptr ? 0
                         : LoadByte(za->dtype(), za->data, za->count() > 1 ? (i / s.k) % s.m : 0);
  };
  try {
    std::vector<float> a32(static_cast<size_t>(s.rows * s.k)),
        c32(static_cast<size_t>(s.rows * s.n));
    const int64_t a_largest = Shift(a.dtype(), a.data, s.rows * s.k, a_zero, a32.data());
    WidenedB<float> local;
    if (b32 == nullptr) {
      local = WidenB<float>(s, ctx.inputs[1].dtype(), ctx.inputs[1].data, zb);
      b32 = &local;
    }
    const double bound = static_cast<double>(s.k) * static_cast<double>(a_largest) *
                         static_cast<double>(b32->largest);
    if (fast::ExactInF32(bound)) {
      Product(s.rows, s.k, s.n, a32.data(), b32->values.data(), c32.data(), y);
      return Status::Ok();
    }
    if (!fast::ExactInF64(bound)) return Reference(ctx);
    std::vector<double> a64(a32.begin(), a32.end()), c64(static_cast<size_t>(s.rows * s.n));
    const WidenedB<double> b64 = WidenB<double>(s, ctx.inputs[1].dtype(), ctx.inputs[1].data, zb);
    Product(s.rows, s.k, s.n, a64.data(), b64.values.data(), c64.data(), y);
    return Status::Ok();
  } catch (const std::bad_alloc&) {
    return ResourceExhausted("matmul_integer: no memory to widen its operands (" +
                             std::to_string(s.rows) + " x " + std::to_string(s.k) + " and " +
                             std::to_string(s.k) + " x " + std::to_string(s.n) + ")");
  }
}

Status MatMulIntegerFast(const KernelContext& ctx) { return RunWidened(ctx, nullptr); }

// A constant b widened once (with its zero point), at prepare.
class WidenedMatMulInteger final : public PreparedKernel {
 public:
  explicit WidenedMatMulInteger(WidenedB<float> b) : b_(std::move(b)) {}
  Status Run(const KernelContext& ctx) override { return RunWidened(ctx, &b_); }
  std::string Implementation() const override { return "widened_sgemm"; }

 private:
  WidenedB<float> b_;
};

}  // namespace

std::optional<MatMulIntegerShape> MatMulIntegerShapeOf(const Shape& a, const Shape& b,
                                                       int64_t y_count) {
  if (a.empty() || b.size() < 2) return std::nullopt;
  for (size_t d = 0; d + 2 < b.size(); ++d) {
    if (b[d] != 1) return std::nullopt;  // a batch of b matrices: the reference
  }
  MatMulIntegerShape s;
  s.k = a.back();
  s.n = b.back();
  s.m = a.size() >= 2 ? a[a.size() - 2] : 1;
  s.rows = s.n > 0 ? y_count / s.n : 0;
  if (s.k != b[b.size() - 2] || s.rows * s.n != y_count) return std::nullopt;
  if (ElementCount(a) != s.rows * s.k) return std::nullopt;  // b's batch dims broadcast a
  const int64_t limit = int64_t{1} << 30;                    // BLAS's int, with room
  if (s.rows > limit || s.k > limit || s.n > limit) return std::nullopt;
  return s;
}

std::unique_ptr<PreparedKernel> PrepareWidenedMatMulInteger(const PrepareContext& ctx) {
  if (ctx.constant_inputs.size() < 2 || ctx.constant_inputs[1] == nullptr) return nullptr;
  const bool zb_given = ctx.inputs.size() > 3;
  if (zb_given && ctx.constant_inputs[3] == nullptr) return nullptr;
  const std::optional<MatMulIntegerShape> s = MatMulIntegerShapeOf(
      ctx.inputs[0].shape, ctx.inputs[1].shape, ElementCount(ctx.outputs[0].shape));
  if (!s) return nullptr;
  std::optional<ConstTensorView> zb;
  if (zb_given) zb = ConstTensorView{ctx.inputs[3], ctx.constant_inputs[3]};
  try {
    return std::make_unique<WidenedMatMulInteger>(
        WidenB<float>(*s, ctx.inputs[1].dtype, ctx.constant_inputs[1], zb ? &*zb : nullptr));
  } catch (const std::bad_alloc&) {
    return nullptr;  // the plain kernel widens per run
  }
}

void AddMatmulIntegerFastKernels(KernelTable& table) {
  table.Add("matmul_integer", MatMulIntegerFast, PrepareWidenedMatMulInteger);
}

}  // namespace sy::cpu
