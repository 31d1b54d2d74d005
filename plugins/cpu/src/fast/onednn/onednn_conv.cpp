// f32 conv (1, 2 or 3 spatial dims, any group count, depthwise included) through oneDNN's
// convolution primitive, built once when the partition is prepared.
//
// Layout: the catalogue's tensors are NC + spatial (NCHW). oneDNN's fast convolution
// kernels read channels-last (NHWC) or blocked layouts; its NCHW path is a GEMM that is
// 2x slower for 3x3 kernels, some 40x slower for depthwise ones and, in MobileNetV2, 2x
// slower for its 1x1 ones too (docs/cpu-kernels.md). So the primitive is always the
// channels-last one. A row-major x is reordered into the kernel's own NHWC buffer and the
// NHWC result reordered back into y; but where the executable stores x, the residual or y
// channels-last (a value that flows only between oneDNN convs: CpuExecutable::
// ChooseLayouts, UseLayouts below), the primitive reads and writes the bound buffers in
// place and those reorders disappear. Weights that are constants of the model are
// reordered once, at prepare, into the layout the kernel chose; others are reordered on
// every run. Bias is the primitive's.
//
// fused_conv(x, w[, bias[, residual]]) is the same primitive with post-ops: the residual
// is reordered (copied, when it is channels-last already) into the channels-last output
// buffer before the convolution, which a sum post-op then adds to (a binary post-op
// reading NCHW would push oneDNN off its channels-last kernels); the activation is an
// eltwise post-op after it (onednn::AppendActivation).
//
// Winograd: a 2-D 3x3 conv with stride 1, no dilation, one group, channel counts that are
// multiples of 16 and an output of at least 14x14 runs on oneDNN's Winograd F(2x2, 3x3)
// kernel where this CPU has one (AVX-512): 1.2-1.8x the direct kernel on ResNet's 3x3
// convs, with no loss of accuracy (docs/cpu-kernels.md, "Winograd"). That kernel reads
// and writes oneDNN's blocked layout (nChw16c) only, so x, the residual and y are
// reordered into and out of the kernel's own buffers whatever layout the executable
// stores them in. SWITCHYARD_CPU_WINOGRAD=0 keeps every conv on the direct kernel.
//
// Declined (the OpenBLAS im2col kernel or the reference runs them): other dtypes, empty
// tensors, and whatever oneDNN has no implementation for (for fused_conv also what it
// would run on its scalar reference implementation). Buffers not aligned for f32 at
// execute go to the same kernel, as do fused_conv inputs holding NaN or infinities where
// the activation's post-op treats them differently from the reference; tensors stored
// channels-last are converted to row-major copies for it and back (RunFallback).
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <memory>
#include <new>
#include <span>
#include <string>
#include <unordered_map>
#include <vector>

#include "fast/fast_kernels.h"
#include "fast/onednn/onednn_common.h"
#include "fast/vec_math.h"

