// Reference kernels for resize, attention and rotary_embedding (grid_sample:
// grid_sample_ref_test.cpp), checked against NumPy (tools/kernel_refs/neural.py; its
// optional --check-onnx run also compares those references with onnx.reference), hand-derived
// values (several from the ONNX backend tests' documented outputs) and identities.
// (softmax and the norms: normalization_ref_test.cpp.) None of these ops has a
// data-dependent error: every check is the schema's.
#include <cmath>
#include <limits>
#include <string>
#include <tuple>
#include <vector>

#include <gtest/gtest.h>

#include "neural_test_util.h"

namespace sy::cpu::test {
namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

// ---------------------------------------------------------------------------------------
// resize

struct ResizeCase {
  const char* name;
  const char* x;
  const char* mode;
  const char* coord;
  const char* nearest;
  std::vector<double> scales;  // or
  std::vector<int64_t> sizes;
};

// The same table as RESIZE_CASES in tools/kernel_refs/neural.py.
const std::vector<ResizeCase>& ResizeCases() {
  static const std::vector<ResizeCase> cases = {
      {"nearest_half_pixel_round_prefer_floor",
       "resize_x",
       "nearest",
       "half_pixel",
       "round_prefer_floor",
       {1.0, 1.0, 2.5, 0.6},
       {}},
      {"nearest_half_pixel_round_prefer_ceil",
       "resize_x",
       "nearest",
       "half_pixel",
       "round_prefer_ceil",
       {1.0, 1.0, 2.5, 0.6},
       {}},
      {"nearest_half_pixel_floor",
       "resize_x",
       "nearest",
       "half_pixel",
       "floor",
       {1.0, 1.0, 2.5, 0.6},
       {}},
      {"nearest_half_pixel_ceil",
       "resize_x",
       "nearest",
       "half_pixel",
       "ceil",
       {1.0, 1.0, 2.5, 0.6},
       {}},
      {"nearest_half_pixel_sizes",
       "resize_x",
       "nearest",
       "half_pixel",
       "round_prefer_floor",
       {},
       {1, 1, 5, 7}},
      {"linear_half_pixel_scales",
       "resize_x",
       "linear",
       "half_pixel",
       "round_prefer_floor",
       {1.0, 1.0, 1.7, 0.8},
       {}},
      {"linear_half_pixel_sizes",
       "resize_x",
       "linear",
       "half_pixel",
       "round_prefer_floor",
       {},
       {1, 1, 7, 2}},
      {"nearest_asymmetric_round_prefer_floor",
       "resize_x",
       "nearest",
       "asymmetric",
       "round_prefer_floor",
       {1.0, 1.0, 2.5, 0.6},
       {}},
      {"nearest_asymmetric_round_prefer_ceil",
       "resize_x",
       "nearest",
       "asymmetric",
       "round_prefer_ceil",
       {1.0, 1.0, 2.5, 0.6},
       {}},
      {"nearest_asymmetric_floor",
       "resize_x",
       "nearest",
       "asymmetric",
       "floor",
       {1.0, 1.0, 2.5, 0.6},
       {}},
      {"nearest_asymmetric_ceil",
       "resize_x",
       "nearest",
       "asymmetric",
       "ceil",
       {1.0, 1.0, 2.5, 0.6},
       {}},
      {"nearest_asymmetric_sizes",
       "resize_x",
       "nearest",
       "asymmetric",
       "round_prefer_floor",
       {},
       {1, 1, 5, 7}},
      {"linear_asymmetric_scales",
       "resize_x",
       "linear",
       "asymmetric",
       "round_prefer_floor",
       {1.0, 1.0, 1.7, 0.8},
       {}},
      {"linear_asymmetric_sizes",
       "resize_x",
       "linear",
       "asymmetric",
       "round_prefer_floor",
       {},
       {1, 1, 7, 2}},
      {"nearest_align_corners_round_prefer_floor",
       "resize_x",
       "nearest",
       "align_corners",
       "round_prefer_floor",
       {1.0, 1.0, 2.5, 0.6},
       {}},
      {"nearest_align_corners_round_prefer_ceil",
       "resize_x",
       "nearest",
       "align_corners",
       "round_prefer_ceil",
       {1.0, 1.0, 2.5, 0.6},
       {}},
      {"nearest_align_corners_floor",
       "resize_x",
       "nearest",
       "align_corners",
       "floor",
       {1.0, 1.0, 2.5, 0.6},
       {}},
      {"nearest_align_corners_ceil",
       "resize_x",
       "nearest",
       "align_corners",
       "ceil",
       {1.0, 1.0, 2.5, 0.6},
       {}},
      {"nearest_align_corners_sizes",
       "resize_x",
       "nearest",
       "align_corners",
       "round_prefer_floor",
       {},
       {1, 1, 5, 7}},
      {"linear_align_corners_scales",
       "resize_x",
       "linear",
       "align_corners",
       "round_prefer_floor",
       {1.0, 1.0, 1.7, 0.8},
       {}},
      {"linear_align_corners_sizes",
       "resize_x",
       "linear",
       "align_corners",
       "round_prefer_floor",
       {},
       {1, 1, 7, 2}},
      {"linear_align_corners_to_one",
       "resize_x",
       "linear",
       "align_corners",
       "round_prefer_floor",
       {},
       {1, 1, 1, 3}},
      {"linear_align_corners_fractional",
       "resize_x",
       "linear",
       "align_corners",
       "round_prefer_floor",
       {1.0, 1.0, 0.5, 0.7},
       {}},
      {"linear_rank3_all_axes",
       "resize_rank3_x",
       "linear",
       "half_pixel",
       "round_prefer_floor",
       {1.5, 0.7, 2.0},
       {}},
      {"nearest_rank3_all_axes",
       "resize_rank3_x",
       "nearest",
       "asymmetric",
       "ceil",
       {2.0, 1.4, 0.5},
       {}},
      {"linear_rank5_trilinear",
       "resize_rank5_x",
       "linear",
       "align_corners",
       "round_prefer_floor",
       {},
       {1, 2, 3, 5, 3}},
      {"linear_rank1", "resize_rank1_x", "linear", "half_pixel", "round_prefer_floor", {}, {8}},
      {"linear_f16",
       "resize_f16_x",
       "linear",
       "asymmetric",
       "round_prefer_floor",
       {1.0, 1.0, 2.0, 1.5},
       {}},
      {"linear_special",
       "resize_special_x",
       "linear",
       "asymmetric",
       "round_prefer_floor",
       {1.0, 2.0},
       {}},
      {"nearest_special",
       "resize_special_x",
       "nearest",
       "half_pixel",
       "round_prefer_floor",
       {1.5, 1.5},
       {}},
  };
  return cases;
}

Attrs ResizeAttrs(std::string mode, std::string coord, std::string nearest,
                  std::vector<double> scales, std::vector<int64_t> sizes) {
  Attrs attrs = MakeAttrs({{"mode", std::move(mode)},
                           {"coordinate_transformation_mode", std::move(coord)},
                           {"nearest_mode", std::move(nearest)}});
  if (sizes.empty()) {
    attrs.Set("scales", std::move(scales));
  } else {
    attrs.Set("sizes", std::move(sizes));
  }
  return attrs;
}

Attrs Scales(std::string mode, std::string coord, std::vector<double> scales) {
  return ResizeAttrs(std::move(mode), std::move(coord), "round_prefer_floor", std::move(scales),
                     {});
}

TEST(NeuralRefResize, MatchesNumPyForEveryModeAndCoordinateTransformation) {
  for (const ResizeCase& c : ResizeCases()) {
    const Tensor y =
        RunRef1("resize", {Ref(c.x)}, ResizeAttrs(c.mode, c.coord, c.nearest, c.scales, c.sizes));
    ExpectClose(y, Ref(std::string("resize_") + c.name + "_y"), c.name);
  }
}

TEST(NeuralRefResize, F64MatchesTheSameReferences) {
  // The f32 inputs are exact in f64: the same references hold, more tightly.
  for (const ResizeCase& c : ResizeCases()) {
    if (std::string(c.x) != "resize_x") continue;
    const Tensor y = RunRef1("resize", {As(Ref(c.x), DType::kF64)},
                             ResizeAttrs(c.mode, c.coord, c.nearest, c.scales, c.sizes));
    ExpectClose(y, Ref(std::string("resize_") + c.name + "_y"), 1e-12, c.name);
  }
}

// Documented outputs of the ONNX backend tests (onnx/backend/test/case/node/resize.py).
TEST(NeuralRefResize, OnnxBackendExamples) {
  const Tensor x22 = Make(DType::kF32, {1, 1, 2, 2}, {1, 2, 3, 4});
  ExpectValues(RunRef1("resize", {x22}, Scales("linear", "half_pixel", {1, 1, 2, 2})), {1, 1, 4, 4},
               {1, 1.25, 1.75, 2, 1.5, 1.75, 2.25, 2.5, 2.5, 2.75, 3.25, 3.5, 3, 3.25, 3.75, 4},
               1e-6, "upsample_scales_linear");
  const double t = 1.0 / 3;
  ExpectValues(RunRef1("resize", {x22}, Scales("linear", "align_corners", {1, 1, 2, 2})),
               {1, 1, 4, 4},
               {1, 1 + t, 1 + 2 * t, 2, 1 + 2 * t, 2, 2 + t, 2 + 2 * t, 2 + t, 2 + 2 * t, 3, 3 + t,
                3, 3 + t, 3 + 2 * t, 4},
               1e-6, "upsample_scales_linear_align_corners");
  ExpectValues(RunRef1("resize", {x22}, Scales("nearest", "half_pixel", {1, 1, 2, 3})),
               {1, 1, 4, 6},
               {1, 1, 1, 2, 2, 2, 1, 1, 1, 2, 2, 2, 3, 3, 3, 4, 4, 4, 3, 3, 3, 4, 4, 4}, 0,
               "upsample_scales_nearest");
  const Tensor x24 = Make(DType::kF32, {1, 1, 2, 4}, {1, 2, 3, 4, 5, 6, 7, 8});
  ExpectValues(RunRef1("resize", {x24}, Scales("nearest", "half_pixel", {1, 1, 0.6, 0.6})),
               {1, 1, 1, 2}, {1, 3}, 0, "downsample_scales_nearest");
  ExpectValues(RunRef1("resize", {x24}, Scales("linear", "half_pixel", {1, 1, 0.6, 0.6})),
               {1, 1, 1, 2}, {2.6666666666666665, 4.333333333333333}, 1e-6,
               "downsample_scales_linear");
}

TEST(NeuralRefResize, HalfPixelClampsAtTheEdgesAndBF16) {
  // half_pixel x2 on [10, 20]: coordinates -0.25, 0.25, 0.75, 1.25 -> clamped at both ends.
  const Tensor x = Make(DType::kBF16, {2}, {10, 20});
  const Tensor y = RunRef1("resize", {x}, Scales("linear", "half_pixel", {2}));
  EXPECT_EQ(y.dtype(), DType::kBF16);
  ExpectValues(y, {4}, {10, 12.5, 17.5, 20}, 0);
}

TEST(NeuralRefResize, ScalarEmptyAndIdentity) {
  ExpectValues(RunRef1("resize", {Make(DType::kF32, {}, {5})}, Scales("linear", "half_pixel", {})),
               {}, {5}, 0);
  EXPECT_EQ(RunRef1("resize", {Make(DType::kF32, {1, 0, 3}, {})},
                    ResizeAttrs("linear", "half_pixel", "floor", {}, {1, 0, 5}))
                .shape(),
            (Shape{1, 0, 5}));
  EXPECT_EQ(RunRef1("resize", {Make(DType::kF32, {2, 3}, {1, 2, 3, 4, 5, 6})},
                    Scales("nearest", "asymmetric", {1, 0.2}))
                .shape(),
            (Shape{2, 0}));
  // Scale 1 (or sizes = the input's) is the identity in every mode, NaN included.
  const Tensor x = Make(DType::kF64, {2, 3}, {1, kNaN, 3, 4, 5, -6});
  for (const char* coord : {"half_pixel", "asymmetric", "align_corners"}) {
    for (const char* mode : {"nearest", "linear"}) {
      ExpectClose(RunRef1("resize", {x}, ResizeAttrs(mode, coord, "ceil", {}, {2, 3})), x, 0,
                  std::string(mode) + " " + coord);
    }
  }
}

// resize mode cubic and the coordinate modes pytorch_half_pixel, tf_half_pixel_for_nn

struct CubicCase {
  std::string name;
  const char* x;
  const char* mode;
  std::string coord;
  std::string nearest;
  std::vector<double> scales;  // or
  std::vector<int64_t> sizes;
  double cubic_a = -0.75;
  int64_t exclude_outside = 0;
};

// The same table as RESIZE_CUBIC_CASES in tools/kernel_refs/neural.py.
const std::vector<CubicCase>& CubicCases() {
  static const std::vector<CubicCase> cases = [] {
    const char* x = "resize_cubic_x";
    std::vector<CubicCase> c;
    for (std::string coord : {"half_pixel", "asymmetric", "align_corners", "pytorch_half_pixel"}) {
      c.push_back({"cubic_" + coord + "_up", x, "cubic", coord, "", {1, 1, 2.0, 1.6}, {}});
      c.push_back({"cubic_" + coord + "_down", x, "cubic", coord, "", {}, {1, 2, 3, 3}});
      c.push_back(
          {"cubic_" + coord + "_exclude", x, "cubic", coord, "", {1, 1, 1.5, 2.2}, {}, -0.5, 1});
    }
    c.push_back({"cubic_a_minus1_sizes", x, "cubic", "half_pixel", "", {}, {1, 2, 7, 9}, -1.0});
    c.push_back({"cubic_pytorch_half_pixel_to_one",
                 x,
                 "cubic",
                 "pytorch_half_pixel",
                 "",
                 {},
                 {1, 2, 1, 3}});
    c.push_back({"linear_pytorch_half_pixel_to_one",
                 x,
                 "linear",
                 "pytorch_half_pixel",
                 "",
                 {},
                 {1, 2, 3, 1}});
    for (std::string nearest : {"round_prefer_floor", "round_prefer_ceil", "floor", "ceil"}) {
      c.push_back({"nearest_tf_half_pixel_for_nn_" + nearest,
                   x,
                   "nearest",
                   "tf_half_pixel_for_nn",
                   nearest,
                   {1, 1, 0.75, 1.7},
                   {}});
    }
    c.push_back(
        {"linear_tf_half_pixel_for_nn", x, "linear", "tf_half_pixel_for_nn", "", {}, {1, 2, 6, 4}});
    c.push_back({"cubic_rank3_all_axes",
                 "resize_cubic_rank3_x",
                 "cubic",
                 "half_pixel",
                 "",
                 {2.0, 0.75, 2.5},
                 {}});
    c.push_back(
        {"cubic_f16", "resize_cubic_f16_x", "cubic", "asymmetric", "", {1, 1, 2.0, 1.5}, {}});
    return c;
  }();
  return cases;
}

Attrs CubicAttrs(const CubicCase& c) {
  Attrs attrs = ResizeAttrs(c.mode, c.coord, c.nearest.empty() ? "round_prefer_floor" : c.nearest,
                            c.scales, c.sizes);
  attrs.Set("cubic_coeff_a", c.cubic_a);
  attrs.Set("exclude_outside", c.exclude_outside);
  return attrs;
}

TEST(NeuralRefResize, CubicAndExtraCoordinateModesMatchNumPy) {
  for (const CubicCase& c : CubicCases()) {
    const Tensor x = Ref(c.x);
    const Tensor y = RunRef1("resize", {x}, CubicAttrs(c));
    ExpectClose(y, Ref("resize_" + c.name + "_y"), c.name);
    if (x.dtype() == DType::kF32) {  // exact in f64: the same references, more tightly
      ExpectClose(RunRef1("resize", {As(x, DType::kF64)}, CubicAttrs(c)),
                  Ref("resize_" + c.name + "_y"), 1e-12, c.name + " f64");
    }
  }
}

// Hand-derived: [1, 2, 4, 8] x2 asymmetric. Keys' weights at ratio 0.5 (a = -0.75) are
// -0.09375, 0.59375, 0.59375, -0.09375; integral coordinates copy the element.
TEST(NeuralRefResize, CubicHandDerived) {
  const Tensor x = Make(DType::kF32, {4}, {1, 2, 4, 8});
  Attrs attrs = Scales("cubic", "asymmetric", {2});
  // 0.5: taps -1 0 1 2 clamped -> 1 1 2 4; 1.5: 1 2 4 8; 2.5: 2 4 8 8; 3.5: 4 8 8 8.
  ExpectValues(RunRef1("resize", {x}, attrs), {8}, {1, 1.3125, 2, 2.71875, 4, 6.1875, 8, 8.375}, 0,
               "a=-0.75");
  // exclude_outside drops the taps outside [0, 4) and renormalizes: 0.5 -> (0.59375 * 1 +
  // 0.59375 * 2 - 0.09375 * 4) / 1.09375 = 9/7; 2.5 -> (-0.09375 * 2 + 0.59375 * 4 +
  // 0.59375 * 8) / 1.09375 = 222/35; 3.5 -> (-0.09375 * 4 + 0.59375 * 8) / 0.5.
  attrs.Set("exclude_outside", int64_t{1});
  ExpectValues(RunRef1("resize", {x}, attrs), {8}, {1, 9.0 / 7, 2, 2.71875, 4, 222.0 / 35, 8, 8.75},
               1e-7, "exclude_outside");
  // a = -0.5 at ratio 0.5: -0.0625, 0.5625, 0.5625, -0.0625.
  attrs = Scales("cubic", "asymmetric", {2});
  attrs.Set("cubic_coeff_a", -0.5);
  ExpectValues(RunRef1("resize", {x}, attrs), {8}, {1, 1.375, 2, 2.8125, 4, 6.125, 8, 8.25}, 0,
               "a=-0.5");
}

// Hand-derived coordinate modes. pytorch_half_pixel is half_pixel except for an output
// length of 1, where it takes element 0; tf_half_pixel_for_nn is (x + 0.5) / scale.
TEST(NeuralRefResize, PytorchHalfPixelAndTfHalfPixelForNn) {
  const Tensor x = Make(DType::kF32, {4}, {1, 2, 4, 8});
  // half_pixel to one element: coordinate 1.5 -> cubic 2.71875; pytorch: element 0.
  ExpectValues(RunRef1("resize", {x}, ResizeAttrs("cubic", "half_pixel", "floor", {}, {1})), {1},
               {2.71875}, 0);
  ExpectValues(RunRef1("resize", {x}, ResizeAttrs("cubic", "pytorch_half_pixel", "floor", {}, {1})),
               {1}, {1}, 0);
  // Same as half_pixel for longer outputs: x2 linear.
  const Tensor a = RunRef1("resize", {x}, Scales("linear", "pytorch_half_pixel", {2}));
  ExpectClose(a, RunRef1("resize", {x}, Scales("linear", "half_pixel", {2})), 0);
  // tf_half_pixel_for_nn, nearest, 4 -> 3 (scale 0.75): coordinates 2/3, 2, 10/3 ->
  // round_prefer_floor 1, 2, 3.
  ExpectValues(
      RunRef1("resize", {x},
              ResizeAttrs("nearest", "tf_half_pixel_for_nn", "round_prefer_floor", {}, {3})),
      {3}, {2, 4, 8}, 0);
  // floor: 0, 2, 3.
  ExpectValues(
      RunRef1("resize", {x}, ResizeAttrs("nearest", "tf_half_pixel_for_nn", "floor", {}, {3})), {3},
      {1, 4, 8}, 0);
}

// Documented outputs of the ONNX backend tests (onnx/backend/test/case/node/resize.py):
// the 4x4 input 1..16 with scales [1, 1, 0.8, 0.8] (first row of each output).
TEST(NeuralRefResize, CubicOnnxBackendExamples) {
  std::vector<double> v(16);
  for (int i = 0; i < 16; ++i) v[static_cast<size_t>(i)] = i + 1;
  const Tensor x = Make(DType::kF32, {1, 1, 4, 4}, v);
  const Tensor down = RunRef1("resize", {x}, Scales("cubic", "half_pixel", {1, 1, 0.8, 0.8}));
  ExpectValues(down, {1, 1, 3, 3},
               {1.47119141, 2.78125, 4.08251953, 6.71142578, 8.02148438, 9.32275391, 11.91650391,
                13.2265625, 14.52783203},
               1e-7, "downsample_scales_cubic");
  Attrs ex = Scales("cubic", "half_pixel", {1, 1, 0.8, 0.8});
  ex.Set("cubic_coeff_a", -0.5);
  ex.Set("exclude_outside", int64_t{1});
  ExpectValues(RunRef1("resize", {x}, ex), {1, 1, 3, 3},
               {1.36812675, 2.6695014, 4.0133367, 6.57362535, 7.875, 9.2188353, 11.94896657,
                13.25034122, 14.59417652},
               1e-7, "downsample_scales_cubic_A_n0p5_exclude_outside");
}

// Resize-18/19's antialias, half_pixel_symmetric and tf_crop_and_resize, and scales given
// with sizes (keep_aspect_ratio_policy): expected values from onnx.reference (onnx 1.23,
// the graphs of the backend tests of the same names).
TEST(NeuralRefResize, AntialiasSymmetricAndCropOnnxReference) {
  std::vector<double> v(16);
  for (int i = 0; i < 16; ++i) v[static_cast<size_t>(i)] = i + 1;
  const Tensor x = Make(DType::kF32, {1, 1, 4, 4}, v);
  Attrs linear = Scales("linear", "half_pixel", {1, 1, 0.6, 0.6});
  linear.Set("antialias", int64_t{1});
  ExpectValues(RunRef1("resize", {x}, linear), {1, 1, 2, 2}, {2.875, 4.5, 9.375, 11}, 1e-7,
               "downsample_scales_linear_antialias");
  Attrs cubic = Scales("cubic", "half_pixel", {1, 1, 0.6, 0.6});
  cubic.Set("antialias", int64_t{1});
  ExpectValues(RunRef1("resize", {x}, cubic), {1, 1, 2, 2},
               {2.51806951, 4.28588581, 9.58933544, 11.357152}, 1e-6,
               "downsample_scales_cubic_antialias");
  const Tensor x22 = Make(DType::kF32, {1, 1, 2, 2}, {1, 2, 3, 4});
  ExpectValues(
      RunRef1("resize", {x22}, Scales("linear", "half_pixel_symmetric", {1, 1, 2.94, 3.68})),
      {1, 1, 5, 7}, {1,         1,         1.22826087, 1.5,       1.77173913, 2,         2,
                     1.3197279, 1.3197279, 1.54798877, 1.8197279, 2.09146714, 2.3197279, 2.3197279,
                     2,         2,         2.22826076, 2.5,       2.77173924, 3,         3,
                     2.6802721, 2.6802721, 2.90853286, 3.1802721, 3.45201111, 3.6802721, 3.6802721,
                     3,         3,         3.22826076, 3.5,       3.77173924, 4,         4},
      1e-6, "upsample_scales_linear_half_pixel_symmetric");
  // A crop inside the input, then one reaching past it: outside coordinates take
  // extrapolation_value.
  Attrs crop = ResizeAttrs("linear", "tf_crop_and_resize", "round_prefer_floor", {}, {1, 1, 3, 3});
  crop.Set("roi", std::vector<double>{0, 0, 0.4, 0.6, 1, 1, 0.6, 0.8});
  ExpectValues(RunRef1("resize", {x}, crop), {1, 1, 3, 3},
               {7.6, 7.9, 8.2, 8.8, 9.1, 9.4, 10, 10.3, 10.6}, 1e-6, "tf_crop_and_resize");
  crop.Set("roi", std::vector<double>{0, 0, 0.4, 0.6, 1, 1, 1.2, 1.7});
  crop.Set("extrapolation_value", 10.0);
  ExpectValues(RunRef1("resize", {x}, crop), {1, 1, 3, 3}, {7.6, 10, 10, 12.4, 10, 10, 10, 10, 10},
               1e-6, "tf_crop_and_resize_extrapolation_value");
  // Given both, sizes is the output and scales the mapping (as keep_aspect_ratio_policy
  // maps): [2, 3] to [3, 3] with scale 1.5 on both axes, so the columns do not stretch.
  Attrs both = ResizeAttrs("nearest", "asymmetric", "floor", {1.5, 1.5}, {});
  both.Set("sizes", std::vector<int64_t>{3, 3});
  const Tensor x23 = Make(DType::kF32, {2, 3}, {1, 2, 3, 4, 5, 6});
  // asymmetric floor: rows floor(i / 1.5) = 0, 0, 1; cols the same.
  ExpectValues(RunRef1("resize", {x23}, both), {3, 3}, {1, 1, 2, 1, 1, 2, 4, 4, 5}, 0,
               "scales with sizes");
}

// ---------------------------------------------------------------------------------------
// attention

struct AttentionCase {
  const char* name;
  bool mask;
  Attrs attrs;
};

TEST(NeuralRefAttention, MatchesNumPy) {
  const AttentionCase cases[] = {
      {"mha", true, {}},
      {"negscale", false, MakeAttrs({{"scale", -0.5}})},
      {"gqa_causal_bool", true, MakeAttrs({{"scale", 0.3}, {"is_causal", int64_t{1}}})},
      {"causal_rect", false, MakeAttrs({{"is_causal", int64_t{1}}})},
      {"causal_tall", false, MakeAttrs({{"is_causal", int64_t{1}}})},
      {"masked_rows", true, {}},
      {"f16", true, {}},
  };
  for (const AttentionCase& c : cases) {
    const std::string p = std::string("attn_") + c.name + "_";
    std::vector<Tensor> inputs = {Ref(p + "q"), Ref(p + "k"), Ref(p + "v")};
    if (c.mask) inputs.push_back(Ref(p + "mask"));
    ExpectClose(RunRef1("attention", inputs, c.attrs), Ref(p + "y"), c.name);
  }
  // f64 (the f32 inputs are exact in f64) and bf16.
  ExpectClose(RunRef1("attention",
                      {As(Ref("attn_mha_q"), DType::kF64), As(Ref("attn_mha_k"), DType::kF64),
                       As(Ref("attn_mha_v"), DType::kF64), As(Ref("attn_mha_mask"), DType::kF64)}),
              Ref("attn_mha_y"), "f64");
  const Tensor yb =
      RunRef1("attention",
              {As(Ref("attn_bf16_q"), DType::kBF16), As(Ref("attn_bf16_k"), DType::kBF16),
               As(Ref("attn_bf16_v"), DType::kBF16)},
              MakeAttrs({{"is_causal", int64_t{1}}}));
  EXPECT_EQ(yb.dtype(), DType::kBF16);
  ExpectClose(yb, Ref("attn_bf16_y"), "bf16");
}

TEST(NeuralRefAttention, FullyMaskedRowsAreZeroAndNaNMaskPropagates) {
  // gqa_causal_bool: head 1 masks key 0, so its query 0 (causal: key 0 only) is zero.
  const std::vector<double> y = Values(Ref("attn_gqa_causal_bool_y"));
  const std::vector<double> got =
      Values(RunRef1("attention",
                     {Ref("attn_gqa_causal_bool_q"), Ref("attn_gqa_causal_bool_k"),
                      Ref("attn_gqa_causal_bool_v"), Ref("attn_gqa_causal_bool_mask")},
                     MakeAttrs({{"scale", 0.3}, {"is_causal", int64_t{1}}})));
  ASSERT_EQ(got.size(), 24u);  // [1, 4, 3, 2]
  EXPECT_EQ(got[6], 0.0);
  EXPECT_EQ(got[7], 0.0);
  // masked_rows: batch 0 query 1 has an all -inf float mask (zeros, every head); batch 1
  // query 2 has a NaN in its mask (NaN).
  const std::vector<double> m =
      Values(RunRef1("attention", {Ref("attn_masked_rows_q"), Ref("attn_masked_rows_k"),
                                   Ref("attn_masked_rows_v"), Ref("attn_masked_rows_mask")}));
  for (int h = 0; h < 3; ++h) {  // [2, 3, 3, 2]
    EXPECT_EQ(m[(h * 3 + 1) * 2], 0.0);
    EXPECT_EQ(m[(h * 3 + 1) * 2 + 1], 0.0);
    EXPECT_TRUE(std::isnan(m[((3 + h) * 3 + 2) * 2]));
  }
  // A bool mask that masks every key: zeros even where the scores are NaN.
  const Tensor q = Make(DType::kF32, {1, 1, 2, 1}, {kNaN, 1});
  const Tensor k = Make(DType::kF32, {1, 1, 2, 1}, {1, 2});
  const Tensor v = Make(DType::kF32, {1, 1, 2, 1}, {3, 4});
  const Tensor none = Make(DType::kBool, {2}, {0, 0});
  ExpectValues(RunRef1("attention", {q, k, v, none}), {1, 1, 2, 1}, {0, 0}, 0);
  ExpectValues(RunRef1("attention", {q, k, v, Make(DType::kBool, {}, {0})}), {1, 1, 2, 1}, {0, 0},
               0);
  // A scalar additive mask shifts every score alike: no effect (row 1: scores 1, 2).
  const double e1 = std::exp(1.0), e2 = std::exp(2.0);
  const std::vector<double> shifted =
      Values(RunRef1("attention", {q, k, v, Make(DType::kF32, {}, {-7})}));
  EXPECT_NEAR(shifted[1], (3 * e1 + 4 * e2) / (e1 + e2), 1e-6);
  // Without the mask the NaN query row is NaN.
  const std::vector<double> nan_row = Values(RunRef1("attention", {q, k, v}));
  EXPECT_TRUE(std::isnan(nan_row[0]));
}

TEST(NeuralRefAttention, HandValues) {
  // Zero queries: uniform weights, the mean of v; one key: that key's value.
  const Tensor q = Make(DType::kF64, {1, 1, 1, 2}, {0, 0});
  const Tensor k = Make(DType::kF64, {1, 1, 3, 2}, {1, 2, 3, 4, 5, 6});
  const Tensor v = Make(DType::kF64, {1, 1, 3, 1}, {1, 2, 6});
  ExpectValues(RunRef1("attention", {q, k, v}), {1, 1, 1, 1}, {3}, 1e-15);
  // q . k = [1, 2] with scale 1 and an additive mask [0, log 2]: weights e : 2e^2.
  const Tensor q1 = Make(DType::kF64, {1, 1, 1, 1}, {1});
  const Tensor k2 = Make(DType::kF64, {1, 1, 2, 1}, {1, 2});
  const Tensor v2 = Make(DType::kF64, {1, 1, 2, 1}, {10, 20});
  const Tensor mask = Make(DType::kF64, {1, 2}, {0, std::log(2.0)});
  const double w0 = std::exp(1.0), w1 = 2 * std::exp(2.0);
  ExpectValues(RunRef1("attention", {q1, k2, v2, mask}, MakeAttrs({{"scale", 1.0}})), {1, 1, 1, 1},
               {(10 * w0 + 20 * w1) / (w0 + w1)}, 1e-14);
  // Causal, S = T = 2: query 0 sees key 0 only.
  const Tensor q2 = Make(DType::kF64, {1, 1, 2, 1}, {1, 1});
  const Tensor y = RunRef1("attention", {q2, k2, v2}, MakeAttrs({{"is_causal", int64_t{1}}}));
  const double a = std::exp(1.0), b = std::exp(2.0);
  ExpectValues(y, {1, 1, 2, 1}, {10, (10 * a + 20 * b) / (a + b)}, 1e-14);
}

TEST(NeuralRefAttention, EmptyDims) {
  // D = 0: every score is 0 (whatever the default scale 1/sqrt(0)): the mean of v.
  const Tensor v = Make(DType::kF32, {1, 1, 3, 2}, {1, 2, 3, 4, 5, 9});
  ExpectValues(RunRef1("attention", {Make(DType::kF32, {1, 1, 2, 0}, {}),
                                     Make(DType::kF32, {1, 1, 3, 0}, {}), v}),
               {1, 1, 2, 2}, {3, 5, 3, 5}, 1e-6);
  // T = 0: no key at all, zeros.
  ExpectValues(RunRef1("attention",
                       {Make(DType::kF32, {1, 2, 1, 2}, {1, 2, 3, 4}),
                        Make(DType::kF32, {1, 1, 0, 2}, {}), Make(DType::kF32, {1, 1, 0, 3}, {})}),
               {1, 2, 1, 3}, {0, 0, 0, 0, 0, 0}, 0);
  // B = 0, S = 0, Hkv = Hq = 0.
  EXPECT_EQ(RunRef1("attention",
                    {Make(DType::kF32, {0, 2, 3, 4}, {}), Make(DType::kF32, {0, 1, 5, 4}, {}),
                     Make(DType::kF32, {0, 1, 5, 6}, {})})
                .shape(),
            (Shape{0, 2, 3, 6}));
  EXPECT_EQ(RunRef1("attention",
                    {Make(DType::kF16, {1, 0, 3, 1}, {}), Make(DType::kF16, {1, 0, 2, 1}, {}),
                     Make(DType::kF16, {1, 0, 2, 1}, {})})
                .shape(),
            (Shape{1, 0, 3, 1}));
  SY_EXPECT_ERROR(RunRef("attention", {Make(DType::kF32, {1, 3, 1, 1}, {1, 2, 3}),
                                       Make(DType::kF32, {1, 2, 1, 1}, {1, 2}),
                                       Make(DType::kF32, {1, 2, 1, 1}, {1, 2})}),
                  "grouped-query");
}

// ---------------------------------------------------------------------------------------
// linear_attention: hand-worked recurrences on one head with Dk = Dv = 1, T = 2,
// q = [1, 1], k = [1, 2], v = [3, 4], a zero start state and scale 1.

TEST(NeuralRefLinearAttention, HandWorkedRecurrences) {
  const auto run = [](double decay, double beta, int64_t delta) {
    const Attrs attrs = MakeAttrs({{"scale", 1.0}, {"delta", delta}});
    return RunRef("linear_attention",
                  {Make(DType::kF32, {1, 1, 2, 1}, {1, 1}), Make(DType::kF32, {1, 1, 2, 1}, {1, 2}),
                   Make(DType::kF32, {1, 1, 2, 1}, {3, 4}), Make(DType::kF32, {1, 1, 1, 1}, {0}),
                   Make(DType::kF32, {1, 1, 2, 1}, {decay, decay}),
                   Make(DType::kF32, {1, 1, 2, 1}, {beta, beta})},
                  attrs, 2);
  };
  // Linear: S = 3, then 3 + 2 * 4 = 11.
  Expected<std::vector<Tensor>> linear = run(0.0, 1.0, 0);
  ASSERT_TRUE(linear.ok()) << linear.status().ToString();
  ExpectValues((*linear)[0], {1, 1, 2, 1}, {3, 11}, 0);
  ExpectValues((*linear)[1], {1, 1, 1, 1}, {11}, 0);
  // Gated by exp(ln 0.5): S = 3, then 0.5 * 3 + 8 = 9.5.
  Expected<std::vector<Tensor>> gated = run(std::log(0.5), 1.0, 0);
  ASSERT_TRUE(gated.ok());
  ExpectValues((*gated)[0], {1, 1, 2, 1}, {3, 9.5}, 1e-6);
  // Delta with beta 0.5: v' = 0.5 * (3 - 0) = 1.5, S = 1.5; v' = 0.5 * (4 - 1.5 * 2) = 0.5,
  // S = 1.5 + 2 * 0.5 = 2.5.
  Expected<std::vector<Tensor>> delta = run(0.0, 0.5, 1);
  ASSERT_TRUE(delta.ok());
  ExpectValues((*delta)[0], {1, 1, 2, 1}, {1.5, 2.5}, 0);
  ExpectValues((*delta)[1], {1, 1, 1, 1}, {2.5}, 0);
}

// ---------------------------------------------------------------------------------------
// rotary_embedding

TEST(NeuralRefRotaryEmbedding, MatchesNumPy) {
  const Tensor x = Ref("rope_x");  // [2, 2, 3, 8]
  for (int64_t inter : {0, 1}) {
    const std::string i = std::to_string(inter);
    ExpectClose(RunRef1("rotary_embedding", {x, Ref("rope_cos"), Ref("rope_sin")},
                        MakeAttrs({{"interleaved", inter}})),
                Ref("rope_i" + i + "_y"), "full, interleaved " + i);
    ExpectClose(RunRef1("rotary_embedding", {x, Ref("rope_r4_cos"), Ref("rope_r4_sin")},
                        MakeAttrs({{"interleaved", inter}, {"rotary_dim", int64_t{4}}})),
                Ref("rope_r4_i" + i + "_y"), "rotary_dim 4, interleaved " + i);
    ExpectClose(RunRef1("rotary_embedding",
                        {As(x, DType::kF64), As(Ref("rope_cos"), DType::kF64),
                         As(Ref("rope_sin"), DType::kF64)},
                        MakeAttrs({{"interleaved", inter}})),
                Ref("rope_i" + i + "_y"), 1e-12, "f64, interleaved " + i);
  }
  ExpectClose(
      RunRef1("rotary_embedding", {Ref("rope_f16_x"), Ref("rope_f16_cos"), Ref("rope_f16_sin")},
              MakeAttrs({{"interleaved", int64_t{1}}})),
      Ref("rope_f16_i1_y"), "f16");
}

TEST(NeuralRefRotaryEmbedding, HandValuesBF16AndEmpty) {
  // A quarter turn (cos 0, sin 1): (x1, x2) -> (-x2, x1); dims past rotary_dim pass.
  const Tensor x = Make(DType::kBF16, {1, 1, 1, 6}, {1, 2, 3, 4, 5, 6});
  const Tensor cos = Make(DType::kBF16, {1, 2}, {0, 0});
  const Tensor sin = Make(DType::kBF16, {1, 2}, {1, 1});
  ExpectValues(RunRef1("rotary_embedding", {x, cos, sin}, MakeAttrs({{"rotary_dim", int64_t{4}}})),
               {1, 1, 1, 6}, {-3, -4, 1, 2, 5, 6}, 0, "halves");
  ExpectValues(RunRef1("rotary_embedding", {x, cos, sin},
                       MakeAttrs({{"rotary_dim", int64_t{4}}, {"interleaved", int64_t{1}}})),
               {1, 1, 1, 6}, {-2, 1, -4, 3, 5, 6}, 0, "pairs");
  // Per position: position 1 has cos 1, sin 0 (identity).
  const Tensor x2 = Make(DType::kF32, {1, 1, 2, 2}, {1, 2, 3, 4});
  ExpectValues(RunRef1("rotary_embedding",
                       {x2, Make(DType::kF32, {2, 1}, {0, 1}), Make(DType::kF32, {2, 1}, {1, 0})}),
               {1, 1, 2, 2}, {-2, 1, 3, 4}, 0, "positions");
  EXPECT_EQ(
      RunRef1("rotary_embedding", {Make(DType::kF32, {2, 3, 0, 4}, {}),
                                   Make(DType::kF32, {0, 2}, {}), Make(DType::kF32, {0, 2}, {})})
          .shape(),
      (Shape{2, 3, 0, 4}));
}

}  // namespace
}  // namespace sy::cpu::test
