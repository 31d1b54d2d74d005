// Reference kernels for the neural-network family (spec/ops.md, "Neural network"):
// resize, depth_to_space, space_to_depth, attention and rotary_embedding here, and the
// normalization ops (softmax, log_softmax, layer_norm, rms_norm, batch_norm, group_norm,
// instance_norm) in normalization_ref.cpp; AddNeuralRefKernels registers them all.
//
// Floats are computed in double and rounded once on store. depth_to_space and
// space_to_depth take every dtype and only move elements (bytes are copied as they are).
//
// ONNX semantics decisions (see also the comments at each kernel):
// - resize follows the ONNX reference implementation (onnx/reference/ops/op_resize.py):
//   the original coordinate is computed per axis from the scale (out / in when sizes is
//   given) exactly as that code does, including align_corners' use of scale * in as the
//   output length; neighbours outside [0, in) are clamped (the reference pads with edge
//   values, which is the same). An integral coordinate reads exactly that element: a
//   neighbour whose weight is zero is not read, so a NaN there does not leak in (in the
//   reference it would, through 0 * NaN, an artefact of its dot product).
// - attention follows ONNX opset 23 with its errata (onnx/onnx#8068, in the reference
//   since onnx 1.23): a fully masked query row, one whose every bias is -inf (keys masked
//   by a bool mask, an additive -inf mask and/or is_causal; or no keys at all), produces
//   an output row of zeros, not NaN (as PyTorch's scaled_dot_product_attention), whatever
//   its raw scores; so does a row whose every biased score is -inf. A bool mask is
//   true = attend, false = -inf bias. is_causal masks key j > query i (top-left aligned,
//   no KV cache). The scale multiplies q.k directly, so a negative scale works (the
//   reference's sqrt(scale) on q and k would make it NaN).
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <string>
#include <vector>

#include "ref/ref_kernels.h"

