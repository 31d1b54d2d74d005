// resize's sampling along one axis: for each output coordinate, the input elements it
// reads and their weights, computed as ONNX's reference (onnx/reference/ops/op_resize.py)
// does. Shared by the bundled plugins' resize kernels (cpu reference, OpenCL, CUDA), which
// combine the axes' taps separably: an output element is the sum over every combination
// of one tap per axis of the product of the weights times the element read. Part of
// sy_plugin_common, which sees only the SDK.
//
// Semantics (the catalogue's resize, docs/ops.md):
// - The coordinate in the input of output coordinate x is computed per axis from the
//   axis's scale (`scales`, or out / in when only `sizes` is given) by the coordinate
//   mode, exactly as the reference does (align_corners and tf_crop_and_resize take
//   scale * in as the output length; half_pixel_symmetric centres the output canvas).
// - Taps are the reference's: n neighbours around the coordinate, their weights from the
//   mode's kernel (nearest: one; linear: two; cubic: Keys' four; with antialias and a
//   scale below 1, linear and cubic stretch their kernel by 1 / scale and normalize the
//   weights to sum 1). A neighbour outside [0, in) reads the edge element, or is dropped
//   and the rest renormalized with exclude_outside.
// - A tap whose weight is exactly 0 is dropped (so an integral coordinate reads exactly
//   one element and a NaN beside it does not leak in, as it would through 0 * NaN in the
//   reference's dot product).
// - tf_crop_and_resize: a coordinate outside [0, in - 1] has no taps; the output element
//   is then extrapolation_value.
// - An axis whose size does not change and whose scale is 1 (within 1e-9, as the
//   reference's math.isclose) is left as it is: one tap of weight 1 per coordinate.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

#include "switchyard/attrs.h"

namespace sy::plugin {

// The resize node's attributes, decoded once (validation has checked them).
struct ResizeParams {
  enum class Interp { kNearest, kLinear, kCubic };
  enum class Coord {
    kHalfPixel,
    kHalfPixelSymmetric,
    kAsymmetric,
    kAlignCorners,
    kPytorchHalfPixel,
    kTfHalfPixelForNn,
    kTfCropAndResize,
  };
  enum class Nearest { kRoundPreferFloor, kRoundPreferCeil, kFloor, kCeil };

  Interp interp = Interp::kNearest;
  Coord coord = Coord::kHalfPixel;
  Nearest nearest = Nearest::kRoundPreferFloor;
  double cubic_a = -0.75;
  bool exclude_outside = false;
  bool antialias = false;
  std::vector<double> scales;  // empty: out / in per axis
  std::vector<double> roi;     // tf_crop_and_resize: starts then ends, 2 * rank entries
  double extrapolation_value = 0;

  static ResizeParams FromAttrs(const Attrs& attrs);
};

struct ResizeTap {
  int64_t index;
  double weight;
};

// The taps of one axis: output coordinate x reads taps[first[x] .. first[x + 1]); an
// empty range (tf_crop_and_resize only) stands for extrapolation_value.
struct ResizeAxisTaps {
  std::vector<size_t> first;  // out + 1 entries
  std::vector<ResizeTap> taps;

  size_t count(int64_t x) const {
    return first[static_cast<size_t>(x) + 1] - first[static_cast<size_t>(x)];
  }
  const ResizeTap* at(int64_t x) const { return taps.data() + first[static_cast<size_t>(x)]; }
  bool AnyOutside() const;
};

// Keys' cubic convolution weights (parameter a) of the taps base - 1 .. base + 2 for the
// coordinate base + ratio, written as op_resize.py's _cubic_coeffs; grid_sample's bicubic
// uses them too.
std::array<double, 4> CubicCoeffs(double ratio, double a);

// The taps of axis `axis` (in elements resized to out; out > 0 implies in > 0).
ResizeAxisTaps ComputeResizeAxisTaps(const ResizeParams& p, size_t axis, int64_t in, int64_t out);

// How a separable resize runs, one axis at a time, in the order the cpu reference kernel
// takes (its fast kernel follows it, so that the two agree bitwise): every axis's taps,
// whether some output lies outside tf_crop_and_resize's crop, and the axes that change,
// shrinking ones first (out / in ascending; ties in axis order). `in` and `out` are the
// shapes; out must not be empty.
struct ResizePlan {
  std::vector<ResizeAxisTaps> taps;
  bool any_outside = false;
  std::vector<size_t> passes;

  // Calls f(i) for each output element i (row-major over `out`) that some axis places
  // outside the crop: those are extrapolation_value whatever the passes wrote.
  template <typename F>
  void ForEachOutside(std::span<const int64_t> out, F f) const {
    if (!any_outside) return;
    const size_t rank = out.size();
    std::vector<int64_t> pos(rank, 0);
    int64_t count = 1;
    for (int64_t d : out) count *= d;
    for (int64_t i = 0; i < count; ++i) {
      bool outside = false;
      for (size_t d = 0; d < rank; ++d) outside = outside || taps[d].count(pos[d]) == 0;
      if (outside) f(i);
      for (size_t d = rank; d-- > 0;) {
        if (++pos[d] < out[d]) break;
        pos[d] = 0;
      }
    }
  }
};
ResizePlan PlanResize(const ResizeParams& p, std::span<const int64_t> in,
                      std::span<const int64_t> out);

}  // namespace sy::plugin
