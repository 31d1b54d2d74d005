// Fast softmax and log_softmax (f32, any axis), layer_norm and rms_norm (f32, scale and
// bias either of the normalised shape or a single element), add_layer_norm (the same,
// with b of a's shape, of the normalised shape or a single element), batch_norm (f32,
// bitwise the reference's) and group_norm and instance_norm (f32, per-channel scale and
// bias), split over the context's threads by rows (channels, groups). Everything else goes to the
// reference kernel.
//
// Semantics are the reference kernels' (ref/normalization_ref.cpp): the row maximum is
// subtracted before exp; a row holding NaN or +inf, or all -inf, comes out NaN (here
// through the sum: exp(NaN - max) and exp(inf - inf) are NaN). Sums, means and variances
// accumulate in double (two-pass variance, as the reference), so only the f32 exp and
// the final roundings differ from it.
#include <algorithm>
#include <cmath>
#include <limits>
#include <memory>
#include <span>
#include <vector>

#include "fast/fast_kernels.h"
#include "fast/joined_layout.h"
#include "fast/vec_math.h"
#include "ref/ref_kernels.h"
#include "thread_pool.h"

namespace sy::cpu {
namespace {

Status Reference(const KernelContext& ctx) { return RefKernels().Find(ctx.op)(ctx); }

int64_t Product(const Shape& shape, int64_t begin, int64_t end) {
  int64_t n = 1;
  for (int64_t d = begin; d < end; ++d) n *= shape[static_cast<size_t>(d)];
  return n;
}

int64_t Axis(const KernelContext& ctx, int64_t rank) {
  const int64_t axis = ctx.attrs.GetInt("axis", -1);
  return axis < 0 ? axis + rank : axis;
}

// ---- softmax, log_softmax --------------------------------------------------------------

// The largest non-NaN value of a row (NaN is left to propagate through exp and the sum).
SY_CPU_ISA_CLONES float MaxIgnoringNaN(const float* x, int64_t n) {
  constexpr int kLanes = 8;
  float m[kLanes];
  std::fill(m, m + kLanes, -std::numeric_limits<float>::infinity());
  int64_t i = 0;
  for (; i + kLanes <= n; i += kLanes) {
    for (int j = 0; j < kLanes; ++j) m[j] = x[i + j] > m[j] ? x[i + j] : m[j];
  }
  for (; i < n; ++i) m[0] = x[i] > m[0] ? x[i] : m[0];
  return *std::max_element(m, m + kLanes);
}

// One contiguous row (the softmax axis is the last, or every later dim has size 1).
template <bool kLog>
SY_CPU_ISA_CLONES void SoftmaxRow(const float* x, float* y, int64_t n) {
  const float m = MaxIgnoringNaN(x, n);
  for (int64_t i = 0; i < n; ++i) y[i] = fast::Exp(x[i] - m);
  double acc[fast::kSumLanes] = {};
  int64_t i = 0;
  for (; i + fast::kSumLanes <= n; i += fast::kSumLanes) {
    for (int j = 0; j < fast::kSumLanes; ++j) acc[j] += static_cast<double>(y[i + j]);
  }
  for (; i < n; ++i) acc[0] += static_cast<double>(y[i]);
  const double sum = fast::CombineSums(acc);
  if constexpr (kLog) {
    const float log_sum = static_cast<float>(std::log(sum));
    for (int64_t k = 0; k < n; ++k) y[k] = (x[k] - m) - log_sum;
  } else {
    const float inv = static_cast<float>(1.0 / sum);
    for (int64_t k = 0; k < n; ++k) y[k] *= inv;
  }
}

// Columns [c0, c0 + w) of one [n, inner] slab: the softmax axis has stride `inner`. The
// inner loops run along contiguous columns, so they vectorise like the row case.
constexpr int64_t kTile = 64;
template <bool kLog>
SY_CPU_ISA_CLONES void SoftmaxColumns(const float* x, float* y, int64_t n, int64_t inner,
                                      int64_t c0, int64_t w) {
  float m[kTile];
  double sum[kTile];
  std::fill(m, m + w, -std::numeric_limits<float>::infinity());
  std::fill(sum, sum + w, 0.0);
  for (int64_t k = 0; k < n; ++k) {
    const float* xr = x + k * inner + c0;
    for (int64_t j = 0; j < w; ++j) m[j] = xr[j] > m[j] ? xr[j] : m[j];
  }
  for (int64_t k = 0; k < n; ++k) {
    const float* xr = x + k * inner + c0;
    float* yr = y + k * inner + c0;
    for (int64_t j = 0; j < w; ++j) {
      yr[j] = fast::Exp(xr[j] - m[j]);
      sum[j] += static_cast<double>(yr[j]);
    }
  }
  float scale[kTile];
  for (int64_t j = 0; j < w; ++j) {
    scale[j] = static_cast<float>(kLog ? std::log(sum[j]) : 1.0 / sum[j]);
  }
  for (int64_t k = 0; k < n; ++k) {
    const float* xr = x + k * inner + c0;
    float* yr = y + k * inner + c0;
    for (int64_t j = 0; j < w; ++j) {
      yr[j] = kLog ? (xr[j] - m[j]) - scale[j] : yr[j] * scale[j];
    }
  }
}

template <bool kLog>
Status Softmax(const KernelContext& ctx) {
  const ConstTensorView& x = ctx.inputs[0];
  const TensorView& y = ctx.outputs[0];
  if (x.dtype() != DType::kF32 || !fast::IsF32Aligned(x.data) || !fast::IsF32Aligned(y.data)) {
    return Reference(ctx);
  }
  if (y.count() == 0) return Status::Ok();
  const int64_t axis = Axis(ctx, x.rank());
  const int64_t outer = Product(x.shape(), 0, axis);
  const int64_t n = x.shape()[static_cast<size_t>(axis)];
  const int64_t inner = Product(x.shape(), axis + 1, x.rank());
  const float* in = reinterpret_cast<const float*>(x.data);
  float* out = reinterpret_cast<float*>(y.data);
  if (inner == 1) {
    ParallelFor(ctx.pool, outer, fast::RowGrain(fast::kCostlyGrain, n),
                [in, out, n](int64_t begin, int64_t end) {
                  for (int64_t r = begin; r < end; ++r)
                    SoftmaxRow<kLog>(in + r * n, out + r * n, n);
                });
    return Status::Ok();
  }
  // Work items: (outer index, tile of kTile columns).
  const int64_t tiles = (inner + kTile - 1) / kTile;
  ParallelFor(ctx.pool, outer * tiles, fast::RowGrain(fast::kCostlyGrain, n * kTile),
              [in, out, n, inner, tiles](int64_t begin, int64_t end) {
                for (int64_t item = begin; item < end; ++item) {
                  const int64_t o = item / tiles;
                  const int64_t c0 = (item % tiles) * kTile;
                  SoftmaxColumns<kLog>(in + o * n * inner, out + o * n * inner, n, inner, c0,
                                       std::min(kTile, inner - c0));
                }
              });
  return Status::Ok();
}

// ---- layer_norm, rms_norm ------------------------------------------------------------

// The mean of a row, summed in double.
SY_CPU_ISA_CLONES double RowMean(const float* x, int64_t n) {
  double acc[fast::kSumLanes] = {};
  int64_t i = 0;
  for (; i + fast::kSumLanes <= n; i += fast::kSumLanes) {
    for (int j = 0; j < fast::kSumLanes; ++j) acc[j] += static_cast<double>(x[i + j]);
  }
  for (; i < n; ++i) acc[0] += static_cast<double>(x[i]);
  return fast::CombineSums(acc) / static_cast<double>(n);
}

// The biased variance of a row about `mean` (its mean; 0 for rms_norm's mean square),
// summed in double over vector lanes.
SY_CPU_ISA_CLONES double RowVariance(const float* x, int64_t n, double mean) {
  double acc[fast::kSumLanes] = {};
  int64_t i = 0;
  for (; i + fast::kSumLanes <= n; i += fast::kSumLanes) {
    for (int j = 0; j < fast::kSumLanes; ++j) {
      const double d = static_cast<double>(x[i + j]) - mean;
      acc[j] += d * d;
    }
  }
  for (; i < n; ++i) {
    const double d = static_cast<double>(x[i]) - mean;
    acc[0] += d * d;
  }
  return fast::CombineSums(acc) / static_cast<double>(n);
}

// y = (x - mean) / sqrt(mean((x - mean)^2) + eps) * scale + bias over one row, given its
// mean (0 for rms_norm). y may be x itself (add_layer_norm normalises its sum in place).
SY_CPU_ISA_CLONES void NormalizeRow(const float* x, float* y, int64_t n, double mean,
                                    const float* scale, bool scale_scalar, const float* bias,
                                    bool bias_scalar, double eps) {
  const double inv = 1.0 / std::sqrt(RowVariance(x, n, mean) + eps);
  // (x - mean) * inv in double: mean can be large next to the spread, and rounding it to
  // f32 first would cost the result its precision.
  const float s0 = scale[0];
  const float b0 = bias != nullptr ? bias[0] : 0.0f;
  for (int64_t k = 0; k < n; ++k) {
    const float s = scale_scalar ? s0 : scale[k];
    const float b = bias == nullptr ? 0.0f : (bias_scalar ? b0 : bias[k]);
    y[k] = static_cast<float>((static_cast<double>(x[k]) - mean) * inv * s + b);
  }
}

template <bool kRms>
void NormRow(const float* x, float* y, int64_t n, const float* scale, bool scale_scalar,
             const float* bias, bool bias_scalar, double eps) {
  const double mean = kRms ? 0.0 : RowMean(x, n);
  NormalizeRow(x, y, n, mean, scale, scale_scalar, bias, bias_scalar, eps);
}

template <bool kRms>
Status AxisNorm(const KernelContext& ctx) {
  const ConstTensorView& x = ctx.inputs[0];
  const ConstTensorView& scale = ctx.inputs[1];
  const ConstTensorView* bias = ctx.inputs.size() > 2 ? &ctx.inputs[2] : nullptr;
  const TensorView& y = ctx.outputs[0];
  if (x.dtype() != DType::kF32) return Reference(ctx);
  const int64_t axis = Axis(ctx, x.rank());
  const int64_t outer = Product(x.shape(), 0, axis);
  const int64_t n = Product(x.shape(), axis, x.rank());
  // scale and bias broadcast to the normalised dims; a count of n means the same shape.
  auto fits = [n](const ConstTensorView* p) {
    return p == nullptr || ((p->count() == n || p->count() == 1) && fast::IsF32Aligned(p->data));
  };
  if (n == 0 || !fits(&scale) || !fits(bias) || !fast::IsF32Aligned(x.data) ||
      !fast::IsF32Aligned(y.data)) {
    return Reference(ctx);
  }
  const float* in = reinterpret_cast<const float*>(x.data);
  float* out = reinterpret_cast<float*>(y.data);
  const float* s = reinterpret_cast<const float*>(scale.data);
  const bool s_scalar = scale.count() == 1;
  const float* b = bias != nullptr ? reinterpret_cast<const float*>(bias->data) : nullptr;
  const bool b_scalar = bias != nullptr && bias->count() == 1;
  const double eps = ctx.attrs.GetFloat("epsilon", 1e-5);
  ParallelFor(ctx.pool, outer, fast::RowGrain(fast::kCheapGrain, n),
              [=](int64_t begin, int64_t end) {
                for (int64_t r = begin; r < end; ++r) {
                  NormRow<kRms>(in + r * n, out + r * n, n, s, s_scalar, b, b_scalar, eps);
                }
              });
  return Status::Ok();
}

// ---- batch_norm (inference) ---------------------------------------------------------------

// y = (x - mean) * inv * scale + bias over one channel's row, in double, rounded once: the
// reference's expression, so its result bit for bit.
SY_CPU_ISA_CLONES void AffineRow(const float* x, float* y, int64_t n, double mean, double inv,
                                 double scale, double bias) {
  for (int64_t k = 0; k < n; ++k) {
    y[k] = static_cast<float>((static_cast<double>(x[k]) - mean) * inv * scale + bias);
  }
}

// batch_norm of f32 x [N, C, spatial...] with f32 statistics: the channels' rows split
// over the threads. DenseNet's pre-activation norms (after each concat, where no conv
// precedes them to fold into) ran on the reference kernel, a dtype switch per element.
Status BatchNorm(const KernelContext& ctx) {
  const ConstTensorView& x = ctx.inputs[0];
  const TensorView& y = ctx.outputs[0];
  bool f32 = x.dtype() == DType::kF32 && y.dtype() == DType::kF32 && x.rank() >= 2 &&
             fast::IsF32Aligned(x.data) && fast::IsF32Aligned(y.data);
  for (size_t i = 1; i < 5 && f32; ++i) {
    f32 = ctx.inputs[i].dtype() == DType::kF32 && fast::IsF32Aligned(ctx.inputs[i].data);
  }
  if (!f32) return Reference(ctx);
  const int64_t channels = x.shape()[1];
  const int64_t rows = x.shape()[0] * channels;
  const int64_t spatial = Product(x.shape(), 2, x.rank());
  if (rows == 0 || spatial == 0) return Status::Ok();
  const auto param = [&ctx](size_t i) {
    return reinterpret_cast<const float*>(ctx.inputs[i].data);
  };
  const float *scale = param(1), *bias = param(2), *mean = param(3), *var = param(4);
  const double eps = ctx.attrs.GetFloat("epsilon", 1e-5);
  const float* in = reinterpret_cast<const float*>(x.data);
  float* out = reinterpret_cast<float*>(y.data);
  ParallelFor(
      ctx.pool, rows, fast::RowGrain(fast::kCheapGrain, spatial), [=](int64_t begin, int64_t end) {
        for (int64_t r = begin; r < end; ++r) {
          const int64_t c = r % channels;
          const double inv = 1.0 / std::sqrt(static_cast<double>(var[c]) + eps);
          AffineRow(in + r * spatial, out + r * spatial, spatial, mean[c], inv, scale[c], bias[c]);
        }
      });
  return Status::Ok();
}

// One channels-last pixel (all C channels): the same expression per channel as AffineRow,
// with the per-channel terms in arrays (inv precomputed per channel, in double).
SY_CPU_ISA_CLONES void AffinePixel(const float* x, float* y, int64_t channels, const double* mean,
                                   const double* inv, const double* scale, const double* bias) {
  for (int64_t c = 0; c < channels; ++c) {
    y[c] = static_cast<float>((static_cast<double>(x[c]) - mean[c]) * inv[c] * scale[c] + bias[c]);
  }
}

// batch_norm as a prepared kernel that also takes x and y channels-last, both alike
// (JoinedLayoutKernel: a DenseNet layer's concat -> batch_norm -> relu -> conv then stays in
// that layout); row-major runs the plain kernel above. The statistics are inputs (constants in
// practice), read per run.
class BatchNormAnyLayout final : public JoinedLayoutKernel {
 public:
  static std::unique_ptr<PreparedKernel> Prepare(const PrepareContext& ctx) {
    if (ctx.inputs.size() != 5 || ctx.inputs[0].shape.size() < 3 ||
        ctx.inputs[0].shape.size() > 5) {
      return nullptr;
    }
    for (const TensorType& t : ctx.inputs) {
      if (t.dtype != DType::kF32) return nullptr;
    }
    return std::make_unique<BatchNormAnyLayout>();
  }
  bool AcceptsChannelsLastInput(size_t index) const override { return index == 0; }
  std::unique_ptr<PreparedKernel> Resized(const PrepareContext& ctx) const override {
    return KeepLayout(Prepare(ctx));
  }

