// Reference kernels of the conv_pool family: conv, conv_transpose, max_pool, avg_pool and
// global_avg_pool (spec/ops.md; ONNX semantics), and the extension qlinear_conv.
//
// Floats accumulate in double and are rounded once on store. Output shapes come from
// core's shape rules (the output views already have them), so the kernels read the output
// extents from the outputs and only derive per-tap positions from the attributes; every
// input position is bounds-checked before it is read.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "qlinear_requantize.h"
#include "ref/ref_kernels.h"

namespace sy::cpu {
namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

// IntsOr (kernel.h) reads strides, pads, dilations and output_padding; validation has
// checked their lengths, and its resizing keeps an unvalidated caller from reading past
// the end.

// Every multi-index of `shape` in row-major order, flattened: entry i * rank + d is dim
// d of the i-th index. Used for kernel taps and output positions (small shapes).
std::vector<int64_t> AllIndices(std::span<const int64_t> shape) {
  const size_t rank = shape.size();
  const int64_t count = ElementCount(shape);
  std::vector<int64_t> out(static_cast<size_t>(count) * rank);
  std::vector<int64_t> index(rank, 0);
  for (int64_t i = 0; i < count; ++i) {
    std::copy(index.begin(), index.end(), out.begin() + static_cast<ptrdiff_t>(i * rank));
    for (size_t d = rank; d-- > 0;) {
      if (++index[d] < shape[d]) break;
      index[d] = 0;
    }
  }
  return out;
}

// Multi-index of flat position `flat` within `shape` (row-major).
void Unflatten(int64_t flat, std::span<const int64_t> shape, std::vector<int64_t>& index) {
  for (size_t d = shape.size(); d-- > 0;) {
    index[d] = flat % shape[d];
    flat /= shape[d];
  }
}

// ---------------------------------------------------------------------------------------
// Sliding windows shared by conv, conv_transpose and the pools.

struct Window {
  size_t spatial = 0;
  std::vector<int64_t> strides, pads, dilations;  // pads: all begins, then all ends
};

Window ReadWindow(const Attrs& attrs, size_t spatial) {
  Window w;
  w.spatial = spatial;
  w.strides = IntsOr(attrs, "strides", spatial, 1);
  w.pads = IntsOr(attrs, "pads", 2 * spatial, 0);
  w.dilations = IntsOr(attrs, "dilations", spatial, 1);
  return w;
}

// conv: x [N, C, in...], w [M, C / group, k...], bias [M] -> y [N, M, out...], where
// y[n, m, o] = bias[m] + sum over c, t of x[n, g * C/g + c, o * stride - pad_begin + t *
// dilation] * w[m, c, t] (g = m's group; taps that land in the padding contribute 0).
//
// ForEachConvSum walks that sum for conv and qlinear_conv: `start(m)` is the sum's start
// for output channel m, `product(x_index, w_index, m)` one tap's term, and `store(y_index,
// m, sum)` keeps the result.
template <typename Acc, typename Start, typename Product, typename Store>
void ForEachConvSum(const ConstTensorView& x, const ConstTensorView& w, const TensorView& y,
                    const Attrs& attrs, Start start, Product product, Store store) {
  const size_t spatial = static_cast<size_t>(x.rank()) - 2;
  const Window win = ReadWindow(attrs, spatial);
  const int64_t group = attrs.GetInt("group", 1);
  const int64_t batch = x.shape()[0];
  const int64_t channels = x.shape()[1];
  const int64_t out_channels = y.shape()[1];
  const int64_t channels_per_group = channels / group;
  const int64_t outs_per_group = out_channels / group;
  const std::span<const int64_t> in_dims(x.shape().data() + 2, spatial);
  const std::span<const int64_t> out_dims(y.shape().data() + 2, spatial);
  const std::span<const int64_t> kernel_dims(w.shape().data() + 2, spatial);
  const int64_t in_count = ElementCount(in_dims);
  const int64_t out_count = ElementCount(out_dims);
  const int64_t tap_count = ElementCount(kernel_dims);
  const std::vector<int64_t> taps = AllIndices(kernel_dims);
  std::vector<int64_t> pos(spatial);
  for (int64_t nb = 0; nb < batch; ++nb) {
    for (int64_t m = 0; m < out_channels; ++m) {
      const int64_t g = m / outs_per_group;
      const Acc first = start(m);
      for (int64_t o = 0; o < out_count; ++o) {
        Unflatten(o, out_dims, pos);
        Acc acc = first;
        for (int64_t c = 0; c < channels_per_group; ++c) {
          const int64_t x_base = (nb * channels + g * channels_per_group + c) * in_count;
          const int64_t w_base = (m * channels_per_group + c) * tap_count;
          for (int64_t t = 0; t < tap_count; ++t) {
            int64_t offset = 0;
            bool inside = true;
            for (size_t d = 0; d < spatial && inside; ++d) {
              const int64_t p = pos[d] * win.strides[d] - win.pads[d] +
                                taps[static_cast<size_t>(t) * spatial + d] * win.dilations[d];
              inside = p >= 0 && p < in_dims[d];
              offset = offset * in_dims[d] + p;
            }
            if (!inside) continue;
            acc += product(x_base + offset, w_base + t, m);
          }
        }
        store((nb * out_channels + m) * out_count + o, m, acc);
      }
    }
  }
}

Status Conv(const KernelContext& ctx) {
  const ConstTensorView& x = ctx.inputs[0];
  const ConstTensorView& w = ctx.inputs[1];
  const ConstTensorView* bias = ctx.inputs.size() > 2 ? &ctx.inputs[2] : nullptr;
  const TensorView& y = ctx.outputs[0];
  ForEachConvSum<double>(
      x, w, y, ctx.attrs,
      [&](int64_t m) { return bias != nullptr ? LoadFloat(bias->dtype(), bias->data, m) : 0.0; },
      [&](int64_t xi, int64_t wi, int64_t) {
        return LoadFloat(x.dtype(), x.data, xi) * LoadFloat(w.dtype(), w.data, wi);
      },
      [&](int64_t yi, int64_t, double acc) { StoreFloat(y.dtype(), y.data, yi, acc); });
  return Status::Ok();
}

// qlinear_conv (ONNX QLinearConv): conv's sum over x - x_zero_point and w - w_zero_point
// (per output channel where w's is), plus the i32 bias, exact in 64-bit integers, then
// requantized with the output channel's multiplier (plugins/common/qlinear_requantize.h).
// Padding taps add nothing, as if the padding held x_zero_point.
Status QLinearConv(const KernelContext& ctx) {
  const ConstTensorView& x = ctx.inputs[0];
  const ConstTensorView& w = ctx.inputs[3];
  const ConstTensorView* bias = ctx.inputs.size() > 8 ? &ctx.inputs[8] : nullptr;
  const TensorView& y = ctx.outputs[0];
  const int64_t out_channels = y.shape()[1];
  const auto at = [&ctx](size_t input, int64_t m) {
    const ConstTensorView& v = ctx.inputs[input];
    return v.count() > 1 ? m : 0;
  };
  const float x_scale = static_cast<float>(LoadFloat(DType::kF32, ctx.inputs[1].data, 0));
  const float y_scale = static_cast<float>(LoadFloat(DType::kF32, ctx.inputs[6].data, 0));
  const int64_t x_zero = LoadInt(x.dtype(), ctx.inputs[2].data, 0);
  const int64_t y_zero = LoadInt(y.dtype(), ctx.inputs[7].data, 0);
  std::vector<float> multipliers(static_cast<size_t>(out_channels));
  std::vector<int64_t> w_zero(static_cast<size_t>(out_channels));
  for (int64_t m = 0; m < out_channels; ++m) {
    const float w_scale = static_cast<float>(LoadFloat(DType::kF32, ctx.inputs[4].data, at(4, m)));
    if (std::string problem = plugin::QLinearScaleProblem(x_scale, w_scale, y_scale);
        !problem.empty()) {
      return InvalidArgument(
          "qlinear_conv: " + problem +
          (ctx.inputs[4].count() > 1 ? " (output channel " + std::to_string(m) + ")" : ""));
    }
    multipliers[static_cast<size_t>(m)] = plugin::QLinearMultiplier(x_scale, w_scale, y_scale);
    w_zero[static_cast<size_t>(m)] = LoadInt(w.dtype(), ctx.inputs[5].data, at(5, m));
  }
  const bool is_signed = y.dtype() == DType::kI8;
  const int32_t lo = is_signed ? -128 : 0;
  const int32_t hi = is_signed ? 127 : 255;
  ForEachConvSum<int64_t>(
      x, w, y, ctx.attrs,
      [&](int64_t m) { return bias != nullptr ? LoadInt(DType::kI32, bias->data, m) : 0; },
      [&](int64_t xi, int64_t wi, int64_t m) {
        return (LoadInt(x.dtype(), x.data, xi) - x_zero) *
               (LoadInt(w.dtype(), w.data, wi) - w_zero[static_cast<size_t>(m)]);
      },
      [&](int64_t yi, int64_t m, int64_t acc) {
        StoreInt(y.dtype(), y.data, yi,
                 plugin::RequantizeToCode(acc, multipliers[static_cast<size_t>(m)],
                                          static_cast<int32_t>(y_zero), lo, hi));
      });
  return Status::Ok();
}

// conv_transpose: x [N, C, in...], w [C, M / group, k...], bias [M] -> y [N, M, out...],
// the adjoint of conv: each x[n, c, i] adds x * w[c, m', t] to y[n, g * M/g + m', i *
// stride + t * dilation - pad_begin] (g = c's group), dropping positions outside y
// (the cropped pads); output_padding only lengthens y at the end (y's shape has it).

Status ConvTranspose(const KernelContext& ctx) {
  const ConstTensorView& x = ctx.inputs[0];
  const ConstTensorView& w = ctx.inputs[1];
  const ConstTensorView* bias = ctx.inputs.size() > 2 ? &ctx.inputs[2] : nullptr;
  const TensorView& y = ctx.outputs[0];
  const size_t spatial = static_cast<size_t>(x.rank()) - 2;
  const Window win = ReadWindow(ctx.attrs, spatial);
  const int64_t group = ctx.attrs.GetInt("group", 1);
  const int64_t batch = x.shape()[0];
  const int64_t channels = x.shape()[1];
  const int64_t out_channels = y.shape()[1];
  const int64_t channels_per_group = channels / group;
  const int64_t outs_per_group = w.shape()[1];
  const std::span<const int64_t> in_dims(x.shape().data() + 2, spatial);
  const std::span<const int64_t> out_dims(y.shape().data() + 2, spatial);
  const std::span<const int64_t> kernel_dims(w.shape().data() + 2, spatial);
  const int64_t in_count = ElementCount(in_dims);
  const int64_t out_count = ElementCount(out_dims);
  const int64_t tap_count = ElementCount(kernel_dims);
  const std::vector<int64_t> taps = AllIndices(kernel_dims);
  // Accumulate the whole output in double, then round once.
  std::vector<double> acc(static_cast<size_t>(y.count()), 0.0);
  for (int64_t nb = 0; nb < batch; ++nb) {
    for (int64_t m = 0; m < out_channels; ++m) {
      const double b = bias != nullptr ? LoadFloat(bias->dtype(), bias->data, m) : 0.0;
      const int64_t base = (nb * out_channels + m) * out_count;
      for (int64_t o = 0; o < out_count; ++o) acc[static_cast<size_t>(base + o)] = b;
    }
  }
  std::vector<int64_t> pos(spatial);
  for (int64_t nb = 0; nb < batch; ++nb) {
    for (int64_t c = 0; c < channels; ++c) {
      const int64_t g = c / channels_per_group;
      for (int64_t i = 0; i < in_count; ++i) {
        Unflatten(i, in_dims, pos);
        const double xv = LoadFloat(x.dtype(), x.data, (nb * channels + c) * in_count + i);
        for (int64_t mg = 0; mg < outs_per_group; ++mg) {
          const int64_t m = g * outs_per_group + mg;
          const int64_t y_base = (nb * out_channels + m) * out_count;
          const int64_t w_base = (c * outs_per_group + mg) * tap_count;
          for (int64_t t = 0; t < tap_count; ++t) {
            int64_t offset = 0;
            bool inside = true;
            for (size_t d = 0; d < spatial && inside; ++d) {
              const int64_t p = pos[d] * win.strides[d] - win.pads[d] +
                                taps[static_cast<size_t>(t) * spatial + d] * win.dilations[d];
              inside = p >= 0 && p < out_dims[d];
              offset = offset * out_dims[d] + p;
            }
            if (!inside) continue;
            acc[static_cast<size_t>(y_base + offset)] +=
                xv * LoadFloat(w.dtype(), w.data, w_base + t);
          }
        }
      }
    }
  }
  for (int64_t i = 0; i < y.count(); ++i) {
    StoreFloat(y.dtype(), y.data, i, acc[static_cast<size_t>(i)]);
  }
  return Status::Ok();
}

// ---------------------------------------------------------------------------------------
// max_pool, avg_pool: x [N, C, in...] (any number of spatial dims) -> y [N, C, out...].
// Window o covers taps at o * stride - pad_begin + t * dilation. Padding never takes
// part in a max; avg_pool sums the in-bounds taps and divides by their count
// (count_include_pad 0) or by the number of taps inside the padded input [-pad_begin,
// in + pad_end) (count_include_pad 1): with ceil_mode the last window can run past the
// end padding, and those taps are not counted (as in ONNX's reference and PyTorch).
// A window with no in-bounds tap (possible with dilations, or when x's spatial extent is
// empty but padded) gives -inf for max_pool (the identity of max) and NaN (0 / 0) for
// avg_pool with count_include_pad 0 (its first tap is always inside the padded input, so
// count_include_pad 1 always has a divisor). max_pool's optional second output holds, for
// each window, the flat index into x of the element taken (the first of equal maxima in
// tap order, the first NaN; -1 for a window with no in-bounds tap): over [N, C, in...] in
// row-major order, or with storage_order 1 column-major within each [in...] plane (ONNX
// MaxPool's Indices).

enum class PoolKind { kMax, kAvg };

Status Pool(const KernelContext& ctx, PoolKind kind) {
  const ConstTensorView& x = ctx.inputs[0];
  const TensorView& y = ctx.outputs[0];
  const size_t spatial = static_cast<size_t>(x.rank()) - 2;
  const Window win = ReadWindow(ctx.attrs, spatial);
  const std::vector<int64_t> kernel = IntsOr(ctx.attrs, "kernel_shape", spatial, 1);
  const bool count_include_pad = ctx.attrs.GetInt("count_include_pad", 0) != 0;
  const int64_t planes = x.shape()[0] * x.shape()[1];
  const std::span<const int64_t> in_dims(x.shape().data() + 2, spatial);
  const std::span<const int64_t> out_dims(y.shape().data() + 2, spatial);
  const int64_t in_count = ElementCount(in_dims);
  const int64_t out_count = ElementCount(out_dims);
  const int64_t tap_count = ElementCount(kernel);
  const std::vector<int64_t> taps = AllIndices(kernel);
  std::vector<int64_t> pos(spatial);
  const bool with_indices = kind == PoolKind::kMax && ctx.outputs.size() == 2;
  const bool column_major = ctx.attrs.GetInt("storage_order", 0) != 0;
  std::vector<int64_t> column_strides(spatial, 1);  // element strides of a column-major plane
  for (size_t d = 1; d < spatial; ++d) column_strides[d] = column_strides[d - 1] * in_dims[d - 1];
  for (int64_t plane = 0; plane < planes; ++plane) {
    const int64_t x_base = plane * in_count;
    for (int64_t o = 0; o < out_count; ++o) {
      Unflatten(o, out_dims, pos);
      double best = -std::numeric_limits<double>::infinity();
      int64_t best_at = -1;  // its flat index in x (max_pool's indices)
      double sum = 0.0;
      int64_t in_bounds = 0;  // taps inside x
      int64_t in_padded = 0;  // taps inside x with its explicit padding
      for (int64_t t = 0; t < tap_count; ++t) {
        int64_t offset = 0;
        int64_t column_offset = 0;
        bool inside = true;
        bool inside_padded = true;
        for (size_t d = 0; d < spatial; ++d) {
          const int64_t p = pos[d] * win.strides[d] - win.pads[d] +
                            taps[static_cast<size_t>(t) * spatial + d] * win.dilations[d];
          inside = inside && p >= 0 && p < in_dims[d];
          inside_padded =
              inside_padded && p >= -win.pads[d] && p < in_dims[d] + win.pads[spatial + d];
          if (inside) {
            offset = offset * in_dims[d] + p;
            column_offset += p * column_strides[d];
          }
        }
        if (inside_padded) ++in_padded;
        if (!inside) continue;
        ++in_bounds;
        const double v = LoadFloat(x.dtype(), x.data, x_base + offset);
        if (!std::isnan(best) && (std::isnan(v) || v > best || best_at < 0)) {  // NaN sticks
          best = v;
          best_at = x_base + (column_major ? column_offset : offset);
        }
        sum += v;
      }
      double value = best;
      if (kind == PoolKind::kAvg) {
        const int64_t divisor = count_include_pad ? in_padded : in_bounds;
        value = divisor == 0 ? kNaN : sum / static_cast<double>(divisor);
      }
      StoreFloat(y.dtype(), y.data, plane * out_count + o, value);
      if (with_indices) StoreInt(DType::kI64, ctx.outputs[1].data, plane * out_count + o, best_at);
    }
  }
  return Status::Ok();
}

Status MaxPool(const KernelContext& ctx) { return Pool(ctx, PoolKind::kMax); }
Status AvgPool(const KernelContext& ctx) { return Pool(ctx, PoolKind::kAvg); }

// global_avg_pool: the mean over all spatial dims of each [n, c] plane (NaN when the
// spatial extent is empty, like NumPy's mean of nothing).
Status GlobalAvgPool(const KernelContext& ctx) {
  const ConstTensorView& x = ctx.inputs[0];
  const TensorView& y = ctx.outputs[0];
  const int64_t planes = x.shape()[0] * x.shape()[1];
  const int64_t size = ElementCount(std::span<const int64_t>(x.shape()).subspan(2));
  for (int64_t plane = 0; plane < planes; ++plane) {
    double sum = 0.0;
    for (int64_t i = 0; i < size; ++i) sum += LoadFloat(x.dtype(), x.data, plane * size + i);
    StoreFloat(y.dtype(), y.data, plane, size == 0 ? kNaN : sum / static_cast<double>(size));
  }
  return Status::Ok();
}

// ---------------------------------------------------------------------------------------
// deform_conv (2-D), as ONNX's reference (onnx/reference/ops/op_deform_conv.py): output
// (n, o, i, j) = bias[o] + sum over the input channels c of o's group and the kernel taps
// (u, v) of w[o, c, u, v] * mask[n, g, u, v, i, j] * x_n,c(h, w) at h = i * stride_h -
// pad_h + u * dilation_h + offset[n, g, u, v, 0, i, j] and w likewise (g: c's offset
// group), sampled bilinearly with zeros outside the input (grid_sample's align_corners
// sampling in pixel units).
Status DeformConv(const KernelContext& ctx) {
  const ConstTensorView& x = ctx.inputs[0];
  const ConstTensorView& w = ctx.inputs[1];
  const ConstTensorView& offset = ctx.inputs[2];
  const bool has_bias = ctx.inputs.size() > 3;
  const bool has_mask = ctx.inputs.size() > 4;
  const TensorView& y = ctx.outputs[0];
  const int64_t n = x.shape()[0], channels = x.shape()[1], in_h = x.shape()[2], in_w = x.shape()[3];
  const int64_t out_c = w.shape()[0], group_c = w.shape()[1], k_h = w.shape()[2],
                k_w = w.shape()[3];
  const int64_t out_h = y.shape()[2], out_w = y.shape()[3];
  const int64_t group = ctx.attrs.GetInt("group", 1);
  const int64_t offset_group = ctx.attrs.GetInt("offset_group", 1);
  const Window win = ReadWindow(ctx.attrs, 2);
  const std::vector<int64_t>& strides = win.strides;
  const std::vector<int64_t>& pads = win.pads;
  const std::vector<int64_t>& dilations = win.dilations;
  const int64_t out_per_group = out_c / group;
  const int64_t channels_per_offset_group = channels / offset_group;
  const int64_t taps = k_h * k_w;
  const int64_t plane = out_h * out_w;
  // x's element at (row, col) of channel plane `base`, 0 outside the input.
  auto at = [&](int64_t base, int64_t row, int64_t col) -> double {
    if (row < 0 || row >= in_h || col < 0 || col >= in_w) return 0.0;
    return LoadFloat(x.dtype(), x.data, base + row * in_w + col);
  };
  for (int64_t b = 0; b < n; ++b) {
    for (int64_t o = 0; o < out_c; ++o) {
      const int64_t g = o / out_per_group;
      for (int64_t i = 0; i < out_h; ++i) {
        for (int64_t j = 0; j < out_w; ++j) {
          double sum = has_bias ? LoadFloat(ctx.inputs[3].dtype(), ctx.inputs[3].data, o) : 0.0;
          for (int64_t ci = 0; ci < group_c; ++ci) {
            const int64_t c = g * group_c + ci;
            const int64_t og = c / channels_per_offset_group;
            const int64_t base = (b * channels + c) * in_h * in_w;
            for (int64_t u = 0; u < k_h; ++u) {
              for (int64_t v = 0; v < k_w; ++v) {
                const int64_t tap = u * k_w + v;
                const int64_t at_hw = i * out_w + j;
                const int64_t off = ((b * offset_group + og) * taps + tap) * 2 * plane + at_hw;
                const double dh = LoadFloat(offset.dtype(), offset.data, off);
                const double dw = LoadFloat(offset.dtype(), offset.data, off + plane);
                double m = 1.0;
                if (has_mask) {
                  m = LoadFloat(ctx.inputs[4].dtype(), ctx.inputs[4].data,
                                ((b * offset_group + og) * taps + tap) * plane + at_hw);
                }
                const double h =
                    static_cast<double>(i * strides[0] - pads[0] + u * dilations[0]) + dh;
                const double wc =
                    static_cast<double>(j * strides[1] - pads[1] + v * dilations[1]) + dw;
                double sample = 0.0;
                if (std::isfinite(h) && std::isfinite(wc) && h > -1 && wc > -1 &&
                    h < static_cast<double>(in_h) && wc < static_cast<double>(in_w)) {
                  const double h0 = std::floor(h), w0 = std::floor(wc);
                  const double lh = h - h0, lw = wc - w0;
                  const auto r = static_cast<int64_t>(h0), q = static_cast<int64_t>(w0);
                  sample = (1 - lh) * ((1 - lw) * at(base, r, q) + lw * at(base, r, q + 1)) +
                           lh * ((1 - lw) * at(base, r + 1, q) + lw * at(base, r + 1, q + 1));
                } else if (!std::isfinite(h) || !std::isfinite(wc)) {
                  sample = std::numeric_limits<double>::quiet_NaN();
                }
                const double wv =
                    LoadFloat(w.dtype(), w.data, ((o * group_c + ci) * k_h + u) * k_w + v);
                sum += wv * m * sample;
              }
            }
          }
          StoreFloat(y.dtype(), y.data, ((b * out_c + o) * out_h + i) * out_w + j, sum);
        }
      }
    }
  }
  return Status::Ok();
}

// ---------------------------------------------------------------------------------------
// roi_align, as ONNX's reference (onnx/reference/ops/op_roi_align.py, onnxruntime's
// algorithm): each roi (x1, y1, x2, y2) scaled by spatial_scale, shifted by -0.5 with
// half_pixel (output_half_pixel: no shift, and the roi at least 1 x 1), is cut into
// output_height x output_width bins; each bin averages (or, for max, takes the largest
// of) a grid of sampling_ratio x sampling_ratio bilinear samples (0: ceil(bin size) per
// axis). A sample more than one element outside the input reads 0; inside, it is clamped
// to the edge. Mode max takes, per sample, the largest of its four weighted corners
// (the reference's and onnxruntime's definition). A batch index outside [0, N), a roi
// that is not finite or one needing more than 2^20 samples per bin is a data error.
Status RoiAlign(const KernelContext& ctx) {
  const ConstTensorView& x = ctx.inputs[0];
  const ConstTensorView& rois = ctx.inputs[1];
  const ConstTensorView& index = ctx.inputs[2];
  const TensorView& y = ctx.outputs[0];
  const int64_t n = x.shape()[0], channels = x.shape()[1];
  const int64_t height = x.shape()[2], width = x.shape()[3];
  const int64_t out_h = y.shape()[2], out_w = y.shape()[3];
  const bool max_mode = ctx.attrs.GetString("mode", "avg") == "max";
  const bool half_pixel =
      ctx.attrs.GetString("coordinate_transformation_mode", "half_pixel") == "half_pixel";
  const int64_t sampling = ctx.attrs.GetInt("sampling_ratio", 0);
  const double scale = ctx.attrs.GetFloat("spatial_scale", 1.0);
  struct Corner {
    int64_t offset[4] = {0, 0, 0, 0};
    double weight[4] = {0, 0, 0, 0};
  };
  std::vector<Corner> samples;
  for (int64_t r = 0; r < y.shape()[0]; ++r) {
    const int64_t b = LoadInt(index.dtype(), index.data, r);
    if (b < 0 || b >= n) {
      return InvalidArgument("roi_align: batch_indices[" + std::to_string(r) + "] is " +
                             std::to_string(b) + ", outside [0, " + std::to_string(n) +
                             ") (the batch of x)");
    }
    double box[4];
    for (int k = 0; k < 4; ++k) {
      box[k] = LoadFloat(rois.dtype(), rois.data, r * 4 + k) * scale - (half_pixel ? 0.5 : 0.0);
      if (!std::isfinite(box[k])) {
        return InvalidArgument("roi_align: roi " + std::to_string(r) + " is not finite");
      }
    }
    double roi_w = box[2] - box[0], roi_h = box[3] - box[1];
    if (!half_pixel) {
      roi_w = std::max(roi_w, 1.0);
      roi_h = std::max(roi_h, 1.0);
    }
    const double bin_h = roi_h / static_cast<double>(out_h);
    const double bin_w = roi_w / static_cast<double>(out_w);
    const double grid_hd = sampling > 0 ? static_cast<double>(sampling) : std::ceil(bin_h);
    const double grid_wd = sampling > 0 ? static_cast<double>(sampling) : std::ceil(bin_w);
    if (grid_hd * grid_wd > static_cast<double>(int64_t{1} << 20)) {
      return InvalidArgument("roi_align: roi " + std::to_string(r) +
                             " needs more than 2^20 samples per bin");
    }
    // A negative roi size samples nothing (the reference's empty loops), and averages 0.
    const int64_t grid_h = std::max<int64_t>(0, static_cast<int64_t>(grid_hd));
    const int64_t grid_w = std::max<int64_t>(0, static_cast<int64_t>(grid_wd));
    const double count = static_cast<double>(std::max<int64_t>(grid_h * grid_w, 1));
    samples.assign(static_cast<size_t>(out_h * out_w * grid_h * grid_w), Corner{});
    size_t s = 0;
    for (int64_t ph = 0; ph < out_h; ++ph) {
      for (int64_t pw = 0; pw < out_w; ++pw) {
        for (int64_t iy = 0; iy < grid_h; ++iy) {
          const double yy = box[1] + static_cast<double>(ph) * bin_h +
                            (static_cast<double>(iy) + 0.5) * bin_h / static_cast<double>(grid_h);
          for (int64_t ix = 0; ix < grid_w; ++ix, ++s) {
            const double xx = box[0] + static_cast<double>(pw) * bin_w +
                              (static_cast<double>(ix) + 0.5) * bin_w / static_cast<double>(grid_w);
            if (yy < -1.0 || yy > static_cast<double>(height) || xx < -1.0 ||
                xx > static_cast<double>(width)) {
              continue;  // reads 0
            }
            double sy = std::max(yy, 0.0), sx = std::max(xx, 0.0);
            auto y_low = static_cast<int64_t>(sy), x_low = static_cast<int64_t>(sx);
            int64_t y_high = y_low + 1, x_high = x_low + 1;
            if (y_low >= height - 1) {
              y_high = y_low = height - 1;
              sy = static_cast<double>(y_low);
            }
            if (x_low >= width - 1) {
              x_high = x_low = width - 1;
              sx = static_cast<double>(x_low);
            }
            const double ly = sy - static_cast<double>(y_low), lx = sx - static_cast<double>(x_low);
            const double hy = 1 - ly, hx = 1 - lx;
            Corner& c = samples[s];
            c.offset[0] = y_low * width + x_low;
            c.offset[1] = y_low * width + x_high;
            c.offset[2] = y_high * width + x_low;
            c.offset[3] = y_high * width + x_high;
            c.weight[0] = hy * hx;
            c.weight[1] = hy * lx;
            c.weight[2] = ly * hx;
            c.weight[3] = ly * lx;
          }
        }
      }
    }
    const int64_t per_bin = grid_h * grid_w;
    for (int64_t c = 0; c < channels; ++c) {
      const int64_t base = (b * channels + c) * height * width;
      for (int64_t bin = 0; bin < out_h * out_w; ++bin) {
        double value = 0.0;
        for (int64_t k = 0; k < per_bin; ++k) {
          const Corner& corner = samples[static_cast<size_t>(bin * per_bin + k)];
          double v[4];
          for (int q = 0; q < 4; ++q) {
            v[q] = corner.weight[q] * LoadFloat(x.dtype(), x.data, base + corner.offset[q]);
          }
          if (max_mode) {
            const double m = std::max(std::max(v[0], v[1]), std::max(v[2], v[3]));
            value = k == 0 ? m : std::max(value, m);
          } else {
            value += v[0] + v[1] + v[2] + v[3];
          }
        }
        if (!max_mode) value /= count;
        StoreFloat(y.dtype(), y.data, (r * channels + c) * out_h * out_w + bin, value);
      }
    }
  }
  return Status::Ok();
}

}  // namespace

void AddConvPoolRefKernels(KernelTable& table) {
  table.Add("roi_align", RoiAlign);
  table.Add("deform_conv", DeformConv);
  table.Add("conv", Conv);
  table.Add("qlinear_conv", QLinearConv);
  table.Add("conv_transpose", ConvTranspose);
  table.Add("max_pool", MaxPool);
  table.Add("avg_pool", AvgPool);
  table.Add("global_avg_pool", GlobalAvgPool);
}

}  // namespace sy::cpu