namespace sy::cpu {
namespace {

using dnnl::memory;

// Whether SWITCHYARD_CPU_WINOGRAD allows the Winograd kernel: unset, empty or "1" do, "0"
// does not. Anything else is refused when the plugin initialises (WinogradChoice).
bool WinogradAllowed() {
  const Expected<bool> allowed = WinogradChoice();
  return allowed.ok() && *allowed;
}

// The convs oneDNN's Winograd F(2x2, 3x3) kernel runs faster than its direct one on the
// machines measured (docs/cpu-kernels.md, "Winograd"): 2-D, 3x3, stride 1, no dilation,
// one group, 16k input and output channels, at least 14x14 outputs, and at least 4 output
// pixels (over the batch) per channel. Its transformed weights are 16/9 the size of the
// plain ones and are read once per call, so where there are few pixels per weight (ResNet's
// 14x14 and 7x7 stages at batch 1) it is memory-bound and level with the direct kernel,
// which then also saves the reorders into and out of the blocked layout.
bool WinogradSuits(const Shape& sx, const Shape& sw, const Shape& sy, int64_t group,
                   const std::vector<int64_t>& strides, const std::vector<int64_t>& gaps) {
  if (sx.size() != 4 || group != 1 || sw[2] != 3 || sw[3] != 3) return false;
  if (strides[0] != 1 || strides[1] != 1 || gaps[0] != 0 || gaps[1] != 0) return false;
  if (sx[1] % 16 != 0 || sy[1] % 16 != 0 || sy[2] * sy[3] < 14 * 14) return false;
  if (sy[0] * sy[2] * sy[3] < 4 * std::max(sx[1], sy[1])) return false;
  return WinogradAllowed();
}

class OneDnnConv final : public PreparedKernel {
 public:
  // `attr` holds fused_conv's post-ops (empty for conv); a sum post-op among them reads
  // input 3, the residual.
  OneDnnConv(const PrepareContext& ctx, const dnnl::primitive_attr& attr, bool guard_non_finite)
      : activation_bound_(onednn::ActivationBound::FromAttrs(ctx.attrs)),
        num_threads_(onednn::ThreadsFor(onednn::ConvWork(ctx.inputs[1].shape, ctx.outputs[0].shape),
                                        ctx.num_threads)),
        has_residual_(ctx.inputs.size() > 3),
        guard_non_finite_(guard_non_finite),
        fallback_(FastKernels().Find(ctx.op)) {
    const onednn::ScopedThreads threads(num_threads_);
    const dnnl::engine& eng = onednn::Engine();
    const Shape& sx = ctx.inputs[0].shape;
    const Shape& sw = ctx.inputs[1].shape;
    const Shape& sy = ctx.outputs[0].shape;
    const onednn::ConvGeometry g = onednn::ConvGeometryOf(sx, sw, sy, ctx.attrs);
    const memory::dims& wdims = g.w;
    x_plain_ = onednn::PlainF32(g.x);
    y_plain_ = onednn::PlainF32(g.y);
    w_plain_ = onednn::PlainF32(wdims);
    const memory::desc x_md(onednn::Dims(sx), memory::data_type::f32,
                            onednn::ChannelsLast(sx.size()));
    const memory::desc y_md(onednn::Dims(sy), memory::data_type::f32,
                            onednn::ChannelsLast(sy.size()));
    const memory::desc w_any(wdims, memory::data_type::f32, memory::format_tag::any);
    has_bias_ = ctx.inputs.size() > 2;
    const memory::desc b_md = has_bias_ ? onednn::PlainF32({sw[0]}) : memory::desc();

    dnnl::convolution_forward::primitive_desc pd;
    if (WinogradSuits(sx, sw, sy, g.group, g.strides, g.dilations)) {
      // Layouts `any`: the Winograd kernel exists for its blocked layout only. oneDNN
      // throws when this CPU has no such kernel; the direct one is built then.
      const memory::desc x_any(onednn::Dims(sx), memory::data_type::f32, memory::format_tag::any);
      const memory::desc y_any(onednn::Dims(sy), memory::data_type::f32, memory::format_tag::any);
      try {
        const dnnl::convolution_forward::desc wino(
            dnnl::prop_kind::forward_inference, dnnl::algorithm::convolution_winograd, x_any, w_any,
            b_md, y_any, g.strides, g.dilations, g.pad_l, g.pad_r);
        pd = dnnl::convolution_forward::primitive_desc(wino, attr, eng);
        if (!onednn::IsJit(pd)) pd = {};
      } catch (const dnnl::error&) {
        pd = {};
      }
    }
    if (!pd) {
      const dnnl::convolution_forward::desc desc(
          dnnl::prop_kind::forward_inference, dnnl::algorithm::convolution_direct, x_md, w_any,
          b_md, y_md, g.strides, g.dilations, g.pad_l, g.pad_r);
      pd = dnnl::convolution_forward::primitive_desc(desc, attr, eng);
    }
    jit_ = onednn::IsJit(pd);
    impl_ = pd.impl_info_str();
    // The direct kernel's own layout is channels-last: bound channels-last buffers are
    // then read and written in place. Any other (Winograd's blocked one) is reached by
    // reorders from and to channels-last as well as from and to row-major.
    kernel_channels_last_ = pd.src_desc() == x_md && pd.dst_desc() == y_md;
    primitive_ = dnnl::convolution_forward(pd);
    stream_ = dnnl::stream(eng);
    x_user_ = memory(x_plain_, eng, DNNL_MEMORY_NONE);
    y_user_ = memory(y_plain_, eng, DNNL_MEMORY_NONE);
    x_ = memory(pd.src_desc(), eng);
    y_ = memory(pd.dst_desc(), eng);
    to_kernel_layout_ = dnnl::reorder(x_user_, x_);
    from_kernel_layout_ = dnnl::reorder(y_, y_user_);
    if (has_residual_) {
      residual_user_ = memory(y_plain_, eng, DNNL_MEMORY_NONE);
      residual_to_kernel_layout_ = dnnl::reorder(residual_user_, y_);
    }
    if (!kernel_channels_last_) {
      x_cl_ = memory(x_md, eng, DNNL_MEMORY_NONE);
      y_cl_ = memory(y_md, eng, DNNL_MEMORY_NONE);
      cl_to_kernel_layout_ = dnnl::reorder(x_cl_, x_);
      kernel_layout_to_cl_ = dnnl::reorder(y_, y_cl_);
      if (has_residual_) {
        residual_cl_ = memory(y_md, eng, DNNL_MEMORY_NONE);
        residual_cl_to_kernel_layout_ = dnnl::reorder(residual_cl_, y_);
      }
    }
    if (has_bias_) bias_ = memory(b_md, eng, DNNL_MEMORY_NONE);
    weights_ = memory(pd.weights_desc(), eng);
    w_user_ = memory(w_plain_, eng, DNNL_MEMORY_NONE);
    weights_reorder_ = dnnl::reorder(w_user_, weights_);
    weights_constant_ = ctx.constant_inputs[1] != nullptr;
    // Output bounds need constant weights and bias (+inf otherwise: nothing passed on).
    if (weights_constant_) weight_bound_ = onednn::WeightBound(ctx.constant_inputs[1], sw);
    if (has_bias_) {
      bias_bound_ = ctx.constant_inputs[2] != nullptr
                        ? onednn::MaxAbs(nullptr, ctx.constant_inputs[2], sw[0])
                        : std::numeric_limits<double>::infinity();
    }
    if (weights_constant_) {
      w_user_.set_data_handle(const_cast<std::byte*>(ctx.constant_inputs[1]));
      weights_reorder_.execute(stream_, w_user_, weights_);
      stream_.wait();
    }
    // The memory objects are fixed; Run only points the user-layout ones at its buffers.
    args_ = {{DNNL_ARG_SRC, x_}, {DNNL_ARG_WEIGHTS, weights_}, {DNNL_ARG_DST, y_}};
    if (has_bias_) args_.emplace(DNNL_ARG_BIAS, bias_);
  }

