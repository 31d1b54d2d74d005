// matmul_integer on oneDNN's u8 x s8 -> s32 matmul, where the CPU has VNNI (vpdpbusd: four
// byte products a lane summed into 32 bits exactly, four times the products of an f32
// FMA) and oneDNN generates code for it; built once at prepare, b reordered into the
// primitive's blocked layout then.
//
// oneDNN multiplies the raw u8 a by b as s8 (b - 128 when b is u8); the zero points and
// that offset come off exactly in 64-bit integers afterwards (b = bs + off):
//   sum_k (a_k - za)(b_kn - zb_n)
//     = D_mn + (off - zb_n) R_m - za S_n - K za (off - zb_n)
// with D = a bs (oneDNN's product), R_m = sum_k a_mk (per run), S_n = sum_k bs_kn (at
// prepare). Exact while |D| < 2^31 (K up to 65536 at worst), wrapped to i32 as the
// reference stores it.
//
// Without VNNI (AVX2, AVX-512 without it) oneDNN's u8 x s8 kernels add pairs of products in
// 16 bits with saturation (vpmaddubsw), so those CPUs keep the widened f32 product
// (fast/matmul_integer_fast.cpp), as do an i8 a, a b or b zero point that is not a constant,
// and runs at other row counts than the prepared one.
#include <algorithm>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "fast/fast_kernels.h"
#include "fast/matmul_integer.h"
#include "fast/onednn/onednn_common.h"

namespace sy::cpu {
namespace {

using dnnl::memory;

class OneDnnMatMulInteger final : public PreparedKernel {
 public:
  // b [K, N] (u8 or i8) and its zero points (nullptr: 0) are the constants' bytes.
  OneDnnMatMulInteger(const MatMulIntegerShape& s, DType b_dtype, const std::byte* b,
                      const ConstTensorView* zb, int num_threads,
                      std::unique_ptr<PreparedKernel> fallback)
      : s_(s), num_threads_(num_threads), fallback_(std::move(fallback)) {
    const onednn::ScopedThreads threads(num_threads_);
    const dnnl::engine& eng = onednn::Engine();
    const memory::desc src({s.rows, s.k}, memory::data_type::u8, memory::format_tag::ab);
    const memory::desc dst({s.rows, s.n}, memory::data_type::s32, memory::format_tag::ab);
    const memory::desc plain_weights({s.k, s.n}, memory::data_type::s8, memory::format_tag::ab);
    const memory::desc any_weights({s.k, s.n}, memory::data_type::s8, memory::format_tag::any);
    const dnnl::matmul::primitive_desc pd(dnnl::matmul::desc(src, any_weights, dst), eng);
    if (!onednn::IsJit(pd)) return;  // ok() false: the caller keeps the fallback
    // bs = b - off as s8, its column sums and each column's off - zb.
    off_ = b_dtype == DType::kU8 ? 128 : 0;
    std::vector<int8_t> bs(static_cast<size_t>(s.k * s.n));
    column_sums_.assign(static_cast<size_t>(s.n), 0);
    shift_.resize(static_cast<size_t>(s.n));
    for (int64_t i = 0; i < s.k * s.n; ++i) {
      const int64_t v = LoadByte(b_dtype, b, i) - off_;
      bs[static_cast<size_t>(i)] = static_cast<int8_t>(v);
      column_sums_[static_cast<size_t>(i % s.n)] += v;
    }
    for (int64_t j = 0; j < s.n; ++j) {
      const int64_t z =
          zb == nullptr ? 0 : LoadByte(zb->dtype(), zb->data, zb->count() > 1 ? j : 0);
      shift_[static_cast<size_t>(j)] = off_ - z;
    }
    stream_ = dnnl::stream(eng);
    memory plain(plain_weights, eng, bs.data());
    weights_ = memory(pd.weights_desc(), eng);
    dnnl::reorder(plain, weights_).execute(stream_, plain, weights_);
    stream_.wait();
    src_ = memory(src, eng, DNNL_MEMORY_NONE);
    dst_ = memory(dst, eng, DNNL_MEMORY_NONE);
    primitive_ = dnnl::matmul(pd);
    ok_ = true;
  }

