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
// fused_matmul: matmul (b read through transposed strides when trans_b) with bias, residual
// and activation as the primitive's: a bias that is one row [N] is the primitive's bias;
// any other bias shape is broadcast into an output-sized buffer (once at prepare when it
// is a constant) and added by a binary post-op, as the residual is; the activation is an
// eltwise post-op after both (onednn::AppendActivation). Cases oneDNN would run on its
// scalar reference implementation, and inputs holding NaN or infinities where the
// activation's post-op treats them differently from the reference, go to the reference.
//
// The cases this file does not take (see PrepareMatMul/PrepareGemm: other dtypes, empty
// dims, alpha = 0, rank over oneDNN's limit) and buffers not aligned for f32 at execute go
// to the kernel the table holds besides (OpenBLAS, or the reference).
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "fast/fast_kernels.h"
#include "fast/onednn/onednn_common.h"
#include "fast/onednn/panel_gemv.h"
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
    // fused_matmul only: input 2 (bias) and 3 (residual) through binary add post-ops.
    int bias_post_op = -1;      // the bias broadcast into an output-sized buffer
    int residual_post_op = -1;  // input 3, read as it is
    Shape out_shape, bias_shape;
    bool bias_constant = false;             // expanded once, at prepare
    const std::byte* bias_bytes = nullptr;  // prepare time only
    bool guard_non_finite = false;          // inputs with NaN or inf go to the fallback
    bool require_jit = false;               // decline oneDNN's scalar reference implementation
    KernelFn fallback = nullptr;
    int num_threads = 1;
    // The setup of this op at other sizes (Resized), without constant bytes.
    std::optional<Setup> (*make)(const PrepareContext& ctx) = nullptr;
  };

  // `packed` (may be null): weights another kernel of this node packed, for sizes that
  // change only M; the primitive must then read them in their layout.
  explicit OneDnnMatMul(Setup setup, const memory* packed = nullptr) : s_(std::move(setup)) {
    const onednn::ScopedThreads threads(s_.num_threads);
    const dnnl::engine& eng = onednn::Engine();
    memory::desc weights_any = s_.weights;
    if (packed != nullptr) {
      weights_any = packed->get_desc();
    } else if (s_.weights_constant) {
      weights_any =
          memory::desc(s_.weights.dims(), memory::data_type::f32, memory::format_tag::any);
    }
    dnnl::matmul::desc desc = s_.bias.is_zero()
                                  ? dnnl::matmul::desc(s_.src, weights_any, s_.dst)
                                  : dnnl::matmul::desc(s_.src, weights_any, s_.bias, s_.dst);
    const dnnl::matmul::primitive_desc pd(desc, s_.attr, eng);
    jit_ = onednn::IsJit(pd);
    if (s_.require_jit && !jit_) return;  // Build discards the kernel
    stream_ = dnnl::stream(eng);
    src_ = memory(s_.src, eng, DNNL_MEMORY_NONE);
    dst_ = memory(s_.dst, eng, DNNL_MEMORY_NONE);
    if (!s_.bias.is_zero()) bias_ = memory(s_.bias, eng, DNNL_MEMORY_NONE);
    if (packed != nullptr) {
      if (pd.weights_desc() != packed->get_desc()) {
        jit_ = false;  // Build discards the kernel: another layout would need another pack
        return;
      }
      weights_ = *packed;  // shared: dnnl::memory is a counted handle
    } else if (s_.weights_constant) {
      // Reorder (prepack) the weights once; they are not read from the bound buffer again.
      memory plain(s_.weights, eng, const_cast<std::byte*>(s_.weights_bytes));
      weights_ = memory(pd.weights_desc(), eng);
      dnnl::reorder(plain, weights_).execute(stream_, plain, weights_);
      stream_.wait();
    } else {
      weights_ = memory(s_.weights, eng, DNNL_MEMORY_NONE);
    }
    s_.weights_bytes = nullptr;
    FindPanelGemv();
    // The primitive's code is generated only where Run uses it: a decoding step's
    // specialisation (one row, PanelGemv) then costs no JIT per layer.
    if (!gemv_) primitive_ = dnnl::matmul(pd);
    // The memory objects are fixed; Run only points them at this run's buffers.
    args_ = {{DNNL_ARG_SRC, src_}, {DNNL_ARG_WEIGHTS, weights_}, {DNNL_ARG_DST, dst_}};
    if (!s_.bias.is_zero()) args_.emplace(DNNL_ARG_BIAS, bias_);
    if (s_.bias_post_op >= 0) {
      expanded_bias_.resize(static_cast<size_t>(ElementCount(s_.out_shape)));
      args_.emplace(DNNL_ARG_ATTR_MULTIPLE_POST_OP(s_.bias_post_op) | DNNL_ARG_SRC_1,
                    memory(s_.dst, eng, expanded_bias_.data()));
      if (s_.bias_constant) ExpandBias(s_.bias_bytes);
    }
    s_.bias_bytes = nullptr;
    if (s_.residual_post_op >= 0) {
      residual_ = memory(s_.dst, eng, DNNL_MEMORY_NONE);
      args_.emplace(DNNL_ARG_ATTR_MULTIPLE_POST_OP(s_.residual_post_op) | DNNL_ARG_SRC_1,
                    residual_);
    }
  }

  // False when oneDNN chose its scalar reference implementation.
  bool jit() const { return jit_; }

  std::string Implementation() const override { return gemv_ ? "panel_gemv" : "onednn_matmul"; }

  // The same op at new sizes: a new primitive over the weights packed at prepare (a
  // layer's weights do not depend on M, the tokens of a decoder's run), or nullptr when
  // oneDNN would want them in another layout or has no JIT kernel for the sizes.
  std::unique_ptr<PreparedKernel> Resized(const PrepareContext& ctx) const override;

  Status Run(const KernelContext& ctx) override {
    const std::byte* a = ctx.inputs[0].data;
    const std::byte* b = ctx.inputs[1].data;
    const std::byte* c = ctx.inputs.size() > 2 ? ctx.inputs[2].data : nullptr;
    const std::byte* r = ctx.inputs.size() > 3 ? ctx.inputs[3].data : nullptr;
    std::byte* y = ctx.outputs[0].data;
    if (!fast::IsF32Aligned(a) || !fast::IsF32Aligned(b) || !fast::IsF32Aligned(y) ||
        (c != nullptr && !fast::IsF32Aligned(c)) || (r != nullptr && !fast::IsF32Aligned(r))) {
      return s_.fallback(ctx);
    }
    if (s_.guard_non_finite) {
      for (size_t i = 0; i < ctx.inputs.size(); ++i) {
        if (i == 1 && s_.weights_constant) continue;  // checked at prepare
        if (!std::isfinite(onednn::MaxAbs(ctx.pool, ctx.inputs[i].data, ctx.inputs[i].count()))) {
          return s_.fallback(ctx);
        }
      }
    }
    if (gemv_) {
      fast::PanelGemv(ctx.pool, panels_, gemv_rows_, reinterpret_cast<const float*>(a),
                      static_cast<const float*>(weights_.get_data_handle()),
                      s_.bias.is_zero() ? nullptr : reinterpret_cast<const float*>(c),
                      s_.residual_post_op >= 0 ? reinterpret_cast<const float*>(r) : nullptr,
                      reinterpret_cast<float*>(y));
      return Status::Ok();
    }
    if (s_.bias_post_op >= 0 && !s_.bias_constant) ExpandBias(c);
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
      if (s_.residual_post_op >= 0) residual_.set_data_handle(const_cast<std::byte*>(r));
      const onednn::ScopedThreads threads(s_.num_threads);
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
  // Up to kPanelGemvRows rows of a times packed weights in oneDNN's BA16a64b layout, with at most a
  // row bias and the residual: the case PanelGemv (panel_gemv.h) runs at the memory's speed where
  // the primitive does not. Anything else (a scale, an activation, another layout) stays with the
  // primitive.
  void FindPanelGemv() {
    gemv_ = false;
    if (!s_.weights_constant || !fast::PanelGemvAvailable() || s_.prefill_c ||
        s_.add_zero_times_c || s_.bias_post_op >= 0) {
      return;
    }
    const memory::dims src = s_.src.dims();
    if (src.size() != 2 || src[0] < 1 || src[0] > fast::kPanelGemvRows) return;
    // a and y row-major (gemm's trans_a reads a through swapped strides).
    const auto row_major = [](const memory::desc& d, int64_t cols) {
      const dnnl_memory_desc_t& m = d.data;
      return m.format_kind == dnnl_blocked && m.format_desc.blocking.inner_nblks == 0 &&
             m.ndims == 2 && (m.dims[0] == 1 || m.format_desc.blocking.strides[0] == cols) &&
             m.format_desc.blocking.strides[1] == 1 && m.offset0 == 0;
    };
    const memory::dims dst = s_.dst.dims();
    if (!row_major(s_.src, src[1]) || dst.size() != 2 || !row_major(s_.dst, dst[1])) return;
    const dnnl_memory_desc_t& w = weights_.get_desc().data;
    if (w.ndims != 2 || w.format_kind != dnnl_blocked || w.data_type != dnnl_f32) return;
    const dnnl_blocking_desc_t& b = w.format_desc.blocking;
    if (b.inner_nblks != 2 || b.inner_idxs[0] != 0 || b.inner_blks[0] != 16 ||
        b.inner_idxs[1] != 1 || b.inner_blks[1] != 64 || b.strides[0] != 16 * 64 ||
        b.strides[1] != w.padded_dims[0] * 64 || w.dims[0] != src[1] || w.offset0 != 0) {
      return;
    }
    if (!s_.bias.is_zero()) {
      const dnnl_memory_desc_t& bias = s_.bias.data;
      if (bias.ndims != 2 || bias.dims[0] != 1 || bias.dims[1] != w.dims[1] ||
          bias.format_kind != dnnl_blocked || bias.format_desc.blocking.strides[1] != 1 ||
          bias.format_desc.blocking.inner_nblks != 0) {
        return;
      }
    }
    const dnnl::post_ops ops = s_.attr.get_post_ops();
    for (int i = 0; i < ops.len(); ++i) {
      if (i != s_.residual_post_op || ops.kind(i) != dnnl::primitive::kind::binary) return;
    }
    int mask = 0;
    std::vector<float> scales;
    s_.attr.get_output_scales(mask, scales);
    if (std::any_of(scales.begin(), scales.end(), [](float v) { return v != 1.0f; })) return;
    panels_ = {w.dims[0], w.padded_dims[0], w.dims[1]};
    gemv_rows_ = src[0];
    gemv_ = true;
  }

  // The bias broadcast to the output's shape (NumPy rules), for the binary post-op.
  void ExpandBias(const std::byte* bias) {
    BroadcastCursor cursor(s_.out_shape, s_.bias_shape);
    for (float& v : expanded_bias_) {
      std::memcpy(&v, bias + cursor.offset() * 4, 4);
      cursor.Next();
    }
  }

  Setup s_;
  bool jit_ = false;
  bool gemv_ = false;  // Run takes PanelGemv (FindPanelGemv)
  fast::PanelLayout panels_;
  int64_t gemv_rows_ = 1;
  dnnl::matmul primitive_;
  dnnl::stream stream_;
  memory src_, weights_, dst_, bias_, residual_;
  std::vector<float> expanded_bias_;      // fused_matmul's bias when not one row
  std::unordered_map<int, memory> args_;  // the primitive's arguments, built once
};

