// argmax argmin cumsum topk (floats and integers); group_norm instance_norm
// rotary_embedding resize conv_transpose grid_sample (floats): kernels/misc.cl. Direct
// kernels: one work-item per line along the axis, per (sample, group), per (row, position)
// or per output element. Semantics of the CPU reference kernels (plugins/cpu/src/ref/).
#include <algorithm>
#include <cmath>
#include <cstring>
#include <string>
#include <string_view>
#include <vector>

#include "cl_op.h"
#include "kernel_sources.h"

namespace sy::opencl {

void RegisterMiscOps(ClOpRegistry& registry);  // called by op_registry.cpp

namespace {

// x seen as [outer, n, inner] around `axis` (negative counts from the end).
struct AxisSplit {
  int64_t outer = 1, n = 1, inner = 1;
};

AxisSplit SplitAxis(const Shape& s, int64_t axis) {
  const int64_t rank = static_cast<int64_t>(s.size());
  if (axis < 0) axis += rank;
  AxisSplit v;
  for (int64_t d = 0; d < rank; ++d) {
    const int64_t dim = s[static_cast<size_t>(d)];
    if (d < axis) {
      v.outer *= dim;
    } else if (d == axis) {
      v.n = dim;
    } else {
      v.inner *= dim;
    }
  }
  return v;
}

class ArgOp : public ClOp {
 public:
  void Prepare(PrepareContext& ctx) override {
    const NodeInfo& node = ctx.node();
    v_ = SplitAxis(node.inputs[0].shape, node.attrs.GetInt("axis", 0));
    last_ = node.attrs.GetInt("select_last_index", 0) == 1 ? 1 : 0;
    const DType dtype = node.inputs[0].dtype;
    const std::string defines =
        SlotDefines('A', dtype) + "#define ARG_OP " + (node.op == "argmax" ? "1" : "0") + "\n";
    kernel_ = ctx.Kernel("misc", defines, dtype == DType::kF64, "sy_arg");
  }

  void Enqueue(const EnqueueContext& ctx) override {
    const uint64_t lines = static_cast<uint64_t>(v_.outer * v_.inner);
    if (lines == 0 || v_.n == 0 || ctx.outputs[0].count() == 0) return;
    KernelArgs(kernel_.get())
        .Tensor(ctx.inputs[0])
        .Tensor(ctx.outputs[0])
        .Add(static_cast<cl_ulong>(v_.outer))
        .Add(static_cast<cl_ulong>(v_.n))
        .Add(static_cast<cl_ulong>(v_.inner))
        .Add(static_cast<cl_int>(last_));
    Launch1D(ctx.queue, kernel_.get(), lines);
  }

 private:
  AxisSplit v_;
  int last_ = 0;
  UniqueKernel kernel_;
};

class CumsumOp : public ClOp {
 public:
  void Prepare(PrepareContext& ctx) override {
    const NodeInfo& node = ctx.node();
    v_ = SplitAxis(node.inputs[0].shape, node.attrs.GetInt("axis", 0));
    exclusive_ = node.attrs.GetInt("exclusive", 0) == 1 ? 1 : 0;
    reverse_ = node.attrs.GetInt("reverse", 0) == 1 ? 1 : 0;
    const DType dtype = node.inputs[0].dtype;
    const std::string defines =
        SlotDefines('A', dtype) + SlotDefines('Y', node.outputs[0].dtype) + "#define CUMSUM 1\n";
    kernel_ = ctx.Kernel("misc", defines, dtype == DType::kF64, "sy_cumsum");
  }

