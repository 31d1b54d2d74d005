// Fast matmul and gemm through OpenBLAS (cblas_sgemm for f32, cblas_dgemm for f64).
//
// Integer matmul (ONNX MatMulInteger and the QLinear ops import to it) runs on the same
// BLAS calls when that is exact (MatMulIntegerExact below); f16 reaches the f32 path
// through half_as_f32.h. Every other dtype (bf16) and every case BLAS cannot take as it
// stands goes to the reference kernel: a dimension over BLAS's int range, a buffer not
// aligned for its dtype, and gemm with alpha == 0 (BLAS then skips op(a) * op(b), so a
// NaN or infinity in a or b would not reach the output as it does in the reference).
//
// Semantics are the reference kernels' (spec/ops.md, ONNX MatMul / Gemm); only the
// rounding differs: BLAS accumulates in the storage type, the reference in double.
#include <cblas.h>

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <limits>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

#include "fast/fast_kernels.h"
#include "fast/vec_math.h"
#include "ref/ref_kernels.h"

namespace sy::cpu {
namespace {

// The reference kernel for `ctx.op`, for the cases the BLAS path does not take.
Status RunReference(const KernelContext& ctx) {
  const KernelFn ref = RefKernels().Find(ctx.op);
  if (ref == nullptr) return Internal("no reference kernel for op " + std::string(ctx.op));
  return ref(ctx);
}

bool FitsBlasInt(int64_t v) { return v >= 0 && v <= std::numeric_limits<blasint>::max(); }

template <typename T>
bool AlignedFor(const void* p) {
  return reinterpret_cast<uintptr_t>(p) % alignof(T) == 0;
}

// C = alpha * op(A) * op(B) + beta * C, row-major.
template <typename T>
void BlasGemm(bool trans_a, bool trans_b, int64_t m, int64_t n, int64_t k, T alpha, const T* a,
              int64_t lda, const T* b, int64_t ldb, T beta, T* c, int64_t ldc) {
  const CBLAS_TRANSPOSE ta = trans_a ? CblasTrans : CblasNoTrans;
  const CBLAS_TRANSPOSE tb = trans_b ? CblasTrans : CblasNoTrans;
  const auto i = [](int64_t v) { return static_cast<blasint>(v); };
  if constexpr (std::is_same_v<T, float>) {
    cblas_sgemm(CblasRowMajor, ta, tb, i(m), i(n), i(k), alpha, a, i(lda), b, i(ldb), beta, c,
                i(ldc));
  } else {
    cblas_dgemm(CblasRowMajor, ta, tb, i(m), i(n), i(k), alpha, a, i(lda), b, i(ldb), beta, c,
                i(ldc));
  }
}

// ---------------------------------------------------------------------------------------
// matmul: NumPy semantics (1-D promotion, broadcast batch dims), as the reference.

template <typename T>
Status MatMulBlas(const KernelContext& ctx) {
  const ConstTensorView& a = ctx.inputs[0];
  const ConstTensorView& b = ctx.inputs[1];
  const TensorView& y = ctx.outputs[0];
  if (y.count() == 0) return Status::Ok();
  Shape sa = a.shape();
  Shape sb = b.shape();
  if (sa.size() == 1) sa.insert(sa.begin(), 1);
  if (sb.size() == 1) sb.push_back(1);
  const int64_t m = sa[sa.size() - 2];
  const int64_t k = sa.back();
  const int64_t n = sb.back();
  T* out = reinterpret_cast<T*>(y.data);
  if (!AlignedFor<T>(a.data) || !AlignedFor<T>(b.data) || !AlignedFor<T>(y.data) ||
      !FitsBlasInt(m) || !FitsBlasInt(n) || !FitsBlasInt(k)) {
    return RunReference(ctx);
  }
  if (k == 0) {  // empty sums
    std::fill(out, out + y.count(), T(0));
    return Status::Ok();
  }
  const T* pa = reinterpret_cast<const T*>(a.data);
  const T* pb = reinterpret_cast<const T*>(b.data);
  const std::span<const int64_t> batch_a(sa.data(), sa.size() - 2);
  const std::span<const int64_t> batch_b(sb.data(), sb.size() - 2);
  const int64_t count_a = ElementCount(batch_a);
  const int64_t count_b = ElementCount(batch_b);
  const int64_t batch_count = y.count() / (m * n);

  // b is one matrix and a's matrices are contiguous: one [batch * M, K] x [K, N] call.
  if (count_b == 1 && count_a == batch_count && FitsBlasInt(batch_count * m)) {
    BlasGemm<T>(false, false, batch_count * m, n, k, T(1), pa, k, pb, n, T(0), out, n);
    return Status::Ok();
  }

  Shape batch(std::max(batch_a.size(), batch_b.size()));
  for (size_t i = 0; i < batch.size(); ++i) {
    const size_t off_a = batch.size() - batch_a.size();
    const size_t off_b = batch.size() - batch_b.size();
    const int64_t da = i < off_a ? 1 : batch_a[i - off_a];
    const int64_t db = i < off_b ? 1 : batch_b[i - off_b];
    batch[i] = da == 1 ? db : da;
  }
  BroadcastCursor cursor_a(batch, batch_a);
  BroadcastCursor cursor_b(batch, batch_b);
  for (int64_t bi = 0; bi < batch_count; ++bi) {
    BlasGemm<T>(false, false, m, n, k, T(1), pa + cursor_a.offset() * m * k, k,
                pb + cursor_b.offset() * k * n, n, T(0), out + bi * m * n, n);
    cursor_a.Next();
    cursor_b.Next();
  }
  return Status::Ok();
}

// Integer matmul, exactly, on float BLAS. With |a| <= A and |b| <= B elementwise (this
// call's data, scanned), every product and every partial sum of a K-term dot product is
// an integer of magnitude at most K * A * B; when that is below 2^24 (f32) or 2^53 (f64)
// the float type represents each of them exactly, so whatever order and FMA use the BLAS
// kernel picks, the sum is the exact integer, which is stored with the reference's
// wrap-around. Larger bounds go to the reference kernel (int64 arithmetic). The scan and
// the widening cost O(MK + KN), against the product's O(MKN).
// Calls f(pointer) with t's data typed by its integer dtype (bool excluded by the caller).
template <typename F>
auto WithIntegers(const ConstTensorView& t, F f) {
  switch (t.dtype()) {
    case DType::kI8:
      return f(reinterpret_cast<const int8_t*>(t.data));
    case DType::kU8:
      return f(reinterpret_cast<const uint8_t*>(t.data));
    case DType::kI16:
      return f(reinterpret_cast<const int16_t*>(t.data));
    case DType::kU16:
      return f(reinterpret_cast<const uint16_t*>(t.data));
    case DType::kI32:
      return f(reinterpret_cast<const int32_t*>(t.data));
    case DType::kU32:
      return f(reinterpret_cast<const uint32_t*>(t.data));
    default:
      return f(reinterpret_cast<const int64_t*>(t.data));
  }
}

// The largest |v| of t's elements (|INT64_MIN| saturated: it fails every bound anyway).
int64_t LargestMagnitude(const ConstTensorView& t) {
  return WithIntegers(t, [n = t.count()](const auto* p) {
    int64_t largest = 0;
    for (int64_t i = 0; i < n; ++i) {
      const int64_t v = static_cast<int64_t>(p[i]);
      const int64_t magnitude =
          v >= 0 ? v
                 : (v == std::numeric_limits<int64_t>::min() ? std::numeric_limits<int64_t>::max()
                                                             : -v);
      largest = std::max(largest, magnitude);
    }
    return largest;
  });
}

template <typename T>
std::vector<T> Widened(const ConstTensorView& t) {
  std::vector<T> out(static_cast<size_t>(t.count()));
  WithIntegers(t, [&out](const auto* p) {
    for (size_t i = 0; i < out.size(); ++i) out[i] = static_cast<T>(p[i]);
    return 0;
  });
  return out;
}

// y's integers from the exact float products `fy`, wrapping as the reference stores.
template <typename T>
void StoreIntegers(const TensorView& y, const std::vector<T>& fy) {
  const auto store = [&](auto* out) {
    using Int = std::remove_pointer_t<decltype(out)>;
    for (size_t i = 0; i < fy.size(); ++i) {
      out[i] = static_cast<Int>(static_cast<uint64_t>(static_cast<int64_t>(fy[i])));
    }
  };
  switch (y.dtype()) {
    case DType::kI32:
      return store(reinterpret_cast<int32_t*>(y.data));
    case DType::kI64:
      return store(reinterpret_cast<int64_t*>(y.data));
    default:
      for (size_t i = 0; i < fy.size(); ++i) {
        StoreInt(y.dtype(), y.data, static_cast<int64_t>(i), static_cast<int64_t>(fy[i]));
      }
  }
}

// The product of a (widened here) and `fb`, b already widened to T, exactly: on
// `prepared` (an f32 kernel prepared for these operands) where given, else on BLAS.
template <typename T>
Status MatMulWidenedB(const KernelContext& ctx, DType float_type, const T* fb,
                      PreparedKernel* prepared = nullptr) {
  const ConstTensorView& a = ctx.inputs[0];
  const ConstTensorView& b = ctx.inputs[1];
  const TensorView& y = ctx.outputs[0];
  const std::vector<T> fa = Widened<T>(a);
  std::vector<T> fy(static_cast<size_t>(y.count()));
  const ConstTensorView in[2] = {
      {{float_type, a.shape()}, reinterpret_cast<const std::byte*>(fa.data())},
      {{float_type, b.shape()}, reinterpret_cast<const std::byte*>(fb)}};
  const TensorView out[1] = {{{float_type, y.shape()}, reinterpret_cast<std::byte*>(fy.data())}};
  const KernelContext widened{ctx.op, in, out, ctx.attrs, ctx.pool};
  SY_RETURN_IF_ERROR(prepared != nullptr ? prepared->Run(widened) : MatMulBlas<T>(widened));
  StoreIntegers(y, fy);
  return Status::Ok();
}

template <typename T>
Status MatMulIntegerAs(const KernelContext& ctx, DType float_type) {
  const std::vector<T> fb = Widened<T>(ctx.inputs[1]);
  return MatMulWidenedB<T>(ctx, float_type, fb.data());
}

using fast::ExactInF32;
using fast::ExactInF64;

Status MatMulIntegerExact(const KernelContext& ctx) {
  const ConstTensorView& a = ctx.inputs[0];
  const ConstTensorView& b = ctx.inputs[1];
  const auto aligned = [](const ConstTensorView& t) {
    return reinterpret_cast<uintptr_t>(t.data) % DTypeSize(t.dtype()) == 0;
  };
  if (ctx.outputs[0].count() == 0 || a.dtype() == DType::kBool || b.dtype() == DType::kBool ||
      !aligned(a) || !aligned(b)) {
    return RunReference(ctx);
  }
  const int64_t k = a.shape().back();
  // K * A * B in double: its rounding cannot move a bound across 2^24 or 2^53 by more
  // than the margin the comparisons below leave.
  const double bound = static_cast<double>(k) * static_cast<double>(LargestMagnitude(a)) *
                       static_cast<double>(LargestMagnitude(b));
  if (ExactInF32(bound)) return MatMulIntegerAs<float>(ctx, DType::kF32);
  if (ExactInF64(bound)) return MatMulIntegerAs<double>(ctx, DType::kF64);
  return RunReference(ctx);
}

// An integer matmul whose b is a constant of the model (a dynamically quantized model's
// weights, zero point already taken off by a folded sub): b widened to f32 once, at
// prepare, with its largest magnitude, so that a run scans and widens a only; the f32
// product runs on the prepared f32 kernel given (oneDNN's, b packed once) or else on
// OpenBLAS. Every partial sum of integers below 2^24 is exact in f32 in any order, FMA or
// not. A run whose bound reaches 2^24 takes the unprepared path (f64, or int64).
class IntegerMatMulConstantB : public PreparedKernel {
 public:
  IntegerMatMulConstantB(std::shared_ptr<const std::vector<float>> b, int64_t largest_b,
                         std::unique_ptr<PreparedKernel> f32_kernel)
      : b_(std::move(b)), largest_b_(largest_b), f32_kernel_(std::move(f32_kernel)) {}

