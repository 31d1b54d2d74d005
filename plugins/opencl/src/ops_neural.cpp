// The neural family: attention (kernels/neural.cl, SY_ATTENTION: one work-item per query row, with
// a scratch buffer of rows x Dv accumulators allocated at prepare; the mask may be float, q's dtype
// and additive, or bool), rotary_embedding, resize and grid_sample (kernels/neural.cl: one
// work-item per (row, position) or per output element). Float dtypes. Semantics of the CPU
// reference kernels (plugins/cpu/src/ref/neural_ref.cpp).
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <string>
#include <string_view>
#include <vector>

#include "attention_mask.h"
#include "cl_op.h"
#include "kernel_sources.h"
#include "resize_taps.h"

namespace sy::opencl {
namespace {

class AttentionOp : public ClOp {
 public:
  void Prepare(PrepareContext& ctx) override {
    const NodeInfo& node = ctx.node();
    const Shape& q = node.inputs[0].shape;
    const Shape& k = node.inputs[1].shape;
    const Shape& v = node.inputs[2].shape;
    dtype_ = node.inputs[0].dtype;
    hq_ = q[1], s_ = q[2], d_ = q[3], hkv_ = k[1], t_ = k[2], dv_ = v[3];
    rows_ = q[0] * hq_ * s_;
    scale_ = node.attrs.Has("scale") ? node.attrs.GetFloat("scale")
                                     : 1.0 / std::sqrt(static_cast<double>(d_));
    causal_ = node.attrs.GetInt("is_causal", 0) != 0;
    has_mask_ = node.inputs.size() > 3;
    std::string defines = SlotDefines('A', dtype_) + SlotDefines('Y', node.outputs[0].dtype);
    if (has_mask_) {
      const Shape& mask = node.inputs[3].shape;
      int64_t stride = 1;
      const size_t lead = 4 - mask.size();
      for (size_t d = mask.size(); d-- > 0;) {
        mask_strides_[lead + d] = mask[d] == 1 ? 0 : stride;
        stride *= mask[d];
      }
      defines += SlotDefines('M', node.inputs[3].dtype) + "#define HAS_MASK 1\n";
    }
    // The keys a row excludes (plugins/common/attention_mask.h), as literals of the
    // compute type (a float literal where the kernel computes in float).
    const auto literal = [this](double value) {
      char text[32];
      std::snprintf(text, sizeof text, "%.17g%s", value, dtype_ == DType::kF64 ? "" : "f");
      return std::string(text);
    };
    defines += "#define SY_EXCLUDED_BIAS " + literal(plugin::kAttentionExcludedBias) +
               "\n#define SY_DOMINANT_BIAS " + literal(plugin::kAttentionDominantBias) + "\n";
    kernel_ = ctx.Kernel("neural", defines + "#define SY_ATTENTION\n", dtype_ == DType::kF64,
                         "sy_attention");
    const uint64_t scratch = static_cast<uint64_t>(rows_ * dv_) * (dtype_ == DType::kF64 ? 8 : 4);
    if (scratch > 0) scratch_ = std::make_unique<ClBuffer>(ctx.device(), scratch);
  }

  void Enqueue(const EnqueueContext& ctx) override {
    if (rows_ == 0 || dv_ == 0 || hkv_ == 0) return;
    const ClTensor& mask = has_mask_ ? ctx.inputs[3] : ctx.inputs[0];  // unused without
    KernelArgs args(kernel_.get());
    args.Tensor(ctx.inputs[0]).Tensor(ctx.inputs[1]).Tensor(ctx.inputs[2]).Tensor(mask);
    args.Tensor(ctx.outputs[0]).Add(scratch_->mem()).Add(static_cast<cl_ulong>(rows_));
    for (int64_t x : {hq_, s_, d_, hkv_, t_, dv_}) args.Add(static_cast<cl_long>(x));
    args.Scalar(dtype_, scale_).Add(static_cast<cl_int>(causal_ ? 1 : 0));
    for (int64_t x : mask_strides_) args.Add(static_cast<cl_long>(x));
    Launch1D(ctx.queue, kernel_.get(), static_cast<uint64_t>(rows_));
  }

