// resize's per-axis taps (resize_taps.h): the reference's coordinate modes and kernels.
#include "resize_taps.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <string>

namespace sy::plugin {
namespace {

using Coord = ResizeParams::Coord;
using Interp = ResizeParams::Interp;
using Nearest = ResizeParams::Nearest;

bool IsClose(double a, double b) {  // Python's math.isclose with its default rel_tol
  return std::fabs(a - b) <= 1e-9 * std::max(std::fabs(a), std::fabs(b));
}

// The coordinate in the input of output coordinate x, as op_resize.py's _compute_x_ori.
// output_width is scale * in, a float; out the integral output length.
double OriginalCoord(const ResizeParams& p, size_t axis, int64_t x, double scale, int64_t in,
                     int64_t out) {
  const double xd = static_cast<double>(x);
  const double in_d = static_cast<double>(in);
  const double output_width = scale * in_d;
  switch (p.coord) {
    case Coord::kPytorchHalfPixel:
      // 0 where the output length is 1: the operator's definition and onnxruntime (the
      // reference takes -0.5, which differs only for cubic).
      return out > 1 ? (xd + 0.5) / scale - 0.5 : 0.0;
    case Coord::kTfHalfPixelForNn:
      return (xd + 0.5) / scale;
    case Coord::kAlignCorners:
      if (output_width == 1) return 0.0;
      return xd * (in_d - 1) / (output_width - 1);
    case Coord::kAsymmetric:
      return xd / scale;
    case Coord::kHalfPixelSymmetric: {
      const double adjustment = static_cast<double>(out) / output_width;
      const double center = in_d / 2;
      return center * (1 - adjustment) + (xd + 0.5) / scale - 0.5;
    }
    case Coord::kTfCropAndResize: {
      const size_t rank = p.roi.size() / 2;
      const double start = p.roi[axis], end = p.roi[rank + axis];
      const double from_start = output_width == 1
                                    ? (end - start) * (in_d - 1) / 2
                                    : xd * (end - start) * (in_d - 1) / (output_width - 1);
      return from_start + start * (in_d - 1);
    }
    case Coord::kHalfPixel:
      break;
  }
  return (xd + 0.5) / scale - 0.5;
}

// Keys' cubic convolution kernel with parameter a at distance x.
double Keys(double x, double a) {
  x = std::fabs(x);
  const double x2 = x * x, x3 = x2 * x;
  if (x <= 1) return (a + 2) * x3 - (a + 3) * x2 + 1;
  if (x < 2) return a * x3 - 5 * a * x2 + 8 * a * x - 4 * a;
  return 0.0;
}

// An input index clamped to [0, in) (the reference's edge padding).
int64_t Clamp(int64_t i, int64_t in) { return i < 0 ? 0 : (i >= in ? in - 1 : i); }

// The (offset from base, weight) pairs of one coordinate base + ratio, ratio in (0, 1].
void Weights(const ResizeParams& p, double ratio, double scale,
             std::vector<std::pair<int64_t, double>>& w) {
  w.clear();
  if (p.interp == Interp::kNearest) {
    bool up = true;  // ratio 1: the coordinate is base + 1 itself
    if (ratio < 1) {
      switch (p.nearest) {
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
    }
    w.emplace_back(up ? 1 : 0, 1.0);
    return;
  }
  if (!p.antialias) {
    if (p.interp == Interp::kLinear) {
      w.emplace_back(0, 1.0 - ratio);
      w.emplace_back(1, ratio);
    } else {
      const std::array<double, 4> c = CubicCoeffs(ratio, p.cubic_a);
      for (int k = 0; k < 4; ++k) w.emplace_back(k - 1, c[static_cast<size_t>(k)]);
    }
    return;
  }
  // Antialias: the kernel stretched by 1 / scale when downsampling, its weights
  // normalized to sum 1 (_linear_coeffs_antialias, _cubic_coeffs_antialias).
  const double s = std::min(scale, 1.0);
  const double support = p.interp == Interp::kLinear ? 1.0 : 2.0;
  const auto start = static_cast<int64_t>(std::floor(-support / s) + 1);
  const int64_t end = 2 - start;  // exclusive: 2 - 2 * start taps
  double sum = 0;
  for (int64_t i = start; i < end; ++i) {
    const double arg = (static_cast<double>(i) - ratio) * s;
    const double v = p.interp == Interp::kLinear ? std::clamp(1 - std::fabs(arg), 0.0, 1.0)
                                                 : Keys(arg, p.cubic_a);
    w.emplace_back(i, v);
    sum += v;
  }
  if (sum != 0) {
    for (auto& [offset, v] : w) v /= sum;
  }
}

}  // namespace

std::array<double, 4> CubicCoeffs(double ratio, double a) {
  const double r1 = ratio + 1, q = 1 - ratio, q1 = q + 1;
  return {((a * r1 - 5 * a) * r1 + 8 * a) * r1 - 4 * a,
          ((a + 2) * ratio - (a + 3)) * ratio * ratio + 1, ((a + 2) * q - (a + 3)) * q * q + 1,
          ((a * q1 - 5 * a) * q1 + 8 * a) * q1 - 4 * a};
}

ResizeParams ResizeParams::FromAttrs(const Attrs& attrs) {
  ResizeParams p;
  const std::string mode = attrs.GetString("mode", "nearest");
  p.interp = mode == "linear"  ? Interp::kLinear
             : mode == "cubic" ? Interp::kCubic
                               : Interp::kNearest;
  const std::string coord = attrs.GetString("coordinate_transformation_mode", "half_pixel");
  p.coord = coord == "asymmetric"             ? Coord::kAsymmetric
            : coord == "align_corners"        ? Coord::kAlignCorners
            : coord == "pytorch_half_pixel"   ? Coord::kPytorchHalfPixel
            : coord == "tf_half_pixel_for_nn" ? Coord::kTfHalfPixelForNn
            : coord == "half_pixel_symmetric" ? Coord::kHalfPixelSymmetric
            : coord == "tf_crop_and_resize"   ? Coord::kTfCropAndResize
                                              : Coord::kHalfPixel;
  const std::string nearest = attrs.GetString("nearest_mode", "round_prefer_floor");
  p.nearest = nearest == "round_prefer_ceil" ? Nearest::kRoundPreferCeil
              : nearest == "floor"           ? Nearest::kFloor
              : nearest == "ceil"            ? Nearest::kCeil
                                             : Nearest::kRoundPreferFloor;
  p.cubic_a = attrs.GetFloat("cubic_coeff_a", -0.75);
  p.exclude_outside = attrs.GetInt("exclude_outside", 0) != 0;
  p.antialias = attrs.GetInt("antialias", 0) != 0;
  if (attrs.Has("scales")) p.scales = attrs.GetFloats("scales");
  if (attrs.Has("roi")) p.roi = attrs.GetFloats("roi");
  p.extrapolation_value = attrs.GetFloat("extrapolation_value", 0.0);
  return p;
}

bool ResizeAxisTaps::AnyOutside() const {
  for (size_t x = 0; x + 1 < first.size(); ++x) {
    if (first[x + 1] == first[x]) return true;
  }
  return false;
}

ResizeAxisTaps ComputeResizeAxisTaps(const ResizeParams& p, size_t axis, int64_t in, int64_t out) {
  ResizeAxisTaps t;
  t.first.reserve(static_cast<size_t>(out) + 1);
  t.first.push_back(0);
  const double scale =
      p.scales.empty() ? static_cast<double>(out) / static_cast<double>(in) : p.scales[axis];
  const bool crop = p.coord == Coord::kTfCropAndResize;
  const size_t rank = p.roi.size() / 2;
  const bool identity =
      out == in && IsClose(scale, 1.0) &&
      (!crop || (std::fabs(p.roi[axis]) <= 1e-9 && IsClose(p.roi[rank + axis], 1.0)));
  std::vector<std::pair<int64_t, double>> w;
  for (int64_t x = 0; x < out; ++x) {
    if (identity) {
      t.taps.push_back({x, 1.0});
      t.first.push_back(t.taps.size());
      continue;
    }
    const double ori = OriginalCoord(p, axis, x, scale, in, out);
    if (crop && (ori < 0 || ori > static_cast<double>(in - 1))) {
      t.first.push_back(t.taps.size());  // extrapolation_value
      continue;
    }
    double base = std::floor(ori);
    if (base == ori && !p.antialias) {  // integral: that element alone
      t.taps.push_back({Clamp(static_cast<int64_t>(ori), in), 1.0});
      t.first.push_back(t.taps.size());
      continue;
    }
    double ratio = ori - base;
    if (ratio == 0) {  // the reference's ratio 1 on the left neighbour
      ratio = 1;
      base -= 1;
    }
    Weights(p, ratio, scale, w);
    const auto b = static_cast<int64_t>(base);
    const size_t begin = t.taps.size();
    double kept = 0;
    for (const auto& [offset, weight] : w) {
      const int64_t i = b + offset;
      const bool outside = i < 0 || i >= in;
      if (p.exclude_outside && p.interp != Interp::kNearest && outside) continue;
      kept += weight;
      if (weight != 0) t.taps.push_back({Clamp(i, in), weight});
    }
    if (p.exclude_outside && p.interp != Interp::kNearest && kept != 0) {
      for (size_t k = begin; k < t.taps.size(); ++k) t.taps[k].weight /= kept;
    }
    if (t.taps.size() == begin) t.taps.push_back({Clamp(b + 1, in), 1.0});  // all weights 0
    t.first.push_back(t.taps.size());
  }
  return t;
}

ResizePlan PlanResize(const ResizeParams& p, std::span<const int64_t> in,
                      std::span<const int64_t> out) {
  ResizePlan plan;
  const size_t rank = in.size();
  plan.taps.resize(rank);
  for (size_t d = 0; d < rank; ++d) {
    // out > 0 here (the output is not empty), hence in > 0 too (only an empty dim resizes
    // to 0).
    plan.taps[d] = ComputeResizeAxisTaps(p, d, in[d], out[d]);
    plan.any_outside = plan.any_outside || plan.taps[d].AnyOutside();
  }
  std::vector<size_t> order(rank);
  for (size_t d = 0; d < rank; ++d) order[d] = d;
  std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) {
    return out[a] * in[b] < out[b] * in[a];  // out/in ascending
  });
  for (size_t d : order) {
    const ResizeAxisTaps& t = plan.taps[d];
    bool identity = in[d] == out[d];
    for (int64_t o = 0; identity && o < out[d]; ++o) {
      identity = t.count(o) == 1 && t.at(o)[0].index == o && t.at(o)[0].weight == 1.0;
    }
    if (!identity) plan.passes.push_back(d);
  }
  return plan;
}

}  // namespace sy::plugin