  // False when oneDNN chose its scalar reference implementation.
  bool jit() const { return jit_; }
  // The implementation oneDNN chose ("brgconv:avx512_core", "jit_fp32_wino_2x3:...").
  const std::string& impl() const { return impl_; }
  std::string Implementation() const override { return impl_; }

  // x, the residual (input 3) and y can all be handed over channels-last: the direct
  // primitive reads and writes that layout, the Winograd one reorders from and to it.
  // Weights and bias cannot.
  bool AcceptsChannelsLastInput(size_t index) const override {
    return index == 0 || (index == 3 && has_residual_);
  }
  bool AcceptsChannelsLastOutput(size_t index) const override { return index == 0; }

  void UseLayouts(std::span<const Layout> inputs, std::span<const Layout> outputs) override {
    x_channels_last_ = inputs[0] == Layout::kChannelsLast;
    residual_channels_last_ = has_residual_ && inputs[3] == Layout::kChannelsLast;
    y_channels_last_ = outputs[0] == Layout::kChannelsLast;
    // x_ and y_ now point at the bound buffers on every run: drop the buffers oneDNN
    // allocated for them (replacing the memory objects by ones without storage). If that
    // fails the old ones stay, with their buffers unused, and Run works the same.
    if (!kernel_channels_last_) return;  // x_ and y_ are the kernel's blocked buffers
    try {
      const dnnl::engine& eng = onednn::Engine();
      if (x_channels_last_) {
        x_ = memory(x_.get_desc(), eng, DNNL_MEMORY_NONE);
        args_[DNNL_ARG_SRC] = x_;
      }
      if (y_channels_last_) {
        y_ = memory(y_.get_desc(), eng, DNNL_MEMORY_NONE);
        args_[DNNL_ARG_DST] = y_;
      }
    } catch (const dnnl::error&) {
    }
  }