  void Enqueue(const EnqueueContext& ctx) override {
    const uint64_t lines = static_cast<uint64_t>(v_.outer * v_.inner);
    if (lines == 0 || v_.n == 0) return;
    KernelArgs(kernel_.get())
        .Tensor(ctx.inputs[0])
        .Tensor(ctx.outputs[0])
        .Add(static_cast<cl_ulong>(v_.outer))
        .Add(static_cast<cl_ulong>(v_.n))
        .Add(static_cast<cl_ulong>(v_.inner))
        .Add(static_cast<cl_int>(exclusive_))
        .Add(static_cast<cl_int>(reverse_));
    Launch1D(ctx.queue, kernel_.get(), lines);
  }

 private:
  AxisSplit v_;
  int exclusive_ = 0, reverse_ = 0;
  UniqueKernel kernel_;
};

class TopkOp : public ClOp {
 public:
  void Prepare(PrepareContext& ctx) override {
    const NodeInfo& node = ctx.node();
    const Shape& s = node.inputs[0].shape;
    int64_t axis = node.attrs.GetInt("axis", -1);
    if (axis < 0) axis += static_cast<int64_t>(s.size());
    v_ = SplitAxis(s, axis);
    k_ = node.outputs[0].shape[static_cast<size_t>(axis)];
    largest_ = node.attrs.GetInt("largest", 1) == 1 ? 1 : 0;
    const DType dtype = node.inputs[0].dtype;
    const std::string defines = SlotDefines('A', dtype) + "#define TOPK 1\n";
    kernel_ = ctx.Kernel("misc", defines, dtype == DType::kF64, "sy_topk");
  }

  void Enqueue(const EnqueueContext& ctx) override {
    const uint64_t lines = static_cast<uint64_t>(v_.outer * v_.inner);
    if (lines == 0 || v_.n == 0 || k_ == 0) return;
    KernelArgs(kernel_.get())
        .Tensor(ctx.inputs[0])
        .Tensor(ctx.outputs[0])
        .Tensor(ctx.outputs[1])
        .Add(static_cast<cl_ulong>(v_.outer))
        .Add(static_cast<cl_ulong>(v_.n))
        .Add(static_cast<cl_ulong>(v_.inner))
        .Add(static_cast<cl_ulong>(k_))
        .Add(static_cast<cl_int>(largest_));
    Launch1D(ctx.queue, kernel_.get(), lines);
  }

 private:
  AxisSplit v_;
  int64_t k_ = 0;
  int largest_ = 1;
  UniqueKernel kernel_;
};

class GroupNormOp : public ClOp {
 public:
  void Prepare(PrepareContext& ctx) override {
    const NodeInfo& node = ctx.node();
    const Shape& s = node.inputs[0].shape;
    const int64_t batch = s.empty() ? 1 : s[0];
    const int64_t channels = s.size() > 1 ? s[1] : 1;
    spatial_ = 1;
    for (size_t d = 2; d < s.size(); ++d) spatial_ *= s[d];
    groups_ = channels;
    if (node.op == "group_norm") groups_ = node.attrs.GetInt("num_groups", 1);
    cpg_ = (channels == 0 || groups_ == 0) ? 1 : channels / groups_;
    rows_ = batch * groups_;
    eps_ = node.attrs.GetFloat("epsilon", 1e-5);
    dtype_ = node.inputs[0].dtype;
    const std::string defines = SlotDefines('A', dtype_) + SlotDefines('B', node.inputs[1].dtype) +
                                SlotDefines('C', node.inputs[2].dtype) +
                                SlotDefines('Y', node.outputs[0].dtype) + "#define GROUP_NORM 1\n";
    kernel_ = ctx.Kernel("misc", defines, dtype_ == DType::kF64, "sy_group_norm");
  }

  void Enqueue(const EnqueueContext& ctx) override {
    if (rows_ == 0 || cpg_ * spatial_ == 0 || ctx.outputs[0].count() == 0) return;
    KernelArgs(kernel_.get())
        .Tensor(ctx.inputs[0])
        .Tensor(ctx.inputs[1])
        .Tensor(ctx.inputs[2])
        .Tensor(ctx.outputs[0])
        .Add(static_cast<cl_ulong>(rows_))
        .Add(static_cast<cl_ulong>(groups_))
        .Add(static_cast<cl_ulong>(cpg_))
        .Add(static_cast<cl_ulong>(spatial_))
        .Scalar(dtype_, eps_);
    Launch1D(ctx.queue, kernel_.get(), static_cast<uint64_t>(rows_));
  }