  Status Run(const KernelContext& ctx) override {
    const ConstTensorView& a = ctx.inputs[0];
    const TensorView& y = ctx.outputs[0];
    const bool aligned = reinterpret_cast<uintptr_t>(a.data) % DTypeSize(a.dtype()) == 0;
    if (y.count() == 0 || a.dtype() == DType::kBool || !aligned) return MatMulIntegerExact(ctx);
    const double bound = static_cast<double>(a.shape().back()) *
                         static_cast<double>(LargestMagnitude(a)) * static_cast<double>(largest_b_);
    if (!ExactInF32(bound)) return MatMulIntegerExact(ctx);
    return MatMulWidenedB<float>(ctx, DType::kF32, b_->data(), f32_kernel_.get());
  }

  std::unique_ptr<PreparedKernel> Resized(const PrepareContext& ctx) const override {
    std::unique_ptr<PreparedKernel> f32_kernel;
    if (f32_kernel_ != nullptr) {
      const TensorType in[2] = {{DType::kF32, ctx.inputs[0].shape},
                                {DType::kF32, ctx.inputs[1].shape}};
      const TensorType out[1] = {{DType::kF32, ctx.outputs[0].shape}};
      f32_kernel = f32_kernel_->Resized(
          PrepareContext{ctx.op, in, out, ctx.attrs, ctx.constant_inputs, ctx.num_threads});
      if (f32_kernel == nullptr) return nullptr;
    }
    return std::make_unique<IntegerMatMulConstantB>(b_, largest_b_, std::move(f32_kernel));
  }