  Status Run(const KernelContext& ctx) override {
    const std::byte* x = ctx.inputs[0].data;
    const std::byte* w = ctx.inputs[1].data;
    const std::byte* b = has_bias_ ? ctx.inputs[2].data : nullptr;
    const std::byte* r = has_residual_ ? ctx.inputs[3].data : nullptr;
    std::byte* y = ctx.outputs[0].data;
    if (!fast::IsF32Aligned(x) || !fast::IsF32Aligned(w) || !fast::IsF32Aligned(y) ||
        (b != nullptr && !fast::IsF32Aligned(b)) || (r != nullptr && !fast::IsF32Aligned(r))) {
      return RunFallback(ctx);
    }
    // This run's bounds of x and the residual (+inf: not known to be finite).
    double x_bound = InputBound(ctx, 0);
    double residual_bound = has_residual_ ? InputBound(ctx, 3) : 0.0;
    if (guard_non_finite_) {
      // Layout does not matter to these scans. An operand the run already bounds is
      // finite; the others are scanned, which bounds them. Constant weights were checked
      // at prepare.
      if (!std::isfinite(x_bound)) x_bound = onednn::MaxAbs(ctx.pool, x, ctx.inputs[0].count());
      if (!std::isfinite(residual_bound)) {
        residual_bound = onednn::MaxAbs(ctx.pool, r, ctx.inputs[3].count());
      }
      if (!std::isfinite(x_bound) || !std::isfinite(residual_bound) ||
          (!weights_constant_ &&
           !std::isfinite(onednn::MaxAbs(ctx.pool, w, ctx.inputs[1].count()))) ||
          (has_bias_ && !onednn::AllFinite(b, ctx.inputs[2].count()))) {
        return RunFallback(ctx);
      }
    }
    try {
      const onednn::ScopedThreads threads(num_threads_);
      if (!weights_constant_) {
        w_user_.set_data_handle(const_cast<std::byte*>(w));
        weights_reorder_.execute(stream_, w_user_, weights_);
      }
      if (x_channels_last_ && kernel_channels_last_) {
        x_.set_data_handle(const_cast<std::byte*>(x));  // read in place
      } else if (x_channels_last_) {
        x_cl_.set_data_handle(const_cast<std::byte*>(x));
        cl_to_kernel_layout_.execute(stream_, x_cl_, x_);
      } else {
        x_user_.set_data_handle(const_cast<std::byte*>(x));
        to_kernel_layout_.execute(stream_, x_user_, x_);
      }
      if (has_bias_) bias_.set_data_handle(const_cast<std::byte*>(b));
      if (y_channels_last_ && kernel_channels_last_) y_.set_data_handle(y);  // written in place
      if (has_residual_) {
        // The sum post-op adds the convolution to what y_ holds: the residual.
        if (residual_channels_last_ && kernel_channels_last_) {
          std::memcpy(y_.get_data_handle(), r, static_cast<size_t>(ctx.outputs[0].count()) * 4);
        } else if (residual_channels_last_) {
          residual_cl_.set_data_handle(const_cast<std::byte*>(r));
          residual_cl_to_kernel_layout_.execute(stream_, residual_cl_, y_);
        } else {
          residual_user_.set_data_handle(const_cast<std::byte*>(r));
          residual_to_kernel_layout_.execute(stream_, residual_user_, y_);
        }
      }
      primitive_.execute(stream_, args_);
      if (y_channels_last_ && !kernel_channels_last_) {
        y_cl_.set_data_handle(y);
        kernel_layout_to_cl_.execute(stream_, y_, y_cl_);
      } else if (!y_channels_last_) {
        y_user_.set_data_handle(y);
        from_kernel_layout_.execute(stream_, y_, y_user_);
      }
      stream_.wait();
    } catch (const dnnl::error& e) {
      return Internal(std::string(ctx.op) + ": oneDNN convolution failed: " + e.what());
    }
    // |y| before the activation is at most |x| * (the largest per-channel sum of |w|) +
    // |bias| + |residual|; NaN when a bound is unknown, and then nothing is passed on.
    const double pre = x_bound * weight_bound_ + bias_bound_ + residual_bound;
    if (pre < onednn::kLargestBound) SetOutputBound(ctx, 0, activation_bound_.Of(pre));
    return Status::Ok();
  }

 private:
  // The table's plain kernel, on row-major copies of the tensors stored channels-last.
  // Rare (an operand not aligned for f32, or a value the activation's post-op would treat
  // differently), so the copies are made per call.
  Status RunFallback(const KernelContext& ctx) {
    const bool inputs_channels_last[4] = {x_channels_last_, false, false, residual_channels_last_};
    return onednn::RunOnRowMajorCopies(
        fallback_, ctx, std::span(inputs_channels_last, ctx.inputs.size()), y_channels_last_);
  }

