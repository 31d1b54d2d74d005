// The conv_pool family: conv, max_pool and avg_pool over 1 to 3 spatial dims
// (kernels/conv_pool.cl): direct kernels, one work-item per output element; conv_transpose
// (likewise); global_avg_pool (the reduction family's op, a mean over the
// spatial dims). Float dtypes; and qlinear_conv (u8 and i8: exact integer sums, a direct
// kernel, one work-item per output element).
//
// Where the plugin was built with CLBlast (the condition matmul uses), f32 and f64 conv
// goes through im2col + GEMM instead: per batch item and group, sy_im2col writes the
// [C/group * taps, out] column matrix into a scratch buffer allocated at prepare, and
// CLBlastSgemm/Dgemm multiplies the group's weights [M/group, C/group * taps] by it into
// the output (bias first written by sy_conv_bias, then beta 1). About 13 times faster than
// the direct kernel on PoCL (docs/opencl.md has the figures). Prepare runs the GEMM once
// so that CLBlast compiles its kernels then; if that fails, or SWITCHYARD_OPENCL_CONV=direct
// (or SWITCHYARD_OPENCL_GEMM=tiled), or the conv is depthwise-like (M/group or C/group
// under 8 with group > 1), the direct kernel runs.
#include <cstdlib>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#ifdef SY_OPENCL_HAVE_CLBLAST
#include <clblast_c.h>
#endif

#include "cl_op.h"
#include "kernel_sources.h"
#include "qlinear_requantize.h"

namespace sy::opencl {
namespace {

std::vector<int64_t> IntsOr(const Attrs& attrs, std::string_view name, size_t size, int64_t fill) {
  if (!attrs.Has(name)) return std::vector<int64_t>(size, fill);
  std::vector<int64_t> values = attrs.GetInts(name);
  values.resize(size, fill);
  return values;
}

// Per spatial dim: in, out, kernel, stride, pad_begin, pad_end, dilation.
std::vector<int64_t> WindowMeta(const NodeInfo& node, const Shape& kernel) {
  const Shape& x = node.inputs[0].shape;
  const Shape& y = node.outputs[0].shape;
  const size_t spatial = x.size() - 2;
  const std::vector<int64_t> strides = IntsOr(node.attrs, "strides", spatial, 1);
  const std::vector<int64_t> pads = IntsOr(node.attrs, "pads", 2 * spatial, 0);
  const std::vector<int64_t> dilations = IntsOr(node.attrs, "dilations", spatial, 1);
  std::vector<int64_t> meta;
  for (size_t d = 0; d < spatial; ++d) {
    for (int64_t v :
         {x[d + 2], y[d + 2], kernel[d], strides[d], pads[d], pads[spatial + d], dilations[d]}) {
      meta.push_back(v);
    }
  }
  return meta;
}

// Whether conv may use im2col + CLBlast (built with it, not turned off by the environment).
bool ConvGemmEnabled() {
#ifdef SY_OPENCL_HAVE_CLBLAST
  const char* conv = std::getenv("SWITCHYARD_OPENCL_CONV");
  if (conv != nullptr && std::strcmp(conv, "direct") == 0) return false;
  const char* gemm = std::getenv("SWITCHYARD_OPENCL_GEMM");
  return gemm == nullptr || std::strcmp(gemm, "tiled") != 0;
#else
  return false;
#endif
}

int64_t Count(const Shape& s, size_t begin) {
  int64_t p = 1;
  for (size_t d = begin; d < s.size(); ++d) p *= s[d];
  return p;
}

// What the direct conv kernels (sy_conv, sy_qlinear_conv) take of a node's geometry: x is
// input 0, w input `w_index`.
struct ConvGeometry {
  int spatial = 0;
  int64_t batch = 0, channels = 0, out_channels = 0, group = 1, in_count = 0, out_count = 0,
          tap_count = 0;
  UniqueMem meta;  // WindowMeta on the device

  void Read(PrepareContext& ctx, size_t w_index) {
    const NodeInfo& node = ctx.node();
    const Shape& x = node.inputs[0].shape;
    const Shape& w = node.inputs[w_index].shape;
    spatial = static_cast<int>(x.size() - 2);
    batch = x[0];
    channels = x[1];
    out_channels = node.outputs[0].shape[1];
    group = node.attrs.GetInt("group", 1);
    in_count = Count(x, 2);
    out_count = Count(node.outputs[0].shape, 2);
    tap_count = Count(w, 2);
    meta = ctx.Upload(WindowMeta(node, Shape(w.begin() + 2, w.end())));
  }

