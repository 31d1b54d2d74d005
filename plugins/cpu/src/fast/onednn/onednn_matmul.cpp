// f32 matmul and gemm through oneDNN's matmul primitive, built once when the partition is
// prepared. When the right-hand matrix is a constant of the model (a layer's weights) it
// is reordered once, at prepare, into the blocked layout the primitive's kernel reads
// fastest ("prepacked", as ONNX Runtime's MLAS does), and the bound buffer is not read.
//
// matmul: NumPy semantics. Where b is one matrix (all its batch dims 1), a's batch and row
// dims are folded into one [batch * M, K] operand; otherwise both operands keep their
// batch dims, padded to one rank, and oneDNN broadcasts the size-1 ones.
// gemm: op(a) and op(b) are strided views (a transpose costs nothing); alpha is an output
// scale; c is the primitive's bias when alpha = beta = 1, otherwise it is broadcast into
// y first and added by a sum post-op scaled by beta. beta = 0 adds 0 * c afterwards, as
// the reference does (a NaN or infinity in c reaches y).
//
// The cases this file does not take (see PrepareMatMul/PrepareGemm: other dtypes, empty
// dims, alpha = 0, rank over oneDNN's limit) and buffers not aligned for f32 at execute go
// to the kernel the table holds besides (OpenBLAS, or the reference).
#include <algorithm>
#include <cstdint>
#include <memory>
#include <unordered_map>
#include <vector>

#include "fast/fast_kernels.h"
#include "fast/onednn/onednn_common.h"
#include "fast/vec_math.h"

namespace sy::cpu {
namespace {

using dnnl::memory;

class OneDnnMatMul final : public PreparedKernel {
 public:
  struct Setup {
    memory::desc src, weights, dst, bias;  // bias: zero desc when absent
    bool weights_constant = false;
    const std::byte* weights_bytes = nullptr;  // prepare time only
    dnnl::primitive_attr attr;
    // gemm only
    bool prefill_c = false;         // broadcast c into y before the primitive
    bool add_zero_times_c = false;  // beta == 0 with c: add 0 * c afterwards
    int64_t c_row = 0, c_col = 0;   // c's element strides over [M, N]
    int64_t m = 0, n = 0;
    KernelFn fallback = nullptr;
    int num_threads = 1;
  };

  explicit OneDnnMatMul(Setup setup) : s_(std::move(setup)) {
    const dnnl::engine& eng = onednn::Engine();
    memory::desc weights_any = s_.weights;
    if (s_.weights_constant) {
      weights_any =
          memory::desc(s_.weights.dims(), memory::data_type::f32, memory::format_tag::any);
    }
    dnnl::matmul::desc desc = s_.bias.is_zero()
                                  ? dnnl::matmul::desc(s_.src, weights_any, s_.dst)
                                  : dnnl::matmul::desc(s_.src, weights_any, s_.bias, s_.dst);
    const dnnl::matmul::primitive_desc pd(desc, s_.attr, eng);
    primitive_ = dnnl::matmul(pd);
    stream_ = dnnl::stream(eng);
    src_ = memory(s_.src, eng, DNNL_MEMORY_NONE);
    dst_ = memory(s_.dst, eng, DNNL_MEMORY_NONE);
    if (!s_.bias.is_zero()) bias_ = memory(s_.bias, eng, DNNL_MEMORY_NONE);
    if (s_.weights_constant) {
      // Reorder (prepack) the weights once; they are not read from the bound buffer again.
      memory plain(s_.weights, eng, const_cast<std::byte*>(s_.weights_bytes));
      weights_ = memory(pd.weights_desc(), eng);
      onednn::UseThreads(s_.num_threads);
      dnnl::reorder(plain, weights_).execute(stream_, plain, weights_);
      stream_.wait();
    } else {
      weights_ = memory(s_.weights, eng, DNNL_MEMORY_NONE);
    }
    s_.weights_bytes = nullptr;
    // The memory objects are fixed; Run only points them at this run's buffers.
    args_ = {{DNNL_ARG_SRC, src_}, {DNNL_ARG_WEIGHTS, weights_}, {DNNL_ARG_DST, dst_}};
    if (!s_.bias.is_zero()) args_.emplace(DNNL_ARG_BIAS, bias_);
  }