bool AnyZero(const Shape& s) {
  return std::any_of(s.begin(), s.end(), [](int64_t d) { return d == 0; });
}

// Builds the kernel, or nullptr when oneDNN has no implementation for the case.
std::unique_ptr<PreparedKernel> Build(OneDnnMatMul::Setup setup, const memory* packed = nullptr) {
  try {
    const bool require_jit = setup.require_jit || packed != nullptr;
    auto kernel = std::make_unique<OneDnnMatMul>(std::move(setup), packed);
    if (require_jit && !kernel->jit()) return nullptr;
    return kernel;
  } catch (const dnnl::error&) {
    return nullptr;
  } catch (const std::bad_alloc&) {
    return nullptr;
  }
}

}  // namespace

std::unique_ptr<PreparedKernel> OneDnnMatMul::Resized(const PrepareContext& ctx) const {
  if (s_.make == nullptr) return nullptr;
  std::optional<Setup> setup;
  try {
    setup = s_.make(ctx);  // no constant bytes: nothing is packed
  } catch (const dnnl::error&) {
    return nullptr;  // a decline: the partition is prepared again
  }
  if (!setup) return nullptr;
  // A bias expanded to the output's size at prepare is expanded from the bound buffer at
  // each run instead (those bytes are not here).
  if (!s_.weights_constant) return Build(std::move(*setup));
  // The same logical weights, strides included (trans_b), or the pack would be wrong.
  if (setup->weights != s_.weights) return nullptr;
  setup->weights_constant = true;  // packed: the bound buffer is not read
  return Build(std::move(*setup), &weights_);
}