  // The kernels' arguments after their tensors: n, C, M, group, S, in_count, out_count,
  // tap_count, meta.
  KernelArgs& Add(KernelArgs& args, uint64_t n) const {
    return args.Add(static_cast<cl_ulong>(n))
        .Add(static_cast<cl_long>(channels))
        .Add(static_cast<cl_long>(out_channels))
        .Add(static_cast<cl_long>(group))
        .Add(static_cast<cl_int>(spatial))
        .Add(static_cast<cl_long>(in_count))
        .Add(static_cast<cl_long>(out_count))
        .Add(static_cast<cl_long>(tap_count))
        .Add(meta.get());
  }
};

class ConvOp : public ClOp {
 public:
  void Prepare(PrepareContext& ctx) override {
    const NodeInfo& node = ctx.node();
    geometry_.Read(ctx, 1);
    spatial_ = geometry_.spatial;
    channels_ = geometry_.channels;
    out_channels_ = geometry_.out_channels;
    group_ = geometry_.group;
    in_count_ = geometry_.in_count;
    out_count_ = geometry_.out_count;
    tap_count_ = geometry_.tap_count;
    has_bias_ = node.inputs.size() > 2;
    batch_ = geometry_.batch;
    const DType dtype = node.inputs[0].dtype;
    dtype_ = dtype;
    const bool same_dtype = node.inputs[1].dtype == dtype && node.outputs[0].dtype == dtype;
    const int64_t mg = group_ > 0 ? out_channels_ / group_ : 0;
    const int64_t cg = group_ > 0 ? channels_ / group_ : 0;
    if (ConvGemmEnabled() && (dtype == DType::kF32 || dtype == DType::kF64) && same_dtype &&
        batch_ > 0 && mg > 0 && cg > 0 && tap_count_ > 0 && out_count_ > 0 &&
        (group_ == 1 || (mg >= 8 && cg >= 8)) && PrepareGemm(ctx)) {
      return;
    }
    std::string defines =
        SlotDefines('A', dtype) + SlotDefines('Y', node.outputs[0].dtype) + "#define CONV 1\n";
    if (has_bias_) defines += SlotDefines('C', node.inputs[2].dtype) + "#define HAS_BIAS 1\n";
    kernel_ = ctx.Kernel("conv_pool", defines, dtype == DType::kF64, "sy_conv");
  }

  void Enqueue(const EnqueueContext& ctx) override {
    const uint64_t n = static_cast<uint64_t>(ctx.outputs[0].count());
    if (n == 0) return;
    if (use_gemm_) {
      EnqueueGemm(ctx.queue, ctx.inputs, ctx.outputs[0]);
      return;
    }
    const ClTensor& bias = has_bias_ ? ctx.inputs[2] : ctx.inputs[1];  // unused without
    KernelArgs args(kernel_.get());
    args.Tensor(ctx.inputs[0]).Tensor(ctx.inputs[1]).Tensor(bias).Tensor(ctx.outputs[0]);
    geometry_.Add(args, n);
    Launch1D(ctx.queue, kernel_.get(), n);
  }

 private:
  ConvGeometry geometry_;
  // The geometry's figures, which the im2col + CLBlast path below reads too.
  int spatial_ = 0;
  int64_t channels_ = 0, out_channels_ = 0, group_ = 1, in_count_ = 0, out_count_ = 0,
          tap_count_ = 0;
  bool has_bias_ = false;
  UniqueKernel kernel_;

  // ---- the im2col + CLBlast path ----
  DType dtype_ = DType::kF32;
  int64_t batch_ = 0;
  bool use_gemm_ = false;
  std::unique_ptr<ClBuffer> col_;  // [C/group * taps, out_count], one batch item and group
  UniqueKernel im2col_, bias_kernel_;

