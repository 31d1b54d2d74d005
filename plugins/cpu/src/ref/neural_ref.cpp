// Reference kernels of the neural family (spec/ops.md, "Neural network"): resize,
// attention, rotary_embedding and the extensions grid_sample and linear_attention. (The
// normalization ops are
// in normalization_ref.cpp, depth_to_space and space_to_depth in movement_ref.cpp.)
//
// Floats are computed in double and rounded once on store.
//
// ONNX semantics decisions (see also the comments at each kernel):
// - resize follows the ONNX reference implementation (onnx/reference/ops/op_resize.py):
//   every coordinate mode, kernel, antialias, exclude_outside and tf_crop_and_resize's
//   extrapolation are in plugins/common/resize_taps.h, whose per-axis taps this kernel
//   applies one axis at a time (the semantics decisions are written there).
// - grid_sample follows the ONNX reference (onnx/reference/ops/op_grid_sample.py, itself
//   onnxruntime's algorithm): grid (x, y) in [-1, 1] is denormalized per axis
//   (align_corners: (g + 1) / 2 * (n - 1), else ((g + 1) * n - 1) / 2); nearest rounds it
//   half to even; a coordinate outside [-0.5, n - 0.5] ([0, n - 1] with align_corners) is
//   clamped to [0, n - 1] (border) or reflected into that range (reflection) before the
//   taps are taken: 1 (nearest), 2 (bilinear) or 4 (bicubic, Keys with a = -0.75) per
//   axis. A tap outside [0, n) reads 0 (zeros), the edge element (border) or the element
//   its index reflects to (reflection). As for resize, a tap of weight 0 is not read. A
//   grid coordinate that is NaN or infinite gives NaN for every channel of that output
//   position (the operator leaves it undefined).
// - attention follows ONNX opset 23 with its errata (onnx/onnx#8068, in the reference
//   since onnx 1.23): a fully masked query row, one whose every bias is -inf (keys masked
//   by a bool mask, an additive -inf mask and/or is_causal; or no keys at all), produces
//   an output row of zeros, not NaN (as PyTorch's scaled_dot_product_attention), whatever
//   its raw scores; so does a row whose every biased score is -inf. A bool mask is
//   true = attend, false = -inf bias. is_causal masks key j > query i (top-left aligned,
//   no KV cache). The scale multiplies q.k directly, so a negative scale works (the
//   reference's sqrt(scale) on q and k would make it NaN).
#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <string>
#include <vector>

#include "attention_mask.h"
#include "ref/ref_kernels.h"
#include "resize_taps.h"

