// Reference kernels for the normalization ops of the catalogue (spec/ops.md, "Neural
// network"): softmax, log_softmax, layer_norm, rms_norm, batch_norm (inference),
// group_norm and instance_norm (the normalization family).
//
// Every op here is float-only (f32 f16 bf16 f64, x and its parameters share the dtype);
// values are loaded as doubles, reduced in double (two-pass mean and variance) and
// rounded to the storage type once, on store. NaN and infinities propagate the way the
// NumPy formulas of the ONNX definitions do: a softmax row that is all -inf, or holds a
// NaN or +inf, comes out NaN.
#include <cmath>
#include <cstdint>
#include <limits>
#include <vector>

#include "ref/ref_kernels.h"

namespace sy::cpu {

namespace {

// product(shape[begin, end))
int64_t Product(const Shape& shape, int64_t begin, int64_t end) {
  int64_t n = 1;
  for (int64_t d = begin; d < end; ++d) n *= shape[static_cast<size_t>(d)];
  return n;
}

// The axis attribute mapped to [0, rank); shape rules have already checked its range.
int64_t Axis(const KernelContext& ctx, int64_t rank) {
  const int64_t axis = ctx.attrs.GetInt("axis", -1);
  return axis < 0 ? axis + rank : axis;
}

// The maximum of `n` values at `data[offset + k * stride]`, NaN if any is NaN (as
// np.max); -inf for an empty or all -inf row.
double RowMax(DType dtype, const std::byte* data, int64_t offset, int64_t n, int64_t stride) {
  double m = -std::numeric_limits<double>::infinity();
  for (int64_t k = 0; k < n; ++k) {
    const double v = LoadFloat(dtype, data, offset + k * stride);
    if (std::isnan(v)) return v;
    if (v > m) m = v;
  }
  return m;
}

// softmax and log_softmax along `axis`: y = exp(x - max) / sum(exp(x - max)) and
// y = (x - max) - log(sum(exp(x - max))), max subtracted for numerical stability.
Status SoftmaxImpl(const KernelContext& ctx, bool log) {
  const ConstTensorView& x = ctx.inputs[0];
  const TensorView& y = ctx.outputs[0];
  const int64_t axis = Axis(ctx, x.rank());
  const int64_t outer = Product(x.shape(), 0, axis);
  const int64_t n = x.shape()[static_cast<size_t>(axis)];
  const int64_t inner = Product(x.shape(), axis + 1, x.rank());
  for (int64_t o = 0; o < outer; ++o) {
    for (int64_t i = 0; i < inner; ++i) {
      const int64_t base = o * n * inner + i;
      const double m = RowMax(x.dtype(), x.data, base, n, inner);
      double sum = 0;
      for (int64_t k = 0; k < n; ++k) {
        sum += std::exp(LoadFloat(x.dtype(), x.data, base + k * inner) - m);
      }
      const double log_sum = std::log(sum);
      for (int64_t k = 0; k < n; ++k) {
        const double shifted = LoadFloat(x.dtype(), x.data, base + k * inner) - m;
        StoreFloat(y.dtype(), y.data, base + k * inner,
                   log ? shifted - log_sum : std::exp(shifted) / sum);
      }
    }
  }
  return Status::Ok();
}

Status Softmax(const KernelContext& ctx) { return SoftmaxImpl(ctx, /*log=*/false); }
Status LogSoftmax(const KernelContext& ctx) { return SoftmaxImpl(ctx, /*log=*/true); }

// For a parameter that broadcasts (unidirectionally) to `dims`: its element offset for
// each row-major position of `dims`.
std::vector<int64_t> BroadcastOffsets(const Shape& dims, const Shape& param) {
  std::vector<int64_t> offsets(static_cast<size_t>(ElementCount(dims)));
  BroadcastCursor cursor(dims, param);
  for (int64_t& off : offsets) {
    off = cursor.offset();
    cursor.Next();
  }
  return offsets;
}

// layer_norm (x, scale[, bias]) and rms_norm (x, scale): each row of x.shape[axis:] is
// normalised on its own; scale and bias broadcast to those dims.
//   layer_norm: y = (x - mean) / sqrt(mean((x - mean)^2) + epsilon) * scale + bias
//   rms_norm:   y = x / sqrt(mean(x^2) + epsilon) * scale
Status AxisNormImpl(const KernelContext& ctx, bool rms) {
  const ConstTensorView& x = ctx.inputs[0];
  const ConstTensorView& scale = ctx.inputs[1];
  const ConstTensorView* bias = ctx.inputs.size() > 2 ? &ctx.inputs[2] : nullptr;
  const TensorView& y = ctx.outputs[0];
  const DType dt = x.dtype();
  const double eps = ctx.attrs.GetFloat("epsilon", 1e-5);
  const int64_t axis = Axis(ctx, x.rank());
  const Shape normalized(x.shape().begin() + axis, x.shape().end());
  const int64_t outer = Product(x.shape(), 0, axis);
  const int64_t n = ElementCount(normalized);
  const std::vector<int64_t> scale_off = BroadcastOffsets(normalized, scale.shape());
  const std::vector<int64_t> bias_off =
      bias != nullptr ? BroadcastOffsets(normalized, bias->shape()) : std::vector<int64_t>{};
  for (int64_t o = 0; o < outer; ++o) {
    const int64_t base = o * n;
    double mean = 0;
    if (!rms) {
      for (int64_t k = 0; k < n; ++k) mean += LoadFloat(dt, x.data, base + k);
      mean /= static_cast<double>(n);
    }
    double var = 0;  // mean((x - mean)^2), or mean(x^2) for rms_norm (mean stays 0)
    for (int64_t k = 0; k < n; ++k) {
      const double d = LoadFloat(dt, x.data, base + k) - mean;
      var += d * d;
    }
    var /= static_cast<double>(n);
    const double inv = 1.0 / std::sqrt(var + eps);
    for (int64_t k = 0; k < n; ++k) {
      const size_t kk = static_cast<size_t>(k);
      double v = (LoadFloat(dt, x.data, base + k) - mean) * inv *
                 LoadFloat(scale.dtype(), scale.data, scale_off[kk]);
      if (bias != nullptr) v += LoadFloat(bias->dtype(), bias->data, bias_off[kk]);
      StoreFloat(y.dtype(), y.data, base + k, v);
    }
  }
  return Status::Ok();
}

Status LayerNorm(const KernelContext& ctx) { return AxisNormImpl(ctx, /*rms=*/false); }
Status RmsNorm(const KernelContext& ctx) { return AxisNormImpl(ctx, /*rms=*/true); }

// batch_norm (inference) over [N, C, spatial...]: per channel c,
// y = (x - mean[c]) / sqrt(var[c] + epsilon) * scale[c] + bias[c].
Status BatchNorm(const KernelContext& ctx) {
  const ConstTensorView& x = ctx.inputs[0];
  const ConstTensorView& scale = ctx.inputs[1];
  const ConstTensorView& bias = ctx.inputs[2];
  const ConstTensorView& mean = ctx.inputs[3];
  const ConstTensorView& var = ctx.inputs[4];
  const TensorView& y = ctx.outputs[0];
  const double eps = ctx.attrs.GetFloat("epsilon", 1e-5);
  const int64_t batch = x.shape()[0];
  const int64_t channels = x.shape()[1];
  const int64_t spatial = Product(x.shape(), 2, x.rank());
  for (int64_t c = 0; c < channels; ++c) {
    const double m = LoadFloat(mean.dtype(), mean.data, c);
    const double inv = 1.0 / std::sqrt(LoadFloat(var.dtype(), var.data, c) + eps);
    const double s = LoadFloat(scale.dtype(), scale.data, c);
    const double b = LoadFloat(bias.dtype(), bias.data, c);
    for (int64_t n = 0; n < batch; ++n) {
      const int64_t base = (n * channels + c) * spatial;
      for (int64_t k = 0; k < spatial; ++k) {
        StoreFloat(y.dtype(), y.data, base + k,
                   (LoadFloat(x.dtype(), x.data, base + k) - m) * inv * s + b);
      }
    }
  }
  return Status::Ok();
}

// Normalises x [N, C, spatial...] over groups of `channels_per_group` consecutive
// channels and all spatial positions (mean and biased variance per (n, group)), then
// applies the per-channel scale and bias. instance_norm is the case of one channel per
// group; group_norm (opset 21) has C / num_groups channels per group.
Status GroupedNorm(const KernelContext& ctx, int64_t channels_per_group) {
  const ConstTensorView& x = ctx.inputs[0];
  const ConstTensorView& scale = ctx.inputs[1];
  const ConstTensorView& bias = ctx.inputs[2];
  const TensorView& y = ctx.outputs[0];
  const DType dt = x.dtype();
  const double eps = ctx.attrs.GetFloat("epsilon", 1e-5);
  const int64_t batch = x.shape()[0];
  const int64_t channels = x.shape()[1];
  const int64_t spatial = Product(x.shape(), 2, x.rank());
  const int64_t groups = channels / channels_per_group;
  const int64_t group_size = channels_per_group * spatial;
  for (int64_t n = 0; n < batch; ++n) {
    for (int64_t g = 0; g < groups; ++g) {
      // The group's elements are contiguous: channels g*cpg .. (g+1)*cpg - 1 of sample n.
      const int64_t base = (n * channels + g * channels_per_group) * spatial;
      double mean = 0;
      for (int64_t k = 0; k < group_size; ++k) mean += LoadFloat(dt, x.data, base + k);
      mean /= static_cast<double>(group_size);
      double var = 0;
      for (int64_t k = 0; k < group_size; ++k) {
        const double d = LoadFloat(dt, x.data, base + k) - mean;
        var += d * d;
      }
      var /= static_cast<double>(group_size);
      const double inv = 1.0 / std::sqrt(var + eps);
      for (int64_t k = 0; k < group_size; ++k) {
        const int64_t c = g * channels_per_group + k / spatial;
        StoreFloat(y.dtype(), y.data, base + k,
                   (LoadFloat(dt, x.data, base + k) - mean) * inv *
                           LoadFloat(scale.dtype(), scale.data, c) +
                       LoadFloat(bias.dtype(), bias.data, c));
      }
    }
  }
  return Status::Ok();
}

Status GroupNorm(const KernelContext& ctx) {
  const int64_t channels = ctx.inputs[0].shape()[1];
  const int64_t groups = ctx.attrs.GetInt("num_groups", 1);  // >= 1 and divides C (checked)
  // With C = 0 every group is empty; any non-zero group width will do.
  return GroupedNorm(ctx, channels == 0 ? 1 : channels / groups);
}

Status InstanceNorm(const KernelContext& ctx) { return GroupedNorm(ctx, 1); }

}  // namespace

void AddNormalizationRefKernels(KernelTable& table) {
  table.Add("softmax", Softmax);
  table.Add("log_softmax", LogSoftmax);
  table.Add("layer_norm", LayerNorm);
  table.Add("rms_norm", RmsNorm);
  table.Add("batch_norm", BatchNorm);
  table.Add("group_norm", GroupNorm);
  table.Add("instance_norm", InstanceNorm);
}

}  // namespace sy::cpu