  bool PrepareGemm(PrepareContext& ctx) {
#ifdef SY_OPENCL_HAVE_CLBLAST
    const NodeInfo& node = ctx.node();
    const DType dtype = dtype_;
    std::string defines = SlotDefines('A', dtype) + "#define IM2COL 1\n";
    im2col_ = ctx.Kernel("conv_pool", defines, dtype == DType::kF64, "sy_im2col");
    if (has_bias_) {
      std::string bias_defines = SlotDefines('A', dtype) + SlotDefines('Y', dtype) +
                                 SlotDefines('C', node.inputs[2].dtype) + "#define CONV_BIAS 1\n";
      bias_kernel_ = ctx.Kernel("conv_pool", bias_defines, dtype == DType::kF64, "sy_conv_bias");
    }
    try {
      Device& device = ctx.device();
      const uint64_t size = DTypeSize(dtype);
      const uint64_t kg = static_cast<uint64_t>(channels_ / group_ * tap_count_);
      col_ = std::make_unique<ClBuffer>(device, kg * static_cast<uint64_t>(out_count_) * size);
      // Warm-up: one GEMM of the node's sizes on scratch buffers compiles CLBlast's kernels.
      const uint64_t mg = static_cast<uint64_t>(out_channels_ / group_);
      ClBuffer w(device, mg * kg * size), y(device, mg * static_cast<uint64_t>(out_count_) * size);
      use_gemm_ = true;
      Gemm(device.queue.get(), w.mem(), 0, col_->mem(), y.mem(), 0, false);
      CheckCl(clFinish(device.queue.get()), "clFinish");
      return true;
    } catch (const sy_sdk::Error&) {
      use_gemm_ = false;
      col_.reset();
      return false;
    }
#else
    (void)ctx;
    return false;
#endif
  }

  // y (elements from y_off) [M/group, out_count] = w (from w_off) [M/group, Kg] x col
  // (+ y when accumulate).
  void Gemm(cl_command_queue queue, cl_mem w, size_t w_off, cl_mem col, cl_mem y, size_t y_off,
            bool accumulate) {
#ifdef SY_OPENCL_HAVE_CLBLAST
    const auto m = static_cast<size_t>(out_channels_ / group_);
    const auto k = static_cast<size_t>(channels_ / group_ * tap_count_);
    const auto n = static_cast<size_t>(out_count_);
    CLBlastStatusCode status;
    if (dtype_ == DType::kF32) {
      status = CLBlastSgemm(CLBlastLayoutRowMajor, CLBlastTransposeNo, CLBlastTransposeNo, m, n, k,
                            1.0f, w, w_off, k, col, 0, n, accumulate ? 1.0f : 0.0f, y, y_off, n,
                            &queue, nullptr);
    } else {
      status = CLBlastDgemm(CLBlastLayoutRowMajor, CLBlastTransposeNo, CLBlastTransposeNo, m, n, k,
                            1.0, w, w_off, k, col, 0, n, accumulate ? 1.0 : 0.0, y, y_off, n,
                            &queue, nullptr);
    }
    if (status != CLBlastSuccess) {
      throw sy_sdk::Error(SY_ERROR_INTERNAL,
                          "CLBlast GEMM (conv) failed with status " + std::to_string(status));
    }
#else
    (void)queue, (void)w, (void)w_off, (void)col, (void)y, (void)y_off, (void)accumulate;
#endif
  }