  Status Run(const KernelContext& ctx) override {
    if (!channels_last_) return BatchNorm(ctx);
    const ConstTensorView& x = ctx.inputs[0];
    const int64_t batch = x.shape()[0], channels = x.shape()[1];
    const int64_t spatial = Product(x.shape(), 2, x.rank());
    const double eps = ctx.attrs.GetFloat("epsilon", 1e-5);
    const auto param = [&ctx](size_t i) {
      return reinterpret_cast<const float*>(ctx.inputs[i].data);
    };
    std::vector<double> mean(static_cast<size_t>(channels)), inv(mean.size()), scale(mean.size()),
        bias(mean.size());
    for (int64_t c = 0; c < channels; ++c) {
      const auto k = static_cast<size_t>(c);
      mean[k] = param(3)[c];
      inv[k] = 1.0 / std::sqrt(static_cast<double>(param(4)[c]) + eps);
      scale[k] = param(1)[c];
      bias[k] = param(2)[c];
    }
    const float* in = reinterpret_cast<const float*>(x.data);
    float* out = reinterpret_cast<float*>(ctx.outputs[0].data);
    ParallelFor(ctx.pool, batch * spatial, fast::RowGrain(fast::kCheapGrain, channels),
                [&](int64_t p0, int64_t p1) {
                  for (int64_t p = p0; p < p1; ++p) {
                    AffinePixel(in + p * channels, out + p * channels, channels, mean.data(),
                                inv.data(), scale.data(), bias.data());
                  }
                });
    return Status::Ok();
  }
};

// ---- group_norm, instance_norm ---------------------------------------------------------

// One (sample, group) of x [N, C, spatial...]: its `channels` channels of `spatial`
// elements each are contiguous. Normalised by the group's mean and biased variance (both
// in double, two passes, as the reference), then each channel's scale and bias applied
// in double: ((x - mean) * inv * scale + bias) rounded once, the reference's expression.
SY_CPU_ISA_CLONES void NormalizeGroup(const float* x, float* y, int64_t channels, int64_t spatial,
                                      const float* scale, const float* bias, double eps) {
  const int64_t n = channels * spatial;
  const double mean = RowMean(x, n);
  const double inv = 1.0 / std::sqrt(RowVariance(x, n, mean) + eps);
  for (int64_t c = 0; c < channels; ++c) {
    const double s = scale[c], b = bias[c];
    const float* from = x + c * spatial;
    float* to = y + c * spatial;
    for (int64_t k = 0; k < spatial; ++k) {
      to[k] = static_cast<float>((static_cast<double>(from[k]) - mean) * inv * s + b);
    }
  }
}

// group_norm (num_groups) and instance_norm (one channel a group) of f32 x with f32
// per-channel scale and bias; other dtypes go to the reference.
template <bool kInstance>
Status GroupedNorm(const KernelContext& ctx) {
  const ConstTensorView& x = ctx.inputs[0];
  const ConstTensorView& scale = ctx.inputs[1];
  const ConstTensorView& bias = ctx.inputs[2];
  const TensorView& y = ctx.outputs[0];
  if (x.dtype() != DType::kF32 || scale.dtype() != DType::kF32 || bias.dtype() != DType::kF32 ||
      x.rank() < 2 || x.count() == 0 || !fast::IsF32Aligned(x.data) ||
      !fast::IsF32Aligned(y.data) || !fast::IsF32Aligned(scale.data) ||
      !fast::IsF32Aligned(bias.data)) {
    return Reference(ctx);
  }
  const int64_t batch = x.shape()[0], channels = x.shape()[1];
  const int64_t groups = kInstance ? channels : ctx.attrs.GetInt("num_groups", 1);
  const int64_t per_group = channels / groups;  // validation: groups divides C
  const int64_t spatial = Product(x.shape(), 2, x.rank());
  const float* in = reinterpret_cast<const float*>(x.data);
  float* out = reinterpret_cast<float*>(y.data);
  const float* s = reinterpret_cast<const float*>(scale.data);
  const float* b = reinterpret_cast<const float*>(bias.data);
  const double eps = ctx.attrs.GetFloat("epsilon", 1e-5);
  const int64_t group_size = per_group * spatial;
  ParallelFor(ctx.pool, batch * groups, fast::RowGrain(fast::kCheapGrain, group_size),
              [=](int64_t begin, int64_t end) {
                for (int64_t r = begin; r < end; ++r) {
                  const int64_t first_channel = (r % groups) * per_group;
                  NormalizeGroup(in + r * group_size, out + r * group_size, per_group, spatial,
                                 s + first_channel, b + first_channel, eps);
                }
              });
  return Status::Ok();
}

// ---- add_layer_norm ------------------------------------------------------------------

// How b reaches a's elements in the cases taken here: b is a single element; or b's shape
// (right-aligned to a's) equals a's from some dim k <= axis on and is 1 before it, so that
// row r of a (rows being the normalised slices) adds row r % period of b, period = the
// product of a's dims [k, axis): b has a's shape (period = every row), one row that every
// row adds (period 1), or a block of rows that repeats (BERT's position embeddings
// [1, S, H] added to [B, S, H]). Any other broadcast goes to the reference.
struct Addend {
  enum Kind { kRows, kScalar, kOther } kind = kOther;
  int64_t period = 1;
};

Addend AddendOf(const Shape& a, const Shape& b, int64_t axis) {
  if (ElementCount(b) == 1) return {Addend::kScalar};
  if (b.size() > a.size()) return {};  // never after validation
  const size_t lead = a.size() - b.size();
  auto b_dim = [&](size_t d) { return d < lead ? int64_t{1} : b[d - lead]; };
  size_t k = a.size();  // the first dim from which b matches a to the end
  while (k > 0 && b_dim(k - 1) == a[k - 1]) --k;
  if (static_cast<int64_t>(k) > axis) return {};  // b broadcasts inside the normalised dims
  for (size_t d = 0; d < k; ++d) {
    if (b_dim(d) != 1) return {};
  }
  return {Addend::kRows, Product(a, static_cast<int64_t>(k), axis)};
}

// s = a + b over one row (b[0] for every element when kScalarB), rounded to f32 as the
// add op would, and the mean of s in double; one pass over memory. s may be the y row.
template <bool kScalarB>
SY_CPU_ISA_CLONES double AddRow(const float* a, const float* b, float* s, int64_t n) {
  const float b0 = b[0];
  double acc[fast::kSumLanes] = {};
  int64_t i = 0;
  for (; i + fast::kSumLanes <= n; i += fast::kSumLanes) {
    for (int j = 0; j < fast::kSumLanes; ++j) {
      const float v = a[i + j] + (kScalarB ? b0 : b[i + j]);
      s[i + j] = v;
      acc[j] += static_cast<double>(v);
    }
  }
  for (; i < n; ++i) {
    const float v = a[i] + (kScalarB ? b0 : b[i]);
    s[i] = v;
    acc[0] += static_cast<double>(v);
  }
  return fast::CombineSums(acc) / static_cast<double>(n);
}

// add_layer_norm (f32): per row, the sum a + b is written (to the second output when the
// node has one, else into the y row, which is then normalised in place) while its mean
// accumulates; then the variance and the normalisation as layer_norm's. y is layer_norm
// of the f32 sum, exactly as the reference defines it.
Status AddLayerNorm(const KernelContext& ctx) {
  const ConstTensorView& a = ctx.inputs[0];
  const ConstTensorView& b = ctx.inputs[1];
  const ConstTensorView& scale = ctx.inputs[2];
  const ConstTensorView* bias = ctx.inputs.size() > 3 ? &ctx.inputs[3] : nullptr;
  const TensorView& y = ctx.outputs[0];
  const TensorView* sum = ctx.outputs.size() > 1 ? &ctx.outputs[1] : nullptr;
  if (a.dtype() != DType::kF32) return AddLayerNormRef(ctx);
  const int64_t axis = Axis(ctx, a.rank());
  const int64_t outer = Product(a.shape(), 0, axis);
  const int64_t n = Product(a.shape(), axis, a.rank());
  const Addend addend = AddendOf(a.shape(), b.shape(), axis);
  auto fits = [n](const ConstTensorView* p) {
    return p == nullptr || ((p->count() == n || p->count() == 1) && fast::IsF32Aligned(p->data));
  };
  if (n == 0 || addend.kind == Addend::kOther || !fits(&scale) || !fits(bias) ||
      !fast::IsF32Aligned(a.data) || !fast::IsF32Aligned(b.data) || !fast::IsF32Aligned(y.data) ||
      (sum != nullptr && !fast::IsF32Aligned(sum->data))) {
    return AddLayerNormRef(ctx);
  }
  const float* in_a = reinterpret_cast<const float*>(a.data);
  const float* in_b = reinterpret_cast<const float*>(b.data);
  float* out_y = reinterpret_cast<float*>(y.data);
  float* out_sum = sum != nullptr ? reinterpret_cast<float*>(sum->data) : nullptr;
  const float* s = reinterpret_cast<const float*>(scale.data);
  const bool s_scalar = scale.count() == 1;
  const float* bb = bias != nullptr ? reinterpret_cast<const float*>(bias->data) : nullptr;
  const bool bb_scalar = bias != nullptr && bias->count() == 1;
  const double eps = ctx.attrs.GetFloat("epsilon", 1e-5);
  ParallelFor(
      ctx.pool, outer, fast::RowGrain(fast::kCheapGrain, n), [=](int64_t begin, int64_t end) {
        for (int64_t r = begin; r < end; ++r) {
          const float* ar = in_a + r * n;
          const float* br = addend.kind == Addend::kRows ? in_b + (r % addend.period) * n : in_b;
          float* yr = out_y + r * n;
          float* sr = out_sum != nullptr ? out_sum + r * n : yr;
          const double mean = addend.kind == Addend::kScalar ? AddRow<true>(ar, br, sr, n)
                                                             : AddRow<false>(ar, br, sr, n);
          NormalizeRow(sr, yr, n, mean, s, s_scalar, bb, bb_scalar, eps);
        }
      });
  return Status::Ok();
}

}  // namespace

void AddNormalizationFastKernels(KernelTable& table) {
  table.Add("softmax", Softmax<false>);
  table.Add("log_softmax", Softmax<true>);
  table.Add("layer_norm", AxisNorm<false>);
  table.Add("rms_norm", AxisNorm<true>);
  table.Add("add_layer_norm", AddLayerNorm);
  table.Add("batch_norm", BatchNorm, BatchNormAnyLayout::Prepare);
  table.Add("group_norm", GroupedNorm<false>);
  table.Add("instance_norm", GroupedNorm<true>);
}

}  // namespace sy::cpu