 private:
  std::shared_ptr<const std::vector<float>> b_;  // shared by the resized copies
  int64_t largest_b_;
  std::unique_ptr<PreparedKernel> f32_kernel_;  // nullptr: OpenBLAS
};

}  // namespace

std::unique_ptr<PreparedKernel> PrepareIntegerMatMul(const PrepareContext& ctx,
                                                     PrepareFn f32_prepare) {
  if (ctx.op != "matmul" || ctx.inputs.size() != 2 || ctx.outputs.size() != 1 ||
      ctx.constant_inputs.size() < 2 || ctx.constant_inputs[1] == nullptr) {
    return nullptr;
  }
  const DType out = ctx.outputs[0].dtype;
  const TensorType& b_type = ctx.inputs[1];
  if (IsFloat(out) || out == DType::kBool || b_type.dtype == DType::kBool || b_type.shape.empty() ||
      reinterpret_cast<uintptr_t>(ctx.constant_inputs[1]) % DTypeSize(b_type.dtype) != 0) {
    return nullptr;
  }
  const ConstTensorView b{b_type, ctx.constant_inputs[1]};
  const int64_t largest = LargestMagnitude(b);
  const int64_t k =
      b_type.shape.size() == 1 ? b_type.shape[0] : b_type.shape[b_type.shape.size() - 2];
  // Not even a = +-1 would keep the products exact in f32: the unprepared path decides.
  if (!ExactInF32(static_cast<double>(k) * static_cast<double>(largest))) return nullptr;
  try {
    auto widened = std::make_shared<const std::vector<float>>(Widened<float>(b));
    std::unique_ptr<PreparedKernel> f32_kernel;
    if (f32_prepare != nullptr) {
      const TensorType in[2] = {{DType::kF32, ctx.inputs[0].shape}, {DType::kF32, b_type.shape}};
      const TensorType outs[1] = {{DType::kF32, ctx.outputs[0].shape}};
      const std::byte* constants[2] = {nullptr,
                                       reinterpret_cast<const std::byte*>(widened->data())};
      f32_kernel =
          f32_prepare(PrepareContext{ctx.op, in, outs, ctx.attrs, constants, ctx.num_threads});
    }
    return std::make_unique<IntegerMatMulConstantB>(std::move(widened), largest,
                                                    std::move(f32_kernel));
  } catch (const std::bad_alloc&) {
    return nullptr;  // the plain kernel widens b per run instead
  }
}

namespace {

Status MatMul(const KernelContext& ctx) {
  switch (ctx.outputs[0].dtype()) {
    case DType::kF32:
      return MatMulBlas<float>(ctx);
    case DType::kF64:
      return MatMulBlas<double>(ctx);
    case DType::kI8:
    case DType::kU8:
    case DType::kI16:
    case DType::kU16:
    case DType::kI32:
    case DType::kU32:
    case DType::kI64:
      return MatMulIntegerExact(ctx);
    default:
      return RunReference(ctx);
  }
}

// ---------------------------------------------------------------------------------------
// gemm: y = alpha * op(a) * op(b) + beta * c, c broadcast unidirectionally to [M, N].
// The broadcast c is copied into y, and BLAS scales it by beta in place.

template <typename T>
Status GemmBlas(const KernelContext& ctx) {
  const ConstTensorView& a = ctx.inputs[0];
  const ConstTensorView& b = ctx.inputs[1];
  const ConstTensorView* c = ctx.inputs.size() > 2 ? &ctx.inputs[2] : nullptr;
  const TensorView& y = ctx.outputs[0];
  const bool trans_a = ctx.attrs.GetInt("trans_a") != 0;
  const bool trans_b = ctx.attrs.GetInt("trans_b") != 0;
  const T alpha = static_cast<T>(ctx.attrs.GetFloat("alpha", 1.0));
  const T beta = static_cast<T>(ctx.attrs.GetFloat("beta", 1.0));
  const int64_t m = y.shape()[0];
  const int64_t n = y.shape()[1];
  const int64_t k = a.shape()[trans_a ? 0 : 1];
  if (y.count() == 0) return Status::Ok();
  if (alpha == T(0) || !AlignedFor<T>(a.data) || !AlignedFor<T>(b.data) || !AlignedFor<T>(y.data) ||
      (c != nullptr && !AlignedFor<T>(c->data)) || !FitsBlasInt(m) || !FitsBlasInt(n) ||
      !FitsBlasInt(k)) {
    return RunReference(ctx);
  }
  T* out = reinterpret_cast<T*>(y.data);
  // c's element strides over [M, N]: 0 along the dims it broadcasts.
  int64_t c_row = 0;
  int64_t c_col = 0;
  const T* pc = nullptr;
  if (c != nullptr) {
    pc = reinterpret_cast<const T*>(c->data);
    const Shape& sc = c->shape();
    if (sc.size() >= 1 && sc.back() != 1) c_col = 1;
    if (sc.size() == 2 && sc[0] != 1) c_row = sc[1];
  }
  if (c != nullptr && beta != T(0)) {
    for (int64_t i = 0; i < m; ++i) {
      for (int64_t j = 0; j < n; ++j) out[i * n + j] = pc[i * c_row + j * c_col];
    }
  }
  const T blas_beta = c != nullptr ? beta : T(0);
  if (k == 0) {  // op(a) * op(b) is all zeros: y = beta * c
    for (int64_t i = 0; i < y.count(); ++i) out[i] = blas_beta == T(0) ? T(0) : out[i] * blas_beta;
  } else {
    const int64_t lda = trans_a ? m : k;
    const int64_t ldb = trans_b ? k : n;
    BlasGemm<T>(trans_a, trans_b, m, n, k, alpha, reinterpret_cast<const T*>(a.data), lda,
                reinterpret_cast<const T*>(b.data), ldb, blas_beta, out, n);
  }
  if (c != nullptr && beta == T(0)) {
    // BLAS never reads c when beta is 0; the reference adds 0 * c, which is NaN where c
    // is NaN or infinite.
    for (int64_t i = 0; i < m; ++i) {
      for (int64_t j = 0; j < n; ++j) out[i * n + j] += T(0) * pc[i * c_row + j * c_col];
    }
  }
  return Status::Ok();
}

Status Gemm(const KernelContext& ctx) {
  switch (ctx.outputs[0].dtype()) {
    case DType::kF32:
      return GemmBlas<float>(ctx);
    case DType::kF64:
      return GemmBlas<double>(ctx);
    default:
      return RunReference(ctx);
  }
}

}  // namespace

void SetBlasThreadCount(int num_threads) { openblas_set_num_threads(num_threads); }

std::string BlasDescription() {
  // openblas_get_config() reads "OpenBLAS 0.3.21 DYNAMIC_ARCH NO_AFFINITY SkylakeX MAX_THREADS=64".
  std::string config = openblas_get_config();
  const size_t space = config.find(' ', config.find(' ') + 1);
  return config.substr(0, space) + ", core " + openblas_get_corename();
}

Expected<GemmLibrary> GemmChoice() {
  const char* choice = std::getenv("SWITCHYARD_CPU_GEMM");
  if (choice == nullptr || *choice == '\0') return GemmLibrary::kDefault;
  if (std::string_view(choice) == "onednn") return GemmLibrary::kOneDnn;
  if (std::string_view(choice) == "openblas") return GemmLibrary::kOpenBlas;
  return InvalidArgument(std::string("SWITCHYARD_CPU_GEMM=") + choice +
                         ": expected onednn (the default where built) or openblas");
}

void AddMatmulBlasKernels(KernelTable& table) {
  table.Add("matmul", MatMul);
  table.Add("gemm", Gemm);
}

}  // namespace sy::cpu