  void EnqueueGemm(cl_command_queue queue, std::span<const ClTensor> inputs, const ClTensor& out) {
    const size_t size = DTypeSize(dtype_);
    const int64_t mg = out_channels_ / group_, cg = channels_ / group_;
    const int64_t kg = cg * tap_count_;
    if (has_bias_) {
      const uint64_t n = static_cast<uint64_t>(batch_ * out_channels_ * out_count_);
      KernelArgs(bias_kernel_.get())
          .Tensor(inputs[2])
          .Tensor(out)
          .Add(static_cast<cl_ulong>(n))
          .Add(static_cast<cl_long>(out_channels_))
          .Add(static_cast<cl_long>(out_count_));
      Launch1D(queue, bias_kernel_.get(), n);
    }
    // CLBlast takes element offsets: the tensors' byte offsets are multiples of the
    // element size (the host aligns views to 256 bytes).
    const size_t wo = inputs[1].offset / size, yo = out.offset / size;
    const uint64_t col_n = static_cast<uint64_t>(kg * out_count_);
    for (int64_t b = 0; b < batch_; ++b) {
      for (int64_t g = 0; g < group_; ++g) {
        KernelArgs(im2col_.get())
            .Tensor(inputs[0])
            .Add(col_->mem())
            .Add(static_cast<cl_ulong>(col_n))
            .Add(static_cast<cl_long>((b * channels_ + g * cg) * in_count_))
            .Add(static_cast<cl_int>(spatial_))
            .Add(static_cast<cl_long>(in_count_))
            .Add(static_cast<cl_long>(out_count_))
            .Add(static_cast<cl_long>(tap_count_))
            .Add(geometry_.meta.get());
        Launch1D(queue, im2col_.get(), col_n);
        Gemm(queue, inputs[1].mem, wo + static_cast<size_t>(g * mg * kg), col_->mem(), out.mem,
             yo + static_cast<size_t>((b * out_channels_ + g * mg) * out_count_), has_bias_);
      }
    }
  }
};

// qlinear_conv: sy_qlinear_conv (kernels/conv_pool.cl), one work-item per output element,
// summed exactly in 64 bits and requantized as plugins/common/qlinear_requantize.h says; the
// kernel computes each channel's multiplier itself, rounded as the host's (the scales are
// device data, and an op never waits for the device while enqueuing). The scales come back
// to the host without waiting, and CheckData refuses bad ones with the reference's message
// (QLinearScaleProblem, output channel by output channel).
class QLinearConvOp : public ClOp {
 public:
  void Prepare(PrepareContext& ctx) override {
    const NodeInfo& node = ctx.node();
    geometry_.Read(ctx, 3);
    out_channels_ = geometry_.out_channels;
    n_out_ = ElementCount(node.outputs[0].shape);
    ws_count_ = ElementCount(node.inputs[4].shape);
    wz_count_ = ElementCount(node.inputs[5].shape);
    per_channel_scale_ = ws_count_ > 1;
    has_bias_ = node.inputs.size() > 8;
    const DType y = node.outputs[0].dtype;
    std::string defines = SlotDefines('A', node.inputs[0].dtype) +
                          SlotDefines('B', node.inputs[3].dtype) + SlotDefines('Y', y) +
                          (y == DType::kI8 ? "#define Y_LO -128.0f\n#define Y_HI 127.0f\n"
                                           : "#define Y_LO 0.0f\n#define Y_HI 255.0f\n") +
                          "#define QLINEAR_CONV 1\n";
    if (has_bias_) defines += SlotDefines('C', node.inputs[8].dtype) + "#define HAS_BIAS 1\n";
    kernel_ = ctx.Kernel("conv_pool", defines, false, "sy_qlinear_conv");
    scales_.assign(static_cast<size_t>(2 + ws_count_), 0.0f);
  }

  void Enqueue(const EnqueueContext& ctx) override {
    // The reference checks the scales once per output channel, outputs or not.
    checks_ = out_channels_ > 0;
    if (checks_) {
      // x_scale, y_scale, then w_scale: read without waiting, checked by CheckData.
      const auto read = [&](const ClTensor& t, float* to, int64_t count) {
        CheckCl(clEnqueueReadBuffer(ctx.queue, t.mem, CL_FALSE, t.offset,
                                    static_cast<size_t>(count) * sizeof(float), to, 0, nullptr,
                                    nullptr),
                "clEnqueueReadBuffer (qlinear_conv scales)");
      };
      read(ctx.inputs[1], &scales_[0], 1);
      read(ctx.inputs[6], &scales_[1], 1);
      read(ctx.inputs[4], &scales_[2], ws_count_);
    }
    if (n_out_ == 0) return;
    const ClTensor& bias = has_bias_ ? ctx.inputs[8] : ctx.inputs[0];  // unused without
    KernelArgs args(kernel_.get());
    for (size_t k = 0; k < 8; ++k) args.Tensor(ctx.inputs[k]);
    args.Tensor(bias).Tensor(ctx.outputs[0]);
    geometry_.Add(args, static_cast<uint64_t>(n_out_))
        .Add(static_cast<cl_long>(ws_count_))
        .Add(static_cast<cl_long>(wz_count_));
    Launch1D(ctx.queue, kernel_.get(), static_cast<uint64_t>(n_out_));
  }