 private:
  int64_t rows_ = 0, groups_ = 1, cpg_ = 1, spatial_ = 1;
  double eps_ = 1e-5;
  DType dtype_ = DType::kF32;
  UniqueKernel kernel_;
};

bool SupportsAny(const NodeInfo& node, const DeviceCaps& device, std::string& reason) {
  return DTypesUsable(node.inputs, device, reason);
}

bool SupportsFloat(const NodeInfo& node, const DeviceCaps& device, std::string& reason) {
  if (!node.inputs.empty() && !IsFloat(node.inputs[0].dtype)) {
    reason = node.op + " takes float dtypes only";
    return false;
  }
  return DTypesUsable(node.inputs, device, reason);
}

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
    kernel_ = ctx.Kernel("misc", defines, dtype == DType::kF64, "sy_rotary");
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
    kernel_ = ctx.Kernel("misc", defines, f64, "sy_resize");
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
  return SupportsFloat(node, device, reason);
}

std::vector<int64_t> IntsOr(const Attrs& attrs, std::string_view name, size_t size, int64_t fill) {
  if (!attrs.Has(name)) return std::vector<int64_t>(size, fill);
  std::vector<int64_t> values = attrs.GetInts(name);
  values.resize(size, fill);
  return values;
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
    kernel_ = ctx.Kernel("misc", defines, dtype == DType::kF64, "sy_conv_transpose");
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
  return SupportsFloat(node, device, reason);
}

// grid_sample: one work-item per output element (kernels/misc.cl, sy_grid_sample).
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
    kernel_ = ctx.Kernel("misc", defines, dtype == DType::kF64, "sy_grid_sample");
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

std::unique_ptr<ClOp> CreateArg(const NodeInfo&) { return std::make_unique<ArgOp>(); }
std::unique_ptr<ClOp> CreateCumsum(const NodeInfo&) { return std::make_unique<CumsumOp>(); }
std::unique_ptr<ClOp> CreateTopk(const NodeInfo&) { return std::make_unique<TopkOp>(); }
std::unique_ptr<ClOp> CreateGroupNorm(const NodeInfo&) { return std::make_unique<GroupNormOp>(); }
std::unique_ptr<ClOp> CreateRotary(const NodeInfo&) { return std::make_unique<RotaryOp>(); }
std::unique_ptr<ClOp> CreateResize(const NodeInfo&) { return std::make_unique<ResizeOp>(); }
std::unique_ptr<ClOp> CreateConvTranspose(const NodeInfo&) {
  return std::make_unique<ConvTransposeOp>();
}
std::unique_ptr<ClOp> CreateGridSample(const NodeInfo&) { return std::make_unique<GridSampleOp>(); }

}  // namespace

void RegisterMiscOps(ClOpRegistry& registry) {
  registry.Add("argmax", SupportsAny, CreateArg);
  registry.Add("argmin", SupportsAny, CreateArg);
  registry.Add("cumsum", SupportsAny, CreateCumsum);
  registry.Add("topk", SupportsAny, CreateTopk);
  registry.Add("group_norm", SupportsFloat, CreateGroupNorm);
  registry.Add("instance_norm", SupportsFloat, CreateGroupNorm);
  registry.Add("rotary_embedding", SupportsFloat, CreateRotary);
  registry.Add("resize", SupportsResize, CreateResize);
  registry.Add("conv_transpose", SupportsConvTranspose, CreateConvTranspose);
  registry.Add("grid_sample", SupportsFloat, CreateGridSample);
}

}  // namespace sy::opencl