  Status Run(const KernelContext& ctx) override {
    const std::byte* a = ctx.inputs[0].data;
    const std::byte* b = ctx.inputs[1].data;
    const std::byte* c = ctx.inputs.size() > 2 ? ctx.inputs[2].data : nullptr;
    std::byte* y = ctx.outputs[0].data;
    if (!fast::IsF32Aligned(a) || !fast::IsF32Aligned(b) || !fast::IsF32Aligned(y) ||
        (c != nullptr && !fast::IsF32Aligned(c))) {
      return s_.fallback(ctx);
    }
    float* out = reinterpret_cast<float*>(y);
    const float* pc = reinterpret_cast<const float*>(c);
    if (s_.prefill_c) {
      for (int64_t i = 0; i < s_.m; ++i) {
        for (int64_t j = 0; j < s_.n; ++j) out[i * s_.n + j] = pc[i * s_.c_row + j * s_.c_col];
      }
    }
    try {
      src_.set_data_handle(const_cast<std::byte*>(a));
      dst_.set_data_handle(y);
      if (!s_.weights_constant) weights_.set_data_handle(const_cast<std::byte*>(b));
      if (!s_.bias.is_zero()) bias_.set_data_handle(const_cast<std::byte*>(c));
      onednn::UseThreads(s_.num_threads);
      primitive_.execute(stream_, args_);
      stream_.wait();
    } catch (const dnnl::error& e) {
      return Internal(std::string(ctx.op) + ": oneDNN matmul failed: " + e.what());
    }
    if (s_.add_zero_times_c) {
      for (int64_t i = 0; i < s_.m; ++i) {
        for (int64_t j = 0; j < s_.n; ++j)
          out[i * s_.n + j] += 0.0f * pc[i * s_.c_row + j * s_.c_col];
      }
    }
    return Status::Ok();
  }