  // The reference's error (plugins/cpu/src/ref/conv_pool_ref.cpp QLinearConv), as a data
  // error: the first output channel whose scales are refused.
  void CheckData() const override {
    if (!checks_) return;
    for (int64_t m = 0; m < out_channels_; ++m) {
      const float w_scale = scales_[static_cast<size_t>(2 + (per_channel_scale_ ? m : 0))];
      const std::string problem = plugin::QLinearScaleProblem(scales_[0], w_scale, scales_[1]);
      if (problem.empty()) continue;
      throw sy_sdk::Error(
          SY_ERROR_DATA,
          "qlinear_conv: " + problem +
              (per_channel_scale_ ? " (output channel " + std::to_string(m) + ")" : ""));
    }
  }

 private:
  ConvGeometry geometry_;
  int64_t out_channels_ = 0, n_out_ = 0, ws_count_ = 1, wz_count_ = 1;
  bool has_bias_ = false, per_channel_scale_ = false, checks_ = false;
  std::vector<float> scales_;  // x_scale, y_scale, w_scale...: filled by the queue
  UniqueKernel kernel_;
};

// qlinear_conv takes what its schema takes (u8 and i8 everywhere, f32 scales, i32 bias) on
// any device; supports_node may see any node, so nothing is read that the node lacks.
bool SupportsQLinearConv(const NodeInfo& node, const DeviceCaps&, std::string& reason) {
  if (node.inputs.size() < 8 || node.outputs.size() != 1 || node.inputs[0].shape.size() < 3 ||
      node.inputs[0].shape.size() > 5) {
    reason = "qlinear_conv takes 8 or 9 inputs, 1 to 3 spatial dims and gives one output";
    return false;
  }
  return true;
}

class PoolOp : public ClOp {
 public:
  void Prepare(PrepareContext& ctx) override {
    const NodeInfo& node = ctx.node();
    const Shape& x = node.inputs[0].shape;
    const size_t spatial = x.size() - 2;
    const std::vector<int64_t> kernel = IntsOr(node.attrs, "kernel_shape", spatial, 1);
    spatial_ = static_cast<int>(spatial);
    in_count_ = Count(x, 2);
    out_count_ = Count(node.outputs[0].shape, 2);
    tap_count_ = 1;
    for (int64_t k : kernel) tap_count_ *= k;
    meta_ = ctx.Upload(WindowMeta(node, kernel));
    const DType dtype = node.inputs[0].dtype;
    std::string defines =
        SlotDefines('A', dtype) + SlotDefines('Y', node.outputs[0].dtype) + "#define POOL 1\n";
    if (node.op == "max_pool") defines += "#define MAX_POOL 1\n";
    if (node.attrs.GetInt("count_include_pad", 0) != 0) defines += "#define COUNT_INCLUDE_PAD 1\n";
    kernel_ = ctx.Kernel("conv_pool", defines, dtype == DType::kF64, "sy_pool");
  }

  void Enqueue(const EnqueueContext& ctx) override {
    const uint64_t n = static_cast<uint64_t>(ctx.outputs[0].count());
    if (n == 0) return;
    KernelArgs(kernel_.get())
        .Tensor(ctx.inputs[0])
        .Tensor(ctx.outputs[0])
        .Add(static_cast<cl_ulong>(n))
        .Add(static_cast<cl_int>(spatial_))
        .Add(static_cast<cl_long>(in_count_))
        .Add(static_cast<cl_long>(out_count_))
        .Add(static_cast<cl_long>(tap_count_))
        .Add(meta_.get());
    Launch1D(ctx.queue, kernel_.get(), n);
  }