  onednn::ActivationBound activation_bound_;  // of the node's activation
  int num_threads_;
  bool has_residual_, guard_non_finite_;
  double weight_bound_ = std::numeric_limits<double>::infinity();  // WeightBound, if constant
  double bias_bound_ = 0.0;  // max |bias| (0 without one; +inf when not constant)
  // Which tensors the executable stores channels-last (UseLayouts); row-major by default.
  bool x_channels_last_ = false, residual_channels_last_ = false, y_channels_last_ = false;
  KernelFn fallback_;  // the table's plain kernel for this op
  bool has_bias_ = false, weights_constant_ = false, jit_ = false;
  bool kernel_channels_last_ = true;  // false: the primitive's x and y are blocked (Winograd)
  std::string impl_;
  memory::desc x_plain_, y_plain_, w_plain_;
  dnnl::convolution_forward primitive_;
  // Row-major <-> the kernel's layout; channels-last <-> a blocked kernel layout.
  dnnl::reorder to_kernel_layout_, from_kernel_layout_, weights_reorder_;
  dnnl::reorder residual_to_kernel_layout_;
  dnnl::reorder cl_to_kernel_layout_, kernel_layout_to_cl_, residual_cl_to_kernel_layout_;
  dnnl::stream stream_;
  // *_user_: row-major views, *_cl_: channels-last views of the bound buffers (no storage,
  // pointed at them per run); x_, y_: the kernel's layout (own storage unless in place).
  memory x_user_, y_user_, w_user_, residual_user_, x_, y_, weights_, bias_;
  memory x_cl_, y_cl_, residual_cl_;
  std::unordered_map<int, memory> args_;  // the primitive's arguments, built once
};

// The checks conv and fused_conv share: f32, 1 to 3 spatial dims, nothing empty.
bool Takes(const PrepareContext& ctx) {
  if (!onednn::Selected() || ctx.inputs.size() < 2 || ctx.outputs.size() != 1) return false;
  for (const TensorType& t : ctx.inputs) {
    if (t.dtype != DType::kF32) return false;
  }
  const Shape& sx = ctx.inputs[0].shape;
  const Shape& sw = ctx.inputs[1].shape;
  const Shape& sy = ctx.outputs[0].shape;
  return sx.size() >= 3 && sx.size() <= 5 && sw.size() == sx.size() &&
         ctx.outputs[0].dtype == DType::kF32 && ElementCount(sx) != 0 && ElementCount(sw) != 0 &&
         ElementCount(sy) != 0;
}

// Builds the kernel, or nullptr when oneDNN has no implementation for the case.
std::unique_ptr<OneDnnConv> Build(const PrepareContext& ctx, const dnnl::primitive_attr& attr,
                                  bool guard_non_finite) {
  try {
    return std::make_unique<OneDnnConv>(ctx, attr, guard_non_finite);
  } catch (const dnnl::error&) {
    return nullptr;
  } catch (const std::bad_alloc&) {
    return nullptr;
  }
}

std::unique_ptr<PreparedKernel> PrepareConv(const PrepareContext& ctx) {
  if (!Takes(ctx)) return nullptr;
  return Build(ctx, dnnl::primitive_attr(), /*guard_non_finite=*/false);
}

// fused_conv(x, w[, bias[, residual]]).
std::unique_ptr<PreparedKernel> PrepareFusedConv(const PrepareContext& ctx) {
  if (!Takes(ctx)) return nullptr;
  dnnl::post_ops ops;
  const bool residual = ctx.inputs.size() > 3;
  if (residual) ops.append_sum(1.0f);
  bool guard = false;
  if (!onednn::AppendActivation(ctx.attrs, ops, &guard)) return nullptr;
  if (guard && ctx.constant_inputs[1] != nullptr &&
      !onednn::AllFinite(ctx.constant_inputs[1], ElementCount(ctx.inputs[1].shape))) {
    return nullptr;  // every run would go to the reference
  }
  dnnl::primitive_attr attr;
  if (ops.len() > 0) attr.set_post_ops(ops);
  std::unique_ptr<OneDnnConv> kernel = Build(ctx, attr, guard);
  if (kernel == nullptr || !kernel->jit()) return nullptr;
  // oneDNN 2.6's SSE4.1 depthwise kernel crashes in a sum post-op when the channel count is
  // not a multiple of its 4-float vector (reproduced with oneDNN alone, DNNL_MAX_CPU_ISA=
  // SSE41, 6 channels); the reference runs those.
  if (residual && kernel->impl().rfind("jit_dw:sse41", 0) == 0 &&
      ctx.outputs[0].shape[1] % 4 != 0) {
    return nullptr;
  }
  return kernel;
}

}  // namespace

void AttachOneDnnConvKernels(KernelTable& table) {
  table.SetPrepare("conv", PrepareConv);
  table.SetPrepare("fused_conv", PrepareFusedConv);
}

}  // namespace sy::cpu