 private:
  DType dtype_ = DType::kF32;
  int64_t hq_ = 0, s_ = 0, d_ = 0, hkv_ = 0, t_ = 0, dv_ = 0, rows_ = 0;
  double scale_ = 1.0;
  bool causal_ = false, has_mask_ = false;
  int64_t mask_strides_[4] = {0, 0, 0, 0};
  std::unique_ptr<ClBuffer> scratch_;
  UniqueKernel kernel_;
};

class RotaryOp : public ClOp {
 public:
  void Prepare(PrepareContext& ctx) override {
    const NodeInfo& node = ctx.node();
    const Shape& s = node.inputs[0].shape;
    lines_ = s[0] * s[1] * s[2];
    seq_ = s[2];
    dim_ = s[3];
    const int64_t rotary = node.attrs.Has("rotary_dim") ? node.attrs.GetInt("rotary_dim") : dim_;
    half_ = rotary / 2;
    interleaved_ = node.attrs.GetInt("interleaved", 0) != 0 ? 1 : 0;
    const DType dtype = node.inputs[0].dtype;
    const std::string defines = SlotDefines('A', dtype) + SlotDefines('B', node.inputs[1].dtype) +
                                SlotDefines('C', node.inputs[2].dtype) +
                                SlotDefines('Y', node.outputs[0].dtype) + "#define ROTARY 1\n";
    kernel_ = ctx.Kernel("neural", defines, dtype == DType::kF64, "sy_rotary");
  }

  void Enqueue(const EnqueueContext& ctx) override {
    if (lines_ == 0 || dim_ == 0) return;
    KernelArgs(kernel_.get())
        .Tensor(ctx.inputs[0])
        .Tensor(ctx.inputs[1])
        .Tensor(ctx.inputs[2])
        .Tensor(ctx.outputs[0])
        .Add(static_cast<cl_ulong>(lines_))
        .Add(static_cast<cl_ulong>(seq_))
        .Add(static_cast<cl_ulong>(dim_))
        .Add(static_cast<cl_ulong>(half_))
        .Add(static_cast<cl_int>(interleaved_));
    Launch1D(ctx.queue, kernel_.get(), static_cast<uint64_t>(lines_));
  }

 private:
  int64_t lines_ = 0, seq_ = 1, dim_ = 0, half_ = 0;
  int interleaved_ = 0;
  UniqueKernel kernel_;
};

constexpr size_t kMaxResizeRank = 8;  // the kernel's corner loop

// The bits of `w` as the kernel reads a weight (double for f64, else float).
int64_t WeightBits(double w, bool f64) {
  if (f64) {
    int64_t bits;
    std::memcpy(&bits, &w, sizeof bits);
    return bits;
  }
  const float f = static_cast<float>(w);
  int32_t bits;
  std::memcpy(&bits, &f, sizeof bits);
  return bits;
}

class ResizeOp : public ClOp {
 public:
  void Prepare(PrepareContext& ctx) override {
    const NodeInfo& node = ctx.node();
    const Shape& in_shape = node.inputs[0].shape;
    const Shape& out_shape = node.outputs[0].shape;
    const size_t rank = in_shape.size();
    rank_ = static_cast<int>(rank);
    n_out_ = ElementCount(out_shape);
    const DType dtype = node.inputs[0].dtype;
    const bool f64 = dtype == DType::kF64;
    const plugin::ResizeParams params = plugin::ResizeParams::FromAttrs(node.attrs);
    // meta (kernels/neural.cl, sy_resize): out dims, x strides, each axis's first entry,
    // extrapolation_value's bits; then per axis and output coordinate an entry (tap
    // count, where its taps start), then the taps (index, weight bits). The taps are
    // plugins/common's, as the CPU reference computes them.
    std::vector<int64_t> meta(out_shape.begin(), out_shape.end());
    std::vector<int64_t> strides(rank, 1);
    for (size_t d = rank; d-- > 1;) strides[d - 1] = strides[d] * in_shape[d];
    meta.insert(meta.end(), strides.begin(), strides.end());
    const size_t starts = meta.size();
    meta.resize(meta.size() + rank, 0);
    meta.push_back(WeightBits(params.extrapolation_value, f64));
    std::vector<plugin::ResizeAxisTaps> taps(rank);
    for (size_t d = 0; d < rank && n_out_ > 0; ++d) {
      taps[d] = plugin::ComputeResizeAxisTaps(params, d, in_shape[d], out_shape[d]);
    }
    int64_t tap_at = static_cast<int64_t>(meta.size());
    for (size_t d = 0; d < rank && n_out_ > 0; ++d) tap_at += 2 * out_shape[d];
    for (size_t d = 0; d < rank && n_out_ > 0; ++d) {
      meta[starts + d] = static_cast<int64_t>(meta.size());
      for (int64_t xo = 0; xo < out_shape[d]; ++xo) {
        meta.push_back(static_cast<int64_t>(taps[d].count(xo)));
        meta.push_back(tap_at);
        tap_at += 2 * static_cast<int64_t>(taps[d].count(xo));
      }
    }
    for (size_t d = 0; d < rank && n_out_ > 0; ++d) {
      for (const plugin::ResizeTap& t : taps[d].taps) {
        meta.push_back(t.index);
        meta.push_back(WeightBits(t.weight, f64));
      }
    }
    meta_ = ctx.Upload(meta);
    const std::string defines =
        SlotDefines('A', dtype) + SlotDefines('Y', node.outputs[0].dtype) + "#define RESIZE 1\n";
    kernel_ = ctx.Kernel("neural", defines, f64, "sy_resize");
  }