 private:
  int spatial_ = 0;
  int64_t in_count_ = 0, out_count_ = 0, tap_count_ = 0;
  UniqueMem meta_;
  UniqueKernel kernel_;
};

bool SupportsWindow(const NodeInfo& node, const DeviceCaps& device, std::string& reason) {
  if (node.outputs.size() != 1) {
    reason = node.op + " with its indices output is not implemented in the OpenCL plugin";
    return false;
  }
  if (!node.inputs.empty() && IsFloat(node.inputs[0].dtype)) {
    const size_t rank = node.inputs[0].shape.size();
    if (rank < 3 || rank > 5) {
      reason = node.op + ": 1 to 3 spatial dims";
      return false;
    }
  }
  return SupportsFloatOnly(node, device, reason);
}

class ConvTransposeOp : public ClOp {
 public:
  void Prepare(PrepareContext& ctx) override {
    const NodeInfo& node = ctx.node();
    const Shape& x = node.inputs[0].shape;
    const Shape& w = node.inputs[1].shape;
    const Shape& y = node.outputs[0].shape;
    const size_t spatial = x.size() - 2;
    spatial_ = static_cast<int>(spatial);
    const std::vector<int64_t> strides = IntsOr(node.attrs, "strides", spatial, 1);
    const std::vector<int64_t> pads = IntsOr(node.attrs, "pads", 2 * spatial, 0);
    const std::vector<int64_t> dilations = IntsOr(node.attrs, "dilations", spatial, 1);
    const int64_t group = node.attrs.GetInt("group", 1);
    std::vector<int64_t> meta;
    in_count_ = out_count_ = tap_count_ = 1;
    for (size_t d = 0; d < spatial; ++d) {
      meta.insert(meta.end(), {x[d + 2], y[d + 2], w[d + 2], strides[d], pads[d], dilations[d]});
      in_count_ *= x[d + 2];
      out_count_ *= y[d + 2];
      tap_count_ *= w[d + 2];
    }
    meta_ = ctx.Upload(meta);
    channels_ = x[1];
    out_channels_ = y[1];
    cpg_ = group > 0 ? channels_ / group : channels_;
    opg_ = w[1];
    n_out_ = ElementCount(y);
    has_bias_ = node.inputs.size() > 2;
    const DType dtype = node.inputs[0].dtype;
    std::string defines = SlotDefines('A', dtype) + SlotDefines('B', node.inputs[1].dtype) +
                          SlotDefines('Y', node.outputs[0].dtype) + "#define CONV_TRANSPOSE 1\n";
    if (has_bias_) defines += SlotDefines('C', node.inputs[2].dtype) + "#define HAS_BIAS 1\n";
    kernel_ = ctx.Kernel("conv_pool", defines, dtype == DType::kF64, "sy_conv_transpose");
  }

  void Enqueue(const EnqueueContext& ctx) override {
    if (n_out_ == 0) return;
    const ClTensor& bias = has_bias_ ? ctx.inputs[2] : ctx.inputs[1];  // unused without
    KernelArgs(kernel_.get())
        .Tensor(ctx.inputs[0])
        .Tensor(ctx.inputs[1])
        .Tensor(bias)
        .Tensor(ctx.outputs[0])
        .Add(static_cast<cl_ulong>(n_out_))
        .Add(static_cast<cl_int>(spatial_))
        .Add(meta_.get())
        .Add(static_cast<cl_long>(channels_))
        .Add(static_cast<cl_long>(out_channels_))
        .Add(static_cast<cl_long>(cpg_))
        .Add(static_cast<cl_long>(opg_))
        .Add(static_cast<cl_long>(in_count_))
        .Add(static_cast<cl_long>(out_count_))
        .Add(static_cast<cl_long>(tap_count_))
        .Add(static_cast<cl_int>(has_bias_ ? 1 : 0));
    Launch1D(ctx.queue, kernel_.get(), static_cast<uint64_t>(n_out_));
  }