namespace sy::cpu {

namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();

// ---------------------------------------------------------------------------------------
// resize

// resize, modes nearest, linear and cubic, for any rank; the per-axis taps are
// plugins/common's (resize_taps.h), shared with the GPU plugins. Separable: one axis at a
// time over a double buffer (each output element of a pass sums its taps in tap order
// from -0.0, so that a single tap copies -0.0 as it is), the axes that shrink first so
// that no intermediate is larger than the input or the output. An output element with a
// coordinate outside the crop on any axis (tf_crop_and_resize) is extrapolation_value.
Status Resize(const KernelContext& ctx) {
  const ConstTensorView& x = ctx.inputs[0];
  const TensorView& y = ctx.outputs[0];
  if (y.count() == 0) return Status::Ok();
  const size_t rank = static_cast<size_t>(x.rank());
  const plugin::ResizeParams params = plugin::ResizeParams::FromAttrs(ctx.attrs);
  const plugin::ResizePlan plan = plugin::PlanResize(params, x.shape(), y.shape());
  const std::vector<plugin::ResizeAxisTaps>& taps = plan.taps;
  std::vector<double> cur(static_cast<size_t>(x.count()));
  for (int64_t i = 0; i < x.count(); ++i)
    cur[static_cast<size_t>(i)] = LoadFloat(x.dtype(), x.data, i);
  Shape shape = x.shape();
  std::vector<double> next;
  for (size_t d : plan.passes) {
    const int64_t in = shape[d], out = y.shape()[d];
    const plugin::ResizeAxisTaps& t = taps[d];
    int64_t outer = 1, inner = 1;
    for (size_t e = 0; e < d; ++e) outer *= shape[e];
    for (size_t e = d + 1; e < rank; ++e) inner *= shape[e];
    next.assign(static_cast<size_t>(outer * out * inner), -0.0);
    for (int64_t o = 0; o < outer; ++o) {
      for (int64_t p = 0; p < out; ++p) {
        double* dst = next.data() + (o * out + p) * inner;
        if (t.count(p) == 0) {  // outside the crop: overwritten below
          std::fill(dst, dst + inner, params.extrapolation_value);
          continue;
        }
        for (size_t k = 0; k < t.count(p); ++k) {
          const plugin::ResizeTap& tap = t.at(p)[k];
          const double* src = cur.data() + (o * in + tap.index) * inner;
          for (int64_t i = 0; i < inner; ++i) dst[i] += tap.weight * src[i];
        }
      }
    }
    cur.swap(next);
    shape[d] = out;
  }
  plan.ForEachOutside(y.shape(),
                      [&](int64_t o) { cur[static_cast<size_t>(o)] = params.extrapolation_value; });
  for (int64_t i = 0; i < y.count(); ++i)
    StoreFloat(y.dtype(), y.data, i, cur[static_cast<size_t>(i)]);
  return Status::Ok();
}

// ---------------------------------------------------------------------------------------
// attention: q [B, Hq, S, D], k [B, Hkv, T, D], v [B, Hkv, T, Dv], optional mask
// broadcasting to [B, Hq, S, T] -> y [B, Hq, S, Dv]
//   y[b, h, i] = sum_j softmax_j(scale * q[b, h, i] . k[b, g, j] + bias[b, h, i, j]) v[b, g, j]
// with g = h / (Hq / Hkv), bias = the mask (additive, or 0 / -inf for bool true / false)
// plus -inf where is_causal and j > i. The sum runs over the keys the row does not exclude
// (plugins/common/attention_mask.h: -inf biases, and fills at or below -1e30 beside a key
// above -1e29), which are never read. Fully masked rows give zeros (see the top).
Status Attention(const KernelContext& ctx) {
  const ConstTensorView& q = ctx.inputs[0];
  const ConstTensorView& k = ctx.inputs[1];
  const ConstTensorView& v = ctx.inputs[2];
  const ConstTensorView* mask = ctx.inputs.size() > 3 ? &ctx.inputs[3] : nullptr;
  const TensorView& y = ctx.outputs[0];
  const int64_t batch = q.shape()[0], hq = q.shape()[1], seq = q.shape()[2], dim = q.shape()[3];
  const int64_t hkv = k.shape()[1], kv_seq = k.shape()[2], dv = v.shape()[3];
  if (y.count() == 0) return Status::Ok();  // also rules out Hkv = 0 (then Hq = 0)
  const int64_t group = hq / hkv;
  const double scale = ctx.attrs.Has("scale")
                           ? ctx.attrs.GetFloat("scale")
                           : 1.0 / std::sqrt(static_cast<double>(dim));  // inf when D = 0
  const bool causal = ctx.attrs.GetInt("is_causal", 0) != 0;
  // The mask's element strides along the score dims [B, Hq, S, T] (right-aligned
  // broadcasting: 0 along a dim it lacks or has as 1), so that its offset stays within
  // the mask however large the broadcast scores would be.
  int64_t mask_stride[4] = {0, 0, 0, 0};
  if (mask != nullptr) {
    const std::vector<int64_t> strides = Strides(mask->shape());
    const size_t lead = 4 - static_cast<size_t>(mask->rank());
    for (size_t d = 0; d < strides.size(); ++d) {
      if (mask->shape()[d] != 1) mask_stride[lead + d] = strides[d];
    }
  }
  std::vector<double> s(static_cast<size_t>(kv_seq)), bias(static_cast<size_t>(kv_seq));
  std::vector<uint8_t> excluded(static_cast<size_t>(kv_seq));
  for (int64_t b = 0; b < batch; ++b) {
    for (int64_t h = 0; h < hq; ++h) {
      const int64_t kvh = h / group;
      const int64_t k_base = (b * hkv + kvh) * kv_seq * dim;
      const int64_t v_base = (b * hkv + kvh) * kv_seq * dv;
      for (int64_t i = 0; i < seq; ++i) {
        const int64_t q_base = ((b * hq + h) * seq + i) * dim;
        // The row's biases, then the keys it excludes (plugins/common/attention_mask.h):
        // those are never read, whatever k and v hold there.
        bool dominant = false;  // some key's bias is above kAttentionDominantBias
        for (int64_t j = 0; j < kv_seq; ++j) {
          double bj = 0;
          if (mask != nullptr) {
            const int64_t at =
                b * mask_stride[0] + h * mask_stride[1] + i * mask_stride[2] + j * mask_stride[3];
            bj = mask->dtype() == DType::kBool
                     ? (LoadInt(DType::kBool, mask->data, at) != 0 ? 0.0 : -kInf)
                     : LoadFloat(mask->dtype(), mask->data, at);
          }
          if (causal && j > i) bj = -kInf;
          bias[static_cast<size_t>(j)] = bj;
          dominant = dominant || plugin::AttentionBiasDominates(bj);
        }
        double m = -kInf;        // max of the biased scores, NaN if any is NaN
        bool all_masked = true;  // every key excluded
        for (int64_t j = 0; j < kv_seq; ++j) {
          const double bj = bias[static_cast<size_t>(j)];
          const bool out = plugin::AttentionKeyExcluded(bj, dominant);
          excluded[static_cast<size_t>(j)] = out;
          if (out) continue;
          all_masked = false;
          double score = 0;  // with D = 0, 0 whatever the scale (as the reference)
          for (int64_t d = 0; d < dim; ++d) {
            score += scale * LoadFloat(q.dtype(), q.data, q_base + d) *
                     LoadFloat(k.dtype(), k.data, k_base + j * dim + d);
          }
          score += bj;
          s[static_cast<size_t>(j)] = score;
          if (std::isnan(m)) continue;
          if (std::isnan(score) || score > m) m = score;
        }
        const int64_t y_base = ((b * hq + h) * seq + i) * dv;
        // No key left to attend, or every biased score is -inf: zeros.
        if (all_masked || m == -kInf) {
          for (int64_t e = 0; e < dv; ++e) StoreFloat(y.dtype(), y.data, y_base + e, 0.0);
          continue;
        }
        double sum = 0;
        for (int64_t j = 0; j < kv_seq; ++j) {
          double& p = s[static_cast<size_t>(j)];
          p = excluded[static_cast<size_t>(j)] ? 0.0 : std::exp(p - m);
          sum += p;
        }
        for (int64_t e = 0; e < dv; ++e) {
          double acc = 0;
          for (int64_t j = 0; j < kv_seq; ++j) {
            if (excluded[static_cast<size_t>(j)]) continue;
            acc += s[static_cast<size_t>(j)] * LoadFloat(v.dtype(), v.data, v_base + j * dv + e);
          }
          StoreFloat(y.dtype(), y.data, y_base + e, acc / sum);
        }
      }
    }
  }
  return Status::Ok();
}

// ---------------------------------------------------------------------------------------
// linear_attention: per batch and kv head, a state S [Dk, Dv] (in double) starting from
// `state`, and for each step t:
//   S = exp(decay[t]) * S                   (decay [1] or [Dk]: row d scaled by exp(decay[d]))
//   v' = delta ? beta[t] * (v[t] - S^T k[t]) : v[t]
//   S = S + k[t] v'^T
//   y[h, t] = scale * q[h, t] . S   for every q head h of the group (h / (Hq / Hkv) = kv head)
// scale defaults to 1 / sqrt(Dk). Outputs y and the final S.
Status LinearAttention(const KernelContext& ctx) {
  const ConstTensorView& q = ctx.inputs[0];
  const ConstTensorView& k = ctx.inputs[1];
  const ConstTensorView& v = ctx.inputs[2];
  const ConstTensorView& state0 = ctx.inputs[3];
  const ConstTensorView& decay = ctx.inputs[4];
  const ConstTensorView& beta = ctx.inputs[5];
  const TensorView& y = ctx.outputs[0];
  const TensorView& state_out = ctx.outputs[1];
  const int64_t batch = q.shape()[0], hq = q.shape()[1], steps = q.shape()[2];
  const int64_t dk = q.shape()[3], hkv = k.shape()[1], dv = v.shape()[3];
  const int64_t decay_width = decay.shape()[3], beta_heads = beta.shape()[1];
  const bool delta = ctx.attrs.GetInt("delta", 0) != 0;
  const double scale = ctx.attrs.Has("scale") ? ctx.attrs.GetFloat("scale")
                                              : 1.0 / std::sqrt(static_cast<double>(dk));
  if (hkv == 0) return Status::Ok();  // then Hq = 0 too: nothing to compute
  const int64_t group = hq / hkv;
  const DType dt = q.dtype();
  std::vector<double> s(static_cast<size_t>(dk * dv)), kt(static_cast<size_t>(dk)),
      vt(static_cast<size_t>(dv));
  for (int64_t b = 0; b < batch; ++b) {
    for (int64_t h = 0; h < hkv; ++h) {
      const int64_t sbase = (b * hkv + h) * dk * dv;
      for (int64_t i = 0; i < dk * dv; ++i) {
        s[static_cast<size_t>(i)] = LoadFloat(state0.dtype(), state0.data, sbase + i);
      }
      for (int64_t t = 0; t < steps; ++t) {
        const int64_t kv_row = (b * hkv + h) * steps + t;
        for (int64_t d = 0; d < dk; ++d) {
          const double g =
              LoadFloat(dt, decay.data, kv_row * decay_width + (decay_width == 1 ? 0 : d));
          const double f = std::exp(g);
          for (int64_t m = 0; m < dv; ++m) s[static_cast<size_t>(d * dv + m)] *= f;
          kt[static_cast<size_t>(d)] = LoadFloat(dt, k.data, kv_row * dk + d);
        }
        for (int64_t m = 0; m < dv; ++m)
          vt[static_cast<size_t>(m)] = LoadFloat(dt, v.data, kv_row * dv + m);
        if (delta) {
          const double bt =
              LoadFloat(dt, beta.data, (b * beta_heads + (beta_heads == 1 ? 0 : h)) * steps + t);
          for (int64_t m = 0; m < dv; ++m) {
            double retrieved = 0;
            for (int64_t d = 0; d < dk; ++d) {
              retrieved += s[static_cast<size_t>(d * dv + m)] * kt[static_cast<size_t>(d)];
            }
            vt[static_cast<size_t>(m)] = bt * (vt[static_cast<size_t>(m)] - retrieved);
          }
        }
        for (int64_t d = 0; d < dk; ++d) {
          for (int64_t m = 0; m < dv; ++m) {
            s[static_cast<size_t>(d * dv + m)] +=
                kt[static_cast<size_t>(d)] * vt[static_cast<size_t>(m)];
          }
        }
        for (int64_t g = 0; g < group; ++g) {
          const int64_t qh = h * group + g;
          const int64_t qbase = ((b * hq + qh) * steps + t) * dk;
          const int64_t ybase = ((b * hq + qh) * steps + t) * dv;
          for (int64_t m = 0; m < dv; ++m) {
            double acc = 0;
            for (int64_t d = 0; d < dk; ++d) {
              acc += LoadFloat(dt, q.data, qbase + d) * s[static_cast<size_t>(d * dv + m)];
            }
            StoreFloat(y.dtype(), y.data, ybase + m, scale * acc);
          }
        }
      }
      for (int64_t i = 0; i < dk * dv; ++i) {
        StoreFloat(state_out.dtype(), state_out.data, sbase + i, s[static_cast<size_t>(i)]);
      }
    }
  }
  return Status::Ok();
}

// ---------------------------------------------------------------------------------------
// rotary_embedding (ONNX opset 23): x [B, H, S, D], cos and sin [S, R/2] with
// R = rotary_dim (default D). With x1, x2 the two halves of x[..., :R] (interleaved = 0)
// or its even and odd elements (interleaved = 1), the rotated dims are
// x1 * cos - x2 * sin and x1 * sin + x2 * cos, put back where x1 and x2 came from;
// x[..., R:] passes through.
Status RotaryEmbedding(const KernelContext& ctx) {
  const ConstTensorView& x = ctx.inputs[0];
  const ConstTensorView& cos = ctx.inputs[1];
  const ConstTensorView& sin = ctx.inputs[2];
  const TensorView& y = ctx.outputs[0];
  const int64_t rows = x.shape()[0] * x.shape()[1];
  const int64_t seq = x.shape()[2], dim = x.shape()[3];
  const int64_t rotary = ctx.attrs.Has("rotary_dim") ? ctx.attrs.GetInt("rotary_dim") : dim;
  const int64_t half = rotary / 2;
  const bool interleaved = ctx.attrs.GetInt("interleaved", 0) != 0;
  const DType dt = x.dtype();
  for (int64_t r = 0; r < rows; ++r) {
    for (int64_t p = 0; p < seq; ++p) {
      const int64_t base = (r * seq + p) * dim;
      for (int64_t i = 0; i < half; ++i) {
        const int64_t i1 = interleaved ? 2 * i : i;
        const int64_t i2 = interleaved ? 2 * i + 1 : i + half;
        const double c = LoadFloat(cos.dtype(), cos.data, p * half + i);
        const double s = LoadFloat(sin.dtype(), sin.data, p * half + i);
        const double x1 = LoadFloat(dt, x.data, base + i1);
        const double x2 = LoadFloat(dt, x.data, base + i2);
        StoreFloat(y.dtype(), y.data, base + i1, c * x1 - s * x2);
        StoreFloat(y.dtype(), y.data, base + i2, s * x1 + c * x2);
      }
      for (int64_t d = rotary; d < dim; ++d) {
        StoreFloat(y.dtype(), y.data, base + d, LoadFloat(dt, x.data, base + d));
      }
    }
  }
  return Status::Ok();
}

// ---------------------------------------------------------------------------------------
// grid_sample: x [N, C, H, W], grid [N, Ho, Wo, 2] (x, y in [-1, 1]) -> [N, C, Ho, Wo]

enum class GridPadding { kZeros, kBorder, kReflection };

// op_grid_sample.py's _gs_reflect: `v` folded into [lo, hi] by reflecting at the bounds.
double GridReflect(double v, double lo, double hi) {
  const double span = hi - lo;
  if (!(span > 0)) return lo;  // one element with align_corners
  if (v >= lo && v <= hi) return v;
  const double dx = v < lo ? lo - v : v - hi;
  const double n = std::floor(dx / span);
  const double r = std::clamp(dx - n * span, 0.0, span);
  const bool even = std::fmod(n, 2.0) == 0;
  if (v < lo) return even ? lo + r : hi - r;
  return even ? hi - r : lo + r;
}

enum class GridInterp { kNearest, kLinear, kCubic };

// The taps of one denormalized coordinate along an axis of `size` elements: index (as a
// double, maybe outside [0, size)) and weight.
struct GridTap {
  double index;
  double weight;
};

// The taps of coordinate `v` (already padded) along one axis; weight-0 taps are left out.
int GridTaps(GridInterp interp, double v, std::array<GridTap, 4>& taps) {
  if (interp == GridInterp::kNearest) {
    taps[0] = {v, 1.0};  // integral already (rounded, then clamped or reflected)
    return 1;
  }
  const double lo = std::floor(v);
  const double t = v - lo;
  int n = 0;
  if (interp == GridInterp::kLinear) {
    if (1 - t != 0) taps[n++] = {lo, 1 - t};
    if (t != 0) taps[n++] = {lo + 1, t};
    return n;
  }
  const std::array<double, 4> c = plugin::CubicCoeffs(t, -0.75);
  for (int k = 0; k < 4; ++k) {
    if (c[static_cast<size_t>(k)] != 0) taps[n++] = {lo - 1 + k, c[static_cast<size_t>(k)]};
  }
  return n;
}

Status GridSample(const KernelContext& ctx) {
  const ConstTensorView& x = ctx.inputs[0];
  const ConstTensorView& grid = ctx.inputs[1];
  const TensorView& y = ctx.outputs[0];
  if (y.count() == 0) return Status::Ok();
  // 2 (x [N, C, H, W]) or 3 (x [N, C, D, H, W]) spatial axes; axis a of the grid's
  // coordinates reads x's dim rank - 1 - a (a = 0: x along W, 1: y along H, 2: z along D).
  const int spatial = static_cast<int>(x.rank()) - 2;
  const int64_t batch = x.shape()[0], channels = x.shape()[1];
  const std::string mode = ctx.attrs.GetString("mode", "bilinear");
  const GridInterp interp = mode == "nearest"   ? GridInterp::kNearest
                            : mode == "bicubic" ? GridInterp::kCubic
                                                : GridInterp::kLinear;
  const std::string padding_name = ctx.attrs.GetString("padding_mode", "zeros");
  const GridPadding padding = padding_name == "border"       ? GridPadding::kBorder
                              : padding_name == "reflection" ? GridPadding::kReflection
                                                             : GridPadding::kZeros;
  const bool align = ctx.attrs.GetInt("align_corners", 0) != 0;
  // Per axis: the size, the element stride in x, the bounds of the coordinates.
  int64_t sizes[3], strides[3];
  double lo[3], hi[3];
  int64_t points = 1, volume = 1;
  for (int a = 0; a < spatial; ++a) {
    const size_t d = static_cast<size_t>(x.rank() - 1 - a);
    sizes[a] = x.shape()[d];
    strides[a] = volume;
    volume *= sizes[a];
    points *= y.shape()[d];
    lo[a] = align ? 0.0 : -0.5;
    hi[a] = align ? static_cast<double>(sizes[a] - 1) : static_cast<double>(sizes[a]) - 0.5;
  }
  // The element a tap index reads along axis a, or -1 for zeros padding outside.
  auto element = [&](int a, double i) -> int64_t {
    const double last = static_cast<double>(sizes[a] - 1);
    if (i >= 0 && i <= last) return static_cast<int64_t>(i);
    switch (padding) {
      case GridPadding::kZeros:
        return -1;
      case GridPadding::kBorder:
        return i < 0 ? 0 : sizes[a] - 1;
      case GridPadding::kReflection:
        break;
    }
    const double r = std::trunc(GridReflect(i, lo[a], hi[a]));  // the reference's int()
    return static_cast<int64_t>(std::clamp(r, 0.0, last));
  };
  const double nan = std::numeric_limits<double>::quiet_NaN();
  std::array<GridTap, 4> taps[3];
  int counts[3] = {1, 1, 1};
  int64_t index[3][4];  // the element each tap reads along its axis (-1: a zero)
  for (int64_t n = 0; n < batch; ++n) {
    for (int64_t p = 0; p < points; ++p) {
      const int64_t g = (n * points + p) * spatial;
      bool finite = true;
      for (int a = 0; a < spatial; ++a) {
        const double gv = LoadFloat(grid.dtype(), grid.data, g + a);
        if (!std::isfinite(gv)) {
          finite = false;
          break;
        }
        const double size = static_cast<double>(sizes[a]);
        double v = align ? (gv + 1) / 2 * (size - 1) : ((gv + 1) * size - 1) / 2;
        if (interp == GridInterp::kNearest) v = std::nearbyint(v);  // half to even
        if (v < lo[a] || v > hi[a]) {
          if (padding == GridPadding::kBorder) {
            v = std::clamp(v, 0.0, size - 1);
          } else if (padding == GridPadding::kReflection) {
            v = GridReflect(v, lo[a], hi[a]);
          }
        }
        counts[a] = GridTaps(interp, v, taps[a]);
        for (int t = 0; t < counts[a]; ++t) {
          index[a][t] = element(a, taps[a][static_cast<size_t>(t)].index);
        }
      }
      for (int64_t c = 0; c < channels; ++c) {
        const int64_t out = (n * channels + c) * points + p;
        if (!finite) {
          StoreFloat(y.dtype(), y.data, out, nan);
          continue;
        }
        const int64_t base = (n * channels + c) * volume;
        double sum = -0.0;  // so that nearest copies -0.0 as it is
        // Every combination of one tap per axis, the outermost axis slowest; the weight
        // is their product taken from the outermost axis in.
        int pick[3] = {0, 0, 0};
        while (true) {
          double weight = 1.0;
          int64_t off = 0;
          bool zero = false;
          for (int a = spatial; a-- > 0;) {
            weight = a == spatial - 1 ? taps[a][static_cast<size_t>(pick[a])].weight
                                      : weight * taps[a][static_cast<size_t>(pick[a])].weight;
            const int64_t i = index[a][pick[a]];
            zero = zero || i < 0;
            off += i * strides[a];
          }
          sum += weight * (zero ? 0.0 : LoadFloat(x.dtype(), x.data, base + off));
          int a = 0;  // next combination: the innermost axis fastest
          for (; a < spatial; ++a) {
            if (++pick[a] < counts[a]) break;
            pick[a] = 0;
          }
          if (a == spatial) break;
        }
        StoreFloat(y.dtype(), y.data, out, sum);
      }
    }
  }
  return Status::Ok();
}

}  // namespace

void AddNeuralRefKernels(KernelTable& table) {
  table.Add("resize", Resize);
  table.Add("attention", Attention);
  table.Add("linear_attention", LinearAttention);
  table.Add("rotary_embedding", RotaryEmbedding);
  table.Add("grid_sample", GridSample);
}

}  // namespace sy::cpu