  void Enqueue(const EnqueueContext& ctx) override {
    if (n_out_ == 0) return;
    KernelArgs(kernel_.get())
        .Tensor(ctx.inputs[0])
        .Tensor(ctx.outputs[0])
        .Add(static_cast<cl_ulong>(n_out_))
        .Add(static_cast<cl_int>(rank_))
        .Add(meta_.get());
    Launch1D(ctx.queue, kernel_.get(), static_cast<uint64_t>(n_out_));
  }

 private:
  int64_t n_out_ = 0;
  int rank_ = 1;
  UniqueMem meta_;
  UniqueKernel kernel_;
};

bool SupportsResize(const NodeInfo& node, const DeviceCaps& device, std::string& reason) {
  if (!node.inputs.empty() && node.inputs[0].shape.size() > kMaxResizeRank) {
    reason = "resize of rank above 8 is not implemented in the OpenCL plugin";
    return false;
  }
  return SupportsFloatOnly(node, device, reason);
}

bool SupportsGridSample(const NodeInfo& node, const DeviceCaps& device, std::string& reason) {
  if (!node.inputs.empty() && node.inputs[0].shape.size() != 4) {
    reason = "grid_sample of a 5-D x (volumetric) is not implemented in the OpenCL plugin";
    return false;
  }
  return SupportsFloatOnly(node, device, reason);
}

// grid_sample: one work-item per output element (kernels/neural.cl, sy_grid_sample).
class GridSampleOp : public ClOp {
 public:
  void Prepare(PrepareContext& ctx) override {
    const NodeInfo& node = ctx.node();
    const Shape& x = node.inputs[0].shape;
    const Shape& y = node.outputs[0].shape;
    n_out_ = ElementCount(y);
    channels_ = x[1];
    h_ = x[2];
    w_ = x[3];
    plane_out_ = y[2] * y[3];
    const std::string mode = node.attrs.GetString("mode", "bilinear");
    mode_ = mode == "nearest" ? 1 : mode == "bicubic" ? 2 : 0;
    const std::string padding = node.attrs.GetString("padding_mode", "zeros");
    padding_ = padding == "border" ? 1 : padding == "reflection" ? 2 : 0;
    align_ = node.attrs.GetInt("align_corners", 0) != 0 ? 1 : 0;
    const DType dtype = node.inputs[0].dtype;
    const std::string defines = SlotDefines('A', dtype) + SlotDefines('B', node.inputs[1].dtype) +
                                SlotDefines('Y', node.outputs[0].dtype) + "#define GRID_SAMPLE 1\n";
    // Coordinates in double wherever the device has it (kernels/neural.cl, GS_T).
    kernel_ =
        ctx.Kernel("neural", defines, dtype == DType::kF64 || ctx.device().fp64, "sy_grid_sample");
  }

  void Enqueue(const EnqueueContext& ctx) override {
    if (n_out_ == 0) return;
    KernelArgs(kernel_.get())
        .Tensor(ctx.inputs[0])
        .Tensor(ctx.inputs[1])
        .Tensor(ctx.outputs[0])
        .Add(static_cast<cl_ulong>(n_out_))
        .Add(static_cast<cl_long>(channels_))
        .Add(static_cast<cl_long>(h_))
        .Add(static_cast<cl_long>(w_))
        .Add(static_cast<cl_ulong>(plane_out_))
        .Add(static_cast<cl_int>(mode_))
        .Add(static_cast<cl_int>(padding_))
        .Add(static_cast<cl_int>(align_));
    Launch1D(ctx.queue, kernel_.get(), static_cast<uint64_t>(n_out_));
  }

 private:
  int64_t n_out_ = 0, channels_ = 1, h_ = 1, w_ = 1, plane_out_ = 1;
  int mode_ = 0, padding_ = 0, align_ = 0;
  UniqueKernel kernel_;
};

std::unique_ptr<ClOp> CreateAttention(const NodeInfo&) { return std::make_unique<AttentionOp>(); }
std::unique_ptr<ClOp> CreateRotary(const NodeInfo&) { return std::make_unique<RotaryOp>(); }
std::unique_ptr<ClOp> CreateResize(const NodeInfo&) { return std::make_unique<ResizeOp>(); }
std::unique_ptr<ClOp> CreateGridSample(const NodeInfo&) { return std::make_unique<GridSampleOp>(); }

}  // namespace

void RegisterNeuralOps(ClOpRegistry& registry) {
  registry.Add("attention", SupportsFloatOnly, CreateAttention);
  registry.Add("rotary_embedding", SupportsFloatOnly, CreateRotary);
  registry.Add("resize", SupportsResize, CreateResize);
  registry.Add("grid_sample", SupportsGridSample, CreateGridSample);
}

}  // namespace sy::opencl