 private:
  int spatial_ = 1;
  int64_t channels_ = 0, out_channels_ = 0, cpg_ = 1, opg_ = 1;
  int64_t in_count_ = 1, out_count_ = 1, tap_count_ = 1, n_out_ = 0;
  bool has_bias_ = false;
  UniqueMem meta_;
  UniqueKernel kernel_;
};

bool SupportsConvTranspose(const NodeInfo& node, const DeviceCaps& device, std::string& reason) {
  if (!node.inputs.empty() &&
      (node.inputs[0].shape.size() < 3 || node.inputs[0].shape.size() > 5)) {
    reason = "conv_transpose takes 1 to 3 spatial dims in the OpenCL plugin";
    return false;
  }
  return SupportsFloatOnly(node, device, reason);
}

// deform_conv (2-D): one work-item per output element (kernels/conv_pool.cl,
// sy_deform_conv); offset and mask in x's dtype, bias in its own.
class DeformConvOp : public ClOp {
 public:
  void Prepare(PrepareContext& ctx) override {
    const NodeInfo& node = ctx.node();
    const Shape& x = node.inputs[0].shape;
    const Shape& w = node.inputs[1].shape;
    const Shape& y = node.outputs[0].shape;
    const std::vector<int64_t> strides = IntsOr(node.attrs, "strides", 2, 1);
    const std::vector<int64_t> pads = IntsOr(node.attrs, "pads", 4, 0);
    const std::vector<int64_t> dilations = IntsOr(node.attrs, "dilations", 2, 1);
    args_ = {x[1],
             x[2],
             x[3],
             w[0],
             w[2],
             w[3],
             y[2],
             y[3],
             node.attrs.GetInt("group", 1),
             node.attrs.GetInt("offset_group", 1),
             strides[0],
             strides[1],
             pads[0],
             pads[1],
             dilations[0],
             dilations[1]};
    n_out_ = ElementCount(y);
    has_bias_ = node.inputs.size() > 3;
    has_mask_ = node.inputs.size() > 4;
    const DType dtype = node.inputs[0].dtype;
    std::string defines = SlotDefines('A', dtype) + SlotDefines('Y', node.outputs[0].dtype) +
                          "#define DEFORM_CONV 1\n";
    if (has_bias_) defines += SlotDefines('C', node.inputs[3].dtype) + "#define HAS_BIAS 1\n";
    if (has_mask_) defines += "#define HAS_MASK 1\n";
    kernel_ = ctx.Kernel("conv_pool", defines, dtype == DType::kF64, "sy_deform_conv");
  }

  void Enqueue(const EnqueueContext& ctx) override {
    if (n_out_ == 0) return;
    // Absent bias and mask: bound to x, never read.
    const ClTensor& bias = has_bias_ ? ctx.inputs[3] : ctx.inputs[0];
    const ClTensor& mask = has_mask_ ? ctx.inputs[4] : ctx.inputs[0];
    KernelArgs args(kernel_.get());
    args.Tensor(ctx.inputs[0])
        .Tensor(ctx.inputs[1])
        .Tensor(ctx.inputs[2])
        .Tensor(bias)
        .Tensor(mask)
        .Tensor(ctx.outputs[0])
        .Add(static_cast<cl_ulong>(n_out_));
    for (int64_t v : args_) args.Add(static_cast<cl_long>(v));
    Launch1D(ctx.queue, kernel_.get(), static_cast<uint64_t>(n_out_));
  }

 private:
  std::vector<int64_t> args_;  // C H W O kH kW oH oW group offset_group sh sw ph pw dh dw
  int64_t n_out_ = 0;
  bool has_bias_ = false, has_mask_ = false;
  UniqueKernel kernel_;
};

bool SupportsDeformConv(const NodeInfo& node, const DeviceCaps& device, std::string& reason) {
  for (size_t i = 2; i < node.inputs.size(); ++i) {
    if (i != 3 && node.inputs[i].dtype != node.inputs[0].dtype) {
      reason = "deform_conv: offset and mask in x's dtype";
      return false;
    }
  }
  return SupportsFloatOnly(node, device, reason);
}

// roi_align: one work-item per output element (kernels/conv_pool.cl, sy_roi_align); bad
// batch indices and rois are reported through the executable's error slots.
class RoiAlignOp : public ClOp {
 public:
  void Prepare(PrepareContext& ctx) override {
    const NodeInfo& node = ctx.node();
    const Shape& x = node.inputs[0].shape;
    const Shape& y = node.outputs[0].shape;
    n_ = x[0];
    c_ = x[1];
    h_ = x[2];
    w_ = x[3];
    oh_ = y[2];
    ow_ = y[3];
    n_out_ = ElementCount(y);
    sampling_ = node.attrs.GetInt("sampling_ratio", 0);
    scale_ = node.attrs.GetFloat("spatial_scale", 1.0);
    half_pixel_ =
        node.attrs.GetString("coordinate_transformation_mode", "half_pixel") == "half_pixel";
    max_mode_ = node.attrs.GetString("mode", "avg") == "max";
    dtype_ = node.inputs[0].dtype;
    slot_index_ = ctx.ErrorSlot(node.Describe() + ": a batch index is outside [0, " +
                                std::to_string(n_) + ") (the batch of x)");
    slot_roi_ = ctx.ErrorSlot(node.Describe() +
                              ": a roi is not finite or needs more than 2^20 samples per bin");
    const std::string it = node.inputs[2].dtype == DType::kI32 ? "int" : "long";
    const std::string defines = SlotDefines('A', node.inputs[0].dtype) +
                                SlotDefines('Y', node.outputs[0].dtype) + "#define IT " + it +
                                "\n#define ROI_ALIGN 1\n";
    kernel_ = ctx.Kernel("conv_pool", defines, dtype_ == DType::kF64, "sy_roi_align");
  }

