// The neural family: attention (kernels/neural.cl, SY_ATTENTION: one work-item per query row, with
// a scratch buffer of rows x Dv accumulators allocated at prepare; the mask may be float, q's dtype
// and additive, or bool), rotary_embedding, resize and grid_sample (kernels/neural.cl: one
// work-item per (row, position) or per output element). Float dtypes. Semantics of the CPU
// reference kernels (plugins/cpu/src/ref/neural_ref.cpp).
#include <algorithm>
#include <cmath>
#include <cstring>
#include <string>
#include <string_view>
#include <vector>

#include "cl_op.h"
#include "kernel_sources.h"

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

// resize's taps along one axis, as plugins/cpu/src/ref/neural_ref.cpp computes them: per
// output coordinate up to four (index, weight) pairs.
struct ResizeAxisMode {
  std::string mode, coord, nearest;
  double cubic_a = -0.75;
  bool exclude_outside = false;
};

struct ResizeTaps {
  int count = 0;
  int64_t index[4] = {0, 0, 0, 0};
  double weight[4] = {0, 0, 0, 0};
  void Add(int64_t i, double w) {
    index[count] = i;
    weight[count] = w;
    ++count;
  }
};

ResizeTaps ResizeTapsAt(const ResizeAxisMode& m, int64_t xo, double scale, int64_t in,
                        int64_t out) {
  auto clamp = [in](double i) -> int64_t {
    if (!(i > 0)) return 0;
    const double last = static_cast<double>(in - 1);
    return i >= last ? in - 1 : static_cast<int64_t>(i);
  };
  ResizeTaps t;
  const double xd = static_cast<double>(xo);
  double ori;
  if (m.coord == "align_corners") {
    const double output_width = scale * static_cast<double>(in);
    ori = output_width == 1 ? 0.0 : xd * static_cast<double>(in - 1) / (output_width - 1);
  } else if (m.coord == "asymmetric") {
    ori = xd / scale;
  } else if (m.coord == "pytorch_half_pixel") {
    ori = out > 1 ? (xd + 0.5) / scale - 0.5 : 0.0;
  } else if (m.coord == "tf_half_pixel_for_nn") {
    ori = (xd + 0.5) / scale;
  } else {
    ori = (xd + 0.5) / scale - 0.5;
  }
  const double lo = std::floor(ori);
  if (lo == ori) {
    t.Add(clamp(ori), 1.0);
    return t;
  }
  const double ratio = ori - lo;
  if (m.mode == "linear") {
    t.Add(clamp(lo), 1.0 - ratio);
    t.Add(clamp(lo + 1), ratio);
    return t;
  }
  if (m.mode == "cubic") {
    const double a = m.cubic_a, r1 = ratio + 1, q = 1 - ratio, q1 = q + 1;
    const double c[4] = {((a * r1 - 5 * a) * r1 + 8 * a) * r1 - 4 * a,
                         ((a + 2) * ratio - (a + 3)) * ratio * ratio + 1,
                         ((a + 2) * q - (a + 3)) * q * q + 1,
                         ((a * q1 - 5 * a) * q1 + 8 * a) * q1 - 4 * a};
    double kept = 0;
    for (int k = 0; k < 4; ++k) {
      const double i = lo - 1 + k;
      if (m.exclude_outside && (i < 0 || i >= static_cast<double>(in))) continue;
      t.Add(clamp(i), c[k]);
      kept += c[k];
    }
    if (m.exclude_outside && kept != 0) {
      for (int k = 0; k < t.count; ++k) t.weight[k] /= kept;
    }
    if (t.count == 0) t.Add(clamp(ori), 1.0);
    return t;
  }
  bool up = false;
  if (m.nearest == "round_prefer_ceil") {
    up = ratio >= 0.5;
  } else if (m.nearest == "floor") {
    up = false;
  } else if (m.nearest == "ceil") {
    up = true;
  } else {
    up = ratio > 0.5;
  }
  t.Add(clamp(up ? lo + 1 : lo), 1.0);
  return t;
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
    ResizeAxisMode m;
    m.mode = node.attrs.GetString("mode", "nearest");
    m.coord = node.attrs.GetString("coordinate_transformation_mode", "half_pixel");
    m.nearest = node.attrs.GetString("nearest_mode", "round_prefer_floor");
    m.cubic_a = node.attrs.GetFloat("cubic_coeff_a", -0.75);
    m.exclude_outside = node.attrs.GetInt("exclude_outside", 0) != 0;
    const bool has_scales = node.attrs.Has("scales");
    const std::vector<double> scales =
        has_scales ? node.attrs.GetFloats("scales") : std::vector<double>{};
    std::vector<int64_t> meta(out_shape.begin(), out_shape.end());
    std::vector<int64_t> strides(rank, 1);
    for (size_t d = rank; d-- > 1;) strides[d - 1] = strides[d] * in_shape[d];
    meta.insert(meta.end(), strides.begin(), strides.end());
    const size_t starts = meta.size();
    meta.resize(meta.size() + rank, 0);
    for (size_t d = 0; d < rank; ++d) {
      meta[starts + d] = static_cast<int64_t>(meta.size());
      const int64_t in = in_shape[d];
      const int64_t out = out_shape[d];
      if (n_out_ == 0) break;
      const double scale =
          has_scales ? scales[d] : static_cast<double>(out) / static_cast<double>(in);
      const bool identity =
          out == in && std::fabs(scale - 1.0) <= 1e-9 * std::max(1.0, std::fabs(scale));
      for (int64_t xo = 0; xo < out; ++xo) {
        ResizeTaps t;
        if (identity) {
          t.Add(xo, 1.0);
        } else {
          t = ResizeTapsAt(m, xo, scale, in, out);
        }
        meta.push_back(t.count);
        for (int k = 0; k < 4; ++k) meta.push_back(t.index[k]);
        for (int k = 0; k < 4; ++k) meta.push_back(WeightBits(t.weight[k], f64));
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
    kernel_ = ctx.Kernel("neural", defines, dtype == DType::kF64, "sy_grid_sample");
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
  registry.Add("grid_sample", SupportsFloatOnly, CreateGridSample);
}

}  // namespace sy::opencl