  bool ok() const { return ok_; }
  // The widened kernel given at construction, for a caller that finds !ok().
  std::unique_ptr<PreparedKernel> TakeFallback() { return std::move(fallback_); }
  std::string Implementation() const override { return "onednn_matmul_u8s8"; }

  Status Run(const KernelContext& ctx) override {
    const ConstTensorView& a = ctx.inputs[0];
    const std::optional<MatMulIntegerShape> s =
        MatMulIntegerShapeOf(a.shape(), ctx.inputs[1].shape(), ctx.outputs[0].count());
    if (!s || s->rows != s_.rows || a.dtype() != DType::kU8) return fallback_->Run(ctx);
    if (s_.rows * s_.n == 0) return Status::Ok();
    auto* y = reinterpret_cast<int32_t*>(ctx.outputs[0].data);
    {
      const onednn::ScopedThreads threads(num_threads_);
      src_.set_data_handle(const_cast<std::byte*>(a.data));
      dst_.set_data_handle(y);
      primitive_.execute(
          stream_, {{DNNL_ARG_SRC, src_}, {DNNL_ARG_WEIGHTS, weights_}, {DNNL_ARG_DST, dst_}});
      stream_.wait();
    }
    const ConstTensorView* za = ctx.inputs.size() > 2 ? &ctx.inputs[2] : nullptr;
    const auto* au = reinterpret_cast<const uint8_t*>(a.data);
    ParallelFor(ctx.pool, s_.rows, 64, [&](int64_t r0, int64_t r1) {
      for (int64_t r = r0; r < r1; ++r) {
        int64_t row_sum = 0;
        for (int64_t l = 0; l < s_.k; ++l) row_sum += au[r * s_.k + l];
        const int64_t z =
            za == nullptr ? 0 : LoadByte(za->dtype(), za->data, za->count() > 1 ? r % s_.m : 0);
        int32_t* out = y + r * s_.n;
        for (int64_t j = 0; j < s_.n; ++j) {
          const int64_t shift = shift_[static_cast<size_t>(j)];
          const int64_t v = out[j] + shift * row_sum - z * column_sums_[static_cast<size_t>(j)] -
                            s_.k * z * shift;
          out[j] = static_cast<int32_t>(static_cast<uint32_t>(v));  // wraps as a store does
        }
      }
    });
    return Status::Ok();
  }

 private:
  MatMulIntegerShape s_;
  int num_threads_;
  std::unique_ptr<PreparedKernel> fallback_;
  bool ok_ = false;
  int64_t off_ = 0;
  std::vector<int64_t> column_sums_, shift_;
  dnnl::stream stream_;
  memory src_, dst_, weights_;
  dnnl::matmul primitive_;
};

std::unique_ptr<PreparedKernel> PrepareMatMulInteger(const PrepareContext& ctx) {
  std::unique_ptr<PreparedKernel> widened = PrepareWidenedMatMulInteger(ctx);
  if (widened == nullptr || !onednn::Selected() || !onednn::HasVnni()) return widened;
  if (ctx.inputs[0].dtype != DType::kU8) return widened;  // a's zero point is read per run
  const std::optional<MatMulIntegerShape> s = MatMulIntegerShapeOf(
      ctx.inputs[0].shape, ctx.inputs[1].shape, ElementCount(ctx.outputs[0].shape));
  if (!s || s->rows == 0 || s->k == 0 || s->n == 0 || s->k > 65536) return widened;
  std::optional<ConstTensorView> zb;
  if (ctx.inputs.size() > 3) zb = ConstTensorView{ctx.inputs[3], ctx.constant_inputs[3]};
  try {
    auto kernel = std::make_unique<OneDnnMatMulInteger>(*s, ctx.inputs[1].dtype,
                                                        ctx.constant_inputs[1], zb ? &*zb : nullptr,
                                                        ctx.num_threads, std::move(widened));
    if (kernel->ok()) return kernel;
    return kernel->TakeFallback();
  } catch (const dnnl::error&) {
    return PrepareWidenedMatMulInteger(ctx);
  }
}

}  // namespace

void AttachOneDnnMatmulIntegerKernels(KernelTable& table) {
  table.SetPrepare("matmul_integer", PrepareMatMulInteger);
}

}  // namespace sy::cpu