 private:
  Setup s_;
  dnnl::matmul primitive_;
  dnnl::stream stream_;
  memory src_, weights_, dst_, bias_;
  std::unordered_map<int, memory> args_;  // the primitive's arguments, built once
};

bool AnyZero(const Shape& s) {
  return std::any_of(s.begin(), s.end(), [](int64_t d) { return d == 0; });
}

// Builds the kernel, or nullptr when oneDNN has no implementation for the case.
std::unique_ptr<PreparedKernel> Build(OneDnnMatMul::Setup setup) {
  try {
    return std::make_unique<OneDnnMatMul>(std::move(setup));
  } catch (const dnnl::error&) {
    return nullptr;
  } catch (const std::bad_alloc&) {
    return nullptr;
  }
}

std::unique_ptr<PreparedKernel> PrepareMatMul(const PrepareContext& ctx) {
  if (!onednn::Selected() || ctx.inputs.size() != 2 || ctx.outputs.size() != 1 ||
      ctx.outputs[0].dtype != DType::kF32 || ctx.inputs[0].dtype != DType::kF32 ||
      ctx.inputs[1].dtype != DType::kF32) {
    return nullptr;
  }
  Shape sa = ctx.inputs[0].shape;
  Shape sb = ctx.inputs[1].shape;
  if (sa.empty() || sb.empty() || AnyZero(sa) || AnyZero(sb)) return nullptr;
  if (sa.size() == 1) sa.insert(sa.begin(), 1);
  if (sb.size() == 1) sb.push_back(1);
  const int64_t m = sa[sa.size() - 2], k = sa.back(), n = sb.back();
  const int64_t batch_b = ElementCount(std::span<const int64_t>(sb.data(), sb.size() - 2));
  const int64_t batch_a = ElementCount(std::span<const int64_t>(sa.data(), sa.size() - 2));
  OneDnnMatMul::Setup setup;
  setup.fallback = FastKernels().Find("matmul");
  setup.num_threads = ctx.num_threads;
  if (batch_b == 1) {
    setup.src = onednn::PlainF32({batch_a * m, k});
    setup.weights = onednn::PlainF32({k, n});
    setup.dst = onednn::PlainF32({batch_a * m, n});
  } else {
    const size_t rank = std::max(sa.size(), sb.size());
    if (rank > DNNL_MAX_NDIMS) return nullptr;
    sa.insert(sa.begin(), rank - sa.size(), 1);
    sb.insert(sb.begin(), rank - sb.size(), 1);
    Shape sy(rank);
    for (size_t i = 0; i + 2 < rank; ++i) sy[i] = std::max(sa[i], sb[i]);
    sy[rank - 2] = m;
    sy[rank - 1] = n;
    setup.src = onednn::PlainF32(onednn::Dims(sa));
    setup.weights = onednn::PlainF32(onednn::Dims(sb));
    setup.dst = onednn::PlainF32(onednn::Dims(sy));
  }
  setup.weights_constant = ctx.constant_inputs[1] != nullptr && batch_b == 1;
  setup.weights_bytes = ctx.constant_inputs[1];
  return Build(std::move(setup));
}

std::unique_ptr<PreparedKernel> PrepareGemm(const PrepareContext& ctx) {
  if (!onednn::Selected() || ctx.inputs.size() < 2 || ctx.outputs.size() != 1 ||
      ctx.outputs[0].dtype != DType::kF32) {
    return nullptr;
  }
  const bool trans_a = ctx.attrs.GetInt("trans_a") != 0;
  const bool trans_b = ctx.attrs.GetInt("trans_b") != 0;
  const float alpha = static_cast<float>(ctx.attrs.GetFloat("alpha", 1.0));
  const float beta = static_cast<float>(ctx.attrs.GetFloat("beta", 1.0));
  const Shape& sy = ctx.outputs[0].shape;
  const Shape& sa = ctx.inputs[0].shape;
  if (sy.size() != 2 || sa.size() != 2 || AnyZero(sy) || AnyZero(sa) || alpha == 0.0f) {
    return nullptr;
  }
  const int64_t m = sy[0], n = sy[1], k = sa[trans_a ? 0 : 1];
  OneDnnMatMul::Setup setup;
  setup.fallback = FastKernels().Find("gemm");
  setup.num_threads = ctx.num_threads;
  setup.m = m;
  setup.n = n;
  // op(a) [M, K] and op(b) [K, N] as strided views of the stored matrices.
  setup.src = memory::desc({m, k}, memory::data_type::f32,
                           trans_a ? memory::dims{1, m} : memory::dims{k, 1});
  setup.weights = memory::desc({k, n}, memory::data_type::f32,
                               trans_b ? memory::dims{1, k} : memory::dims{n, 1});
  setup.dst = onednn::PlainF32({m, n});
  setup.weights_constant = ctx.constant_inputs[1] != nullptr;
  setup.weights_bytes = ctx.constant_inputs[1];
  if (alpha != 1.0f) setup.attr.set_output_scales(0, {alpha});
  if (ctx.inputs.size() > 2) {
    const Shape& sc = ctx.inputs[2].shape;
    if (sc.size() >= 1 && sc.back() != 1) setup.c_col = 1;
    if (sc.size() == 2 && sc[0] != 1) setup.c_row = sc[1];
    if (beta == 0.0f) {
      setup.add_zero_times_c = true;
    } else if (alpha == 1.0f && beta == 1.0f) {
      const int64_t rows = setup.c_row != 0 ? m : 1;
      const int64_t cols = setup.c_col != 0 ? n : 1;
      setup.bias = onednn::PlainF32({rows, cols});
    } else {
      setup.prefill_c = true;
      dnnl::post_ops ops;
      ops.append_sum(beta);
      setup.attr.set_post_ops(ops);
    }
  }
  return Build(std::move(setup));
}

}  // namespace

void AttachOneDnnMatmulKernels(KernelTable& table) {
  // The plain kernels stay (OpenBLAS): they run whatever the prepares decline.
  table.SetPrepare("matmul", PrepareMatMul);
  table.SetPrepare("gemm", PrepareGemm);
}

}  // namespace sy::cpu