namespace sy::cpu {

void AddNormalizationRefKernels(KernelTable& table);  // normalization_ref.cpp

namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();

// ---------------------------------------------------------------------------------------
// resize

enum class Coord { kHalfPixel, kAsymmetric, kAlignCorners };
enum class Nearest { kRoundPreferFloor, kRoundPreferCeil, kFloor, kCeil };

// One input element an output coordinate reads along one axis, and its weight.
struct Tap {
  int64_t index;
  double weight;
};

// The coordinate in the input of output coordinate `x` along an axis of `in` elements
// resized by `scale`, as op_resize.py's _interpolate_1d_with_x computes it.
double OriginalCoord(Coord mode, int64_t x, double scale, int64_t in) {
  const double xd = static_cast<double>(x);
  switch (mode) {
    case Coord::kAlignCorners: {
      const double output_width = scale * static_cast<double>(in);
      if (output_width == 1) return 0.0;
      // x * (in - 1) is an exact integer in the reference; in double it is exact below 2^53.
      return xd * static_cast<double>(in - 1) / (output_width - 1);
    }
    case Coord::kAsymmetric:
      return xd / scale;
    case Coord::kHalfPixel:
      break;
  }
  return (xd + 0.5) / scale - 0.5;
}

// An input index clamped to [0, in) (the reference's edge padding).
int64_t ClampIndex(double i, int64_t in) {
  if (!(i > 0)) return 0;  // also NaN, which cannot arise from finite positive scales
  const double last = static_cast<double>(in - 1);
  return i >= last ? in - 1 : static_cast<int64_t>(i);
}

// The taps of every output coordinate along one axis.
std::vector<std::vector<Tap>> AxisTaps(bool linear, Coord coord, Nearest nearest, double scale,
                                       int64_t in, int64_t out) {
  std::vector<std::vector<Tap>> taps(static_cast<size_t>(out));
  for (int64_t x = 0; x < out; ++x) {
    const double ori = OriginalCoord(coord, x, scale, in);
    const double lo = std::floor(ori);
    std::vector<Tap>& t = taps[static_cast<size_t>(x)];
    if (lo == ori) {  // integral: that element alone (the reference's ratio 1)
      t.push_back({ClampIndex(ori, in), 1.0});
      continue;
    }
    const double ratio = ori - lo;  // in (0, 1)
    if (linear) {
      t.push_back({ClampIndex(lo, in), 1.0 - ratio});
      t.push_back({ClampIndex(lo + 1, in), ratio});
      continue;
    }
    bool up = false;
    switch (nearest) {
      case Nearest::kRoundPreferFloor:
        up = ratio > 0.5;
        break;
      case Nearest::kRoundPreferCeil:
        up = ratio >= 0.5;
        break;
      case Nearest::kFloor:
        up = false;
        break;
      case Nearest::kCeil:
        up = true;
        break;
    }
    t.push_back({ClampIndex(up ? lo + 1 : lo, in), 1.0});
  }
  return taps;
}

// resize, modes nearest and linear (multilinear over every axis), for any rank.
Status Resize(const KernelContext& ctx) {
  const ConstTensorView& x = ctx.inputs[0];
  const TensorView& y = ctx.outputs[0];
  if (y.count() == 0) return Status::Ok();
  const size_t rank = static_cast<size_t>(x.rank());
  const bool linear = ctx.attrs.GetString("mode", "nearest") == "linear";
  const std::string coord_name = ctx.attrs.GetString("coordinate_transformation_mode");
  const Coord coord = coord_name == "asymmetric"      ? Coord::kAsymmetric
                      : coord_name == "align_corners" ? Coord::kAlignCorners
                                                      : Coord::kHalfPixel;
  const std::string nearest_name = ctx.attrs.GetString("nearest_mode");
  const Nearest nearest = nearest_name == "round_prefer_ceil" ? Nearest::kRoundPreferCeil
                          : nearest_name == "floor"           ? Nearest::kFloor
                          : nearest_name == "ceil"            ? Nearest::kCeil
                                                              : Nearest::kRoundPreferFloor;
  const bool has_scales = ctx.attrs.Has("scales");
  const std::vector<double> scales =
      has_scales ? ctx.attrs.GetFloats("scales") : std::vector<double>{};
  std::vector<std::vector<std::vector<Tap>>> taps(rank);
  for (size_t d = 0; d < rank; ++d) {
    const int64_t in = x.shape()[d];
    const int64_t out = y.shape()[d];
    // out > 0 here (y is not empty), hence in > 0 too (an empty dim resizes to 0 only).
    const double scale =
        has_scales ? scales[d] : static_cast<double>(out) / static_cast<double>(in);
    // Like the reference, an axis whose scale is close to 1 (math.isclose) and whose
    // size does not change is left as it is.
    if (out == in && std::fabs(scale - 1.0) <= 1e-9 * std::max(1.0, std::fabs(scale))) {
      for (int64_t i = 0; i < out; ++i) taps[d].push_back(std::vector<Tap>{Tap{i, 1.0}});
      continue;
    }
    taps[d] = AxisTaps(linear, coord, nearest, scale, in, out);
  }
  const std::vector<int64_t> in_strides = Strides(x.shape());
  std::vector<int64_t> pos(rank, 0);  // output multi-index
  std::vector<size_t> pick(rank, 0);  // which tap of each axis, while summing the corners
  for (int64_t o = 0; o < y.count(); ++o) {
    double sum = -0.0;  // so that a single tap copies -0.0 as it is
    std::fill(pick.begin(), pick.end(), 0);
    while (true) {
      double w = 1.0;
      int64_t off = 0;
      for (size_t d = 0; d < rank; ++d) {
        const Tap& t = taps[d][static_cast<size_t>(pos[d])][pick[d]];
        w *= t.weight;
        off += t.index * in_strides[d];
      }
      sum += w * LoadFloat(x.dtype(), x.data, off);
      size_t d = rank;  // next corner (odometer over the taps)
      while (d-- > 0) {
        if (++pick[d] < taps[d][static_cast<size_t>(pos[d])].size()) break;
        pick[d] = 0;
      }
      if (d == static_cast<size_t>(-1)) break;
    }
    StoreFloat(y.dtype(), y.data, o, sum);
    for (size_t d = rank; d-- > 0;) {
      if (++pos[d] < y.shape()[d]) break;
      pos[d] = 0;
    }
  }
  return Status::Ok();
}

// ---------------------------------------------------------------------------------------
// depth_to_space and space_to_depth: [N, C, H, W] <-> [N, C / (b * b), H * b, W * b]

void CopyElement(const ConstTensorView& x, int64_t from, const TensorView& y, int64_t to) {
  const size_t size = DTypeSize(x.dtype());
  std::memcpy(y.data + to * static_cast<int64_t>(size), x.data + from * static_cast<int64_t>(size),
              size);
}

// DCR: y[n, c, h*b + i, w*b + j] = x[n, (i*b + j) * C' + c, h, w];
// CRD: y[n, c, h*b + i, w*b + j] = x[n, c*b*b + i*b + j, h, w]   (C' = C / (b * b))
Status DepthToSpace(const KernelContext& ctx) {
  const ConstTensorView& x = ctx.inputs[0];
  const TensorView& y = ctx.outputs[0];
  const int64_t b = ctx.attrs.GetInt("blocksize", 1);
  const bool crd = ctx.attrs.GetString("mode", "DCR") == "CRD";
  const int64_t batch = y.shape()[0], oc = y.shape()[1], oh = y.shape()[2], ow = y.shape()[3];
  const int64_t ic = x.shape()[1], ih = x.shape()[2], iw = x.shape()[3];
  int64_t to = 0;
  for (int64_t n = 0; n < batch; ++n) {
    for (int64_t c = 0; c < oc; ++c) {
      for (int64_t r = 0; r < oh; ++r) {
        for (int64_t s = 0; s < ow; ++s, ++to) {
          const int64_t h = r / b, i = r % b, w = s / b, j = s % b;
          const int64_t channel = crd ? c * b * b + i * b + j : (i * b + j) * oc + c;
          CopyElement(x, ((n * ic + channel) * ih + h) * iw + w, y, to);
        }
      }
    }
  }
  return Status::Ok();
}

// y[n, (i*b + j) * C + c, h, w] = x[n, c, h*b + i, w*b + j]  (ONNX SpaceToDepth)
Status SpaceToDepth(const KernelContext& ctx) {
  const ConstTensorView& x = ctx.inputs[0];
  const TensorView& y = ctx.outputs[0];
  const int64_t b = ctx.attrs.GetInt("blocksize", 1);
  const int64_t batch = y.shape()[0], oc = y.shape()[1], oh = y.shape()[2], ow = y.shape()[3];
  const int64_t ic = x.shape()[1], ih = x.shape()[2], iw = x.shape()[3];
  int64_t to = 0;
  for (int64_t n = 0; n < batch; ++n) {
    for (int64_t k = 0; k < oc; ++k) {
      const int64_t block = k / ic, c = k % ic, i = block / b, j = block % b;
      for (int64_t h = 0; h < oh; ++h) {
        for (int64_t w = 0; w < ow; ++w, ++to) {
          CopyElement(x, ((n * ic + c) * ih + h * b + i) * iw + w * b + j, y, to);
        }
      }
    }
  }
  return Status::Ok();
}

// ---------------------------------------------------------------------------------------
// attention: q [B, Hq, S, D], k [B, Hkv, T, D], v [B, Hkv, T, Dv], optional mask
// broadcasting to [B, Hq, S, T] -> y [B, Hq, S, Dv]
//   y[b, h, i] = sum_j softmax_j(scale * q[b, h, i] . k[b, g, j] + bias[b, h, i, j]) v[b, g, j]
// with g = h / (Hq / Hkv), bias = the mask (additive, or 0 / -inf for bool true / false)
// plus -inf where is_causal and j > i. Fully masked rows give zeros (see the top).
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
  std::vector<double> s(static_cast<size_t>(kv_seq));
  for (int64_t b = 0; b < batch; ++b) {
    for (int64_t h = 0; h < hq; ++h) {
      const int64_t kvh = h / group;
      const int64_t k_base = (b * hkv + kvh) * kv_seq * dim;
      const int64_t v_base = (b * hkv + kvh) * kv_seq * dv;
      for (int64_t i = 0; i < seq; ++i) {
        const int64_t q_base = ((b * hq + h) * seq + i) * dim;
        double m = -kInf;        // max of the biased scores, NaN if any is NaN
        bool all_masked = true;  // every bias is -inf
        for (int64_t j = 0; j < kv_seq; ++j) {
          double bias = 0;
          if (mask != nullptr) {
            const int64_t at =
                b * mask_stride[0] + h * mask_stride[1] + i * mask_stride[2] + j * mask_stride[3];
            bias = mask->dtype() == DType::kBool
                       ? (LoadInt(DType::kBool, mask->data, at) != 0 ? 0.0 : -kInf)
                       : LoadFloat(mask->dtype(), mask->data, at);
          }
          if (causal && j > i) bias += -kInf;  // NaN stays NaN
          if (bias != -kInf) all_masked = false;
          double score = 0;  // with D = 0, 0 whatever the scale (as the reference)
          for (int64_t d = 0; d < dim; ++d) {
            score += scale * LoadFloat(q.dtype(), q.data, q_base + d) *
                     LoadFloat(k.dtype(), k.data, k_base + j * dim + d);
          }
          score += bias;
          s[static_cast<size_t>(j)] = score;
          if (std::isnan(m)) continue;
          if (std::isnan(score) || score > m) m = score;
        }
        const int64_t y_base = ((b * hq + h) * seq + i) * dv;
        // No key left to attend (decided on the bias, so a NaN or +inf score under a
        // fully masked row does not matter), or every biased score is -inf: zeros.
        if (all_masked || m == -kInf) {
          for (int64_t e = 0; e < dv; ++e) StoreFloat(y.dtype(), y.data, y_base + e, 0.0);
          continue;
        }
        double sum = 0;
        for (double& p : s) {
          p = std::exp(p - m);
          sum += p;
        }
        for (int64_t e = 0; e < dv; ++e) {
          double acc = 0;
          for (int64_t j = 0; j < kv_seq; ++j) {
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

}  // namespace

void AddNeuralRefKernels(KernelTable& table) {
  AddNormalizationRefKernels(table);
  table.Add("resize", Resize);
  table.Add("depth_to_space", DepthToSpace);
  table.Add("space_to_depth", SpaceToDepth);
  table.Add("attention", Attention);
  table.Add("rotary_embedding", RotaryEmbedding);
}

}  // namespace sy::cpu