namespace {

// Fills setup's src, weights and dst for a NumPy matmul of a by b (b stored with its last
// two dims swapped when trans_b), and says whether b is one matrix (prepackable). Where b
// is one matrix, a's batch and row dims fold into one; otherwise both keep their batch
// dims, padded to one rank. False when the rank is over oneDNN's limit.
bool MatMulDescs(Shape sa, Shape sb, bool trans_b, OneDnnMatMul::Setup& setup, bool* one_b) {
  if (sa.size() == 1) sa.insert(sa.begin(), 1);
  if (sb.size() == 1) sb.push_back(1);  // never transposed: trans_b needs rank 2
  // b's element strides over its logical [..., K, N] (swapped when stored [..., N, K]).
  auto weights = [trans_b](const Shape& stored) {
    memory::dims dims = onednn::Dims(stored);
    memory::dims strides = Strides(stored);
    if (trans_b) {
      std::swap(dims[dims.size() - 1], dims[dims.size() - 2]);
      std::swap(strides[strides.size() - 1], strides[strides.size() - 2]);
    }
    return memory::desc(dims, memory::data_type::f32, strides);
  };
  const int64_t m = sa[sa.size() - 2], k = sa.back(), n = trans_b ? sb[sb.size() - 2] : sb.back();
  const int64_t batch_b = ElementCount(std::span<const int64_t>(sb.data(), sb.size() - 2));
  const int64_t batch_a = ElementCount(std::span<const int64_t>(sa.data(), sa.size() - 2));
  *one_b = batch_b == 1;
  if (batch_b == 1) {
    setup.src = onednn::PlainF32({batch_a * m, k});
    setup.weights = weights(trans_b ? Shape{n, k} : Shape{k, n});
    setup.dst = onednn::PlainF32({batch_a * m, n});
    return true;
  }
  const size_t rank = std::max(sa.size(), sb.size());
  if (rank > DNNL_MAX_NDIMS) return false;
  sa.insert(sa.begin(), rank - sa.size(), 1);
  sb.insert(sb.begin(), rank - sb.size(), 1);
  Shape sy(rank);
  for (size_t i = 0; i + 2 < rank; ++i) sy[i] = std::max(sa[i], sb[i]);
  sy[rank - 2] = m;
  sy[rank - 1] = n;
  setup.src = onednn::PlainF32(onednn::Dims(sa));
  setup.weights = weights(sb);
  setup.dst = onednn::PlainF32(onednn::Dims(sy));
  return true;
}

bool AllF32(const PrepareContext& ctx) {
  for (const TensorType& t : ctx.inputs) {
    if (t.dtype != DType::kF32) return false;
  }
  return ctx.outputs.size() == 1 && ctx.outputs[0].dtype == DType::kF32;
}

// The constant bytes of input `i`, or nullptr (none at all where Resized asks).
const std::byte* ConstantInput(const PrepareContext& ctx, size_t i) {
  return i < ctx.constant_inputs.size() ? ctx.constant_inputs[i] : nullptr;
}

std::optional<OneDnnMatMul::Setup> MatMulSetup(const PrepareContext& ctx) {
  if (!onednn::Selected() || ctx.inputs.size() != 2 || !AllF32(ctx)) return std::nullopt;
  const Shape& sa = ctx.inputs[0].shape;
  const Shape& sb = ctx.inputs[1].shape;
  if (sa.empty() || sb.empty() || AnyZero(sa) || AnyZero(sb)) return std::nullopt;
  OneDnnMatMul::Setup setup;
  setup.fallback = FastKernels().Find("matmul");
  setup.num_threads = ctx.num_threads;
  setup.make = MatMulSetup;
  bool one_b = false;
  if (!MatMulDescs(sa, sb, /*trans_b=*/false, setup, &one_b)) return std::nullopt;
  setup.weights_constant = ConstantInput(ctx, 1) != nullptr && one_b;
  setup.weights_bytes = ConstantInput(ctx, 1);
  return setup;
}

// fused_matmul(a, b[, bias[, residual]]).
std::optional<OneDnnMatMul::Setup> FusedMatMulSetup(const PrepareContext& ctx) {
  if (!onednn::Selected() || ctx.inputs.size() < 2 || !AllF32(ctx)) return std::nullopt;
  const Shape& sa = ctx.inputs[0].shape;
  const Shape& sb = ctx.inputs[1].shape;
  const Shape& so = ctx.outputs[0].shape;
  if (sa.empty() || sb.empty() || AnyZero(sa) || AnyZero(sb) || AnyZero(so)) return std::nullopt;
  const bool trans_b = ctx.attrs.GetInt("trans_b") != 0;
  OneDnnMatMul::Setup setup;
  setup.fallback = FastKernels().Find(ctx.op);
  setup.num_threads = ctx.num_threads;
  setup.require_jit = true;
  setup.make = FusedMatMulSetup;
  bool one_b = false;
  if (!MatMulDescs(sa, sb, trans_b, setup, &one_b)) return std::nullopt;
  dnnl::post_ops ops;
  if (ctx.inputs.size() > 2) {
    const Shape& sbias = ctx.inputs[2].shape;
    // A bias that is one row [N] (or [1, .., N]) is the primitive's bias: oneDNN's fast
    // kernels take no other bias shape. With a 1-D b the output's last dim is M, not N.
    const bool row = sb.size() >= 2 && !sbias.empty() && sbias.back() == so.back() &&
                     ElementCount(sbias) == sbias.back();
    if (row) {
      memory::dims dims(setup.dst.dims().size(), 1);
      dims.back() = sbias.back();
      setup.bias = onednn::PlainF32(dims);
    } else {
      setup.bias_post_op = ops.len();
      ops.append_binary(dnnl::algorithm::binary_add, setup.dst);
      setup.out_shape = so;
      setup.bias_shape = sbias;
      setup.bias_constant = ConstantInput(ctx, 2) != nullptr;
      setup.bias_bytes = ConstantInput(ctx, 2);
    }
  }
  if (ctx.inputs.size() > 3) {
    setup.residual_post_op = ops.len();
    ops.append_binary(dnnl::algorithm::binary_add, setup.dst);
  }
  if (!onednn::AppendActivation(ctx.attrs, ops, &setup.guard_non_finite)) return std::nullopt;
  if (ops.len() > 0) setup.attr.set_post_ops(ops);
  setup.weights_constant = ConstantInput(ctx, 1) != nullptr && one_b;
  setup.weights_bytes = ConstantInput(ctx, 1);
  if (setup.guard_non_finite && setup.weights_constant &&
      !onednn::AllFinite(setup.weights_bytes, ElementCount(sb))) {
    return std::nullopt;  // every run would go to the reference
  }
  return setup;
}

std::optional<OneDnnMatMul::Setup> GemmSetup(const PrepareContext& ctx) {
  if (!onednn::Selected() || ctx.inputs.size() < 2 || ctx.outputs.size() != 1 ||
      ctx.outputs[0].dtype != DType::kF32) {
    return std::nullopt;
  }
  const bool trans_a = ctx.attrs.GetInt("trans_a") != 0;
  const bool trans_b = ctx.attrs.GetInt("trans_b") != 0;
  const float alpha = static_cast<float>(ctx.attrs.GetFloat("alpha", 1.0));
  const float beta = static_cast<float>(ctx.attrs.GetFloat("beta", 1.0));
  const Shape& sy = ctx.outputs[0].shape;
  const Shape& sa = ctx.inputs[0].shape;
  if (sy.size() != 2 || sa.size() != 2 || AnyZero(sy) || AnyZero(sa) || alpha == 0.0f) {
    return std::nullopt;
  }
  const int64_t m = sy[0], n = sy[1], k = sa[trans_a ? 0 : 1];
  OneDnnMatMul::Setup setup;
  setup.fallback = FastKernels().Find("gemm");
  setup.num_threads = ctx.num_threads;
  setup.make = GemmSetup;
  setup.m = m;
  setup.n = n;
  // op(a) [M, K] and op(b) [K, N] as strided views of the stored matrices.
  setup.src = memory::desc({m, k}, memory::data_type::f32,
                           trans_a ? memory::dims{1, m} : memory::dims{k, 1});
  setup.weights = memory::desc({k, n}, memory::data_type::f32,
                               trans_b ? memory::dims{1, k} : memory::dims{n, 1});
  setup.dst = onednn::PlainF32({m, n});
  setup.weights_constant = ConstantInput(ctx, 1) != nullptr;
  setup.weights_bytes = ConstantInput(ctx, 1);
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
  return setup;
}

template <std::optional<OneDnnMatMul::Setup> (*MakeSetup)(const PrepareContext&)>
std::unique_ptr<PreparedKernel> Prepare(const PrepareContext& ctx) {
  std::optional<OneDnnMatMul::Setup> setup = MakeSetup(ctx);
  return setup ? Build(std::move(*setup)) : nullptr;
}

}  // namespace

void AttachOneDnnMatmulKernels(KernelTable& table) {
  // The plain kernels stay (OpenBLAS): they run whatever the prepares decline.
  table.SetPrepare("matmul", Prepare<MatMulSetup>);
  table.SetPrepare("gemm", Prepare<GemmSetup>);
  table.SetPrepare("fused_matmul", Prepare<FusedMatMulSetup>);
}

}  // namespace sy::cpu