  void Enqueue(const EnqueueContext& ctx) override {
    if (n_out_ == 0) return;
    KernelArgs args(kernel_.get());
    args.Tensor(ctx.inputs[0])
        .Tensor(ctx.inputs[1])
        .Tensor(ctx.inputs[2])
        .Tensor(ctx.outputs[0])
        .Add(static_cast<cl_ulong>(n_out_))
        .Add(static_cast<cl_long>(n_))
        .Add(static_cast<cl_long>(c_))
        .Add(static_cast<cl_long>(h_))
        .Add(static_cast<cl_long>(w_))
        .Add(static_cast<cl_long>(oh_))
        .Add(static_cast<cl_long>(ow_))
        .Add(static_cast<cl_long>(sampling_))
        .Scalar(dtype_, scale_)
        .Add(static_cast<cl_int>(half_pixel_ ? 1 : 0))
        .Add(static_cast<cl_int>(max_mode_ ? 1 : 0))
        .Add(ctx.error_flags)
        .Add(static_cast<cl_uint>(slot_index_))
        .Add(static_cast<cl_uint>(slot_roi_));
    Launch1D(ctx.queue, kernel_.get(), static_cast<uint64_t>(n_out_));
  }

 private:
  int64_t n_ = 0, c_ = 0, h_ = 0, w_ = 0, oh_ = 1, ow_ = 1, n_out_ = 0, sampling_ = 0;
  double scale_ = 1.0;
  bool half_pixel_ = true, max_mode_ = false;
  DType dtype_ = DType::kF32;
  uint32_t slot_index_ = 0, slot_roi_ = 0;
  UniqueKernel kernel_;
};

bool SupportsRoiAlign(const NodeInfo& node, const DeviceCaps& device, std::string& reason) {
  if (node.inputs.size() == 3 && node.inputs[1].dtype != node.inputs[0].dtype) {
    reason = "roi_align: rois in x's dtype";
    return false;
  }
  return SupportsFloatOnly(node, device, reason);
}

std::unique_ptr<ClOp> CreateRoiAlign(const NodeInfo&) { return std::make_unique<RoiAlignOp>(); }

std::unique_ptr<ClOp> CreateConv(const NodeInfo&) { return std::make_unique<ConvOp>(); }
std::unique_ptr<ClOp> CreateQLinearConv(const NodeInfo&) {
  return std::make_unique<QLinearConvOp>();
}
std::unique_ptr<ClOp> CreateDeformConv(const NodeInfo&) { return std::make_unique<DeformConvOp>(); }
std::unique_ptr<ClOp> CreatePool(const NodeInfo&) { return std::make_unique<PoolOp>(); }
std::unique_ptr<ClOp> CreateConvTranspose(const NodeInfo&) {
  return std::make_unique<ConvTransposeOp>();
}

}  // namespace

void RegisterConvPoolOps(ClOpRegistry& registry) {
  registry.Add("conv", SupportsWindow, CreateConv);
  registry.Add("qlinear_conv", SupportsQLinearConv, CreateQLinearConv);
  registry.Add("conv_transpose", SupportsConvTranspose, CreateConvTranspose);
  registry.Add("deform_conv", SupportsDeformConv, CreateDeformConv);
  registry.Add("roi_align", SupportsRoiAlign, CreateRoiAlign);
  registry.Add("max_pool", SupportsWindow, CreatePool);
  registry.Add("avg_pool", SupportsWindow, CreatePool);
  registry.Add("global_avg_pool", SupportsFloatOnly, CreateReduceOp);
}

}  // namespace sy::opencl
