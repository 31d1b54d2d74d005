// resize's fast kernel (fast/resize_fast.cpp) against the reference kernel, bitwise (the
// sign of zero included): every mode, coordinate transformation and nearest rounding, up
// and down, antialias, exclude_outside, tf_crop_and_resize with extrapolation, axes that
// do not change, ranks 1 to 5, f32 and f64, NaN and infinities in x, and 1, 2 and 4
// threads.
#include <cmath>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "fast/fast_kernels.h"
#include "fast_test_util.h"
#include "kernel_test_util.h"

namespace sy::cpu::test {
namespace {

Tensor RandomX(DType dtype, const Shape& shape, uint32_t seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<double> value(-3.0, 3.0);
  std::vector<double> v(static_cast<size_t>(ElementCount(shape)));
  for (double& x : v) x = value(rng);
  return Make(dtype, shape, v);
}

Attrs ResizeAttrs(const std::string& mode, const std::string& coord, Shape sizes,
                  const std::string& nearest = "round_prefer_floor", bool antialias = false,
                  bool exclude_outside = false) {
  Attrs a;
  a.Set("mode", mode);
  a.Set("coordinate_transformation_mode", coord);
  a.Set("nearest_mode", nearest);
  a.Set("sizes", std::vector<int64_t>(sizes.begin(), sizes.end()));
  if (antialias) a.Set("antialias", int64_t{1});
  if (exclude_outside) a.Set("exclude_outside", int64_t{1});
  return a;
}

void ExpectBitwise(const Tensor& x, const Attrs& attrs, const std::string& what) {
  const Tensor want = RunRef1("resize", {x}, attrs);
  for (int threads : {0, 1, 2, 4}) {
    Expected<std::vector<Tensor>> got =
        Run(FastKernels(), "resize", {x}, attrs, 1, threads == 0 ? nullptr : Pool(threads));
    SY_ASSERT_OK(got);
    EXPECT_TRUE(SameValues((*got)[0], want)) << what << ", " << threads << " threads";
  }
}

TEST(ResizeFast, EqualsTheReferenceBitwise) {
  struct Case {
    Shape x, y;
  };
  const Case cases[] = {
      {{1, 3, 13, 17}, {1, 3, 40, 33}},    // up, unequal ratios
      {{2, 4, 30, 31}, {2, 4, 11, 12}},    // down
      {{1, 2, 9, 9}, {1, 2, 9, 20}},       // one spatial axis unchanged
      {{1, 5, 7, 6}, {1, 5, 14, 12}},      // x2
      {{2, 3, 16}, {2, 3, 40}},            // 1-D
      {{1, 2, 4, 5, 6}, {1, 2, 7, 3, 9}},  // 3-D
  };
  uint32_t seed = 1;
  for (const Case& c : cases) {
    for (const DType dtype : {DType::kF32, DType::kF64}) {
      const Tensor x = RandomX(dtype, c.x, seed += 3);
      for (const char* coord : {"half_pixel", "asymmetric", "align_corners", "pytorch_half_pixel",
                                "tf_half_pixel_for_nn", "half_pixel_symmetric"}) {
        for (const char* mode : {"nearest", "linear", "cubic"}) {
          const std::string what = std::string(mode) + " " + coord + " " + ShapeToString(c.x) +
                                   " -> " + ShapeToString(c.y) + " " +
                                   std::string(DTypeName(dtype));
          ExpectBitwise(x, ResizeAttrs(mode, coord, c.y), what);
        }
        for (const char* nearest : {"round_prefer_ceil", "floor", "ceil"}) {
          ExpectBitwise(x, ResizeAttrs("nearest", coord, c.y, nearest),
                        std::string("nearest ") + nearest + " " + coord);
        }
        ExpectBitwise(x, ResizeAttrs("linear", coord, c.y, "round_prefer_floor", true),
                      std::string("linear antialias ") + coord);
        ExpectBitwise(x, ResizeAttrs("cubic", coord, c.y, "round_prefer_floor", true, true),
                      std::string("cubic antialias exclude_outside ") + coord);
      }
    }
  }
}

TEST(ResizeFast, CropAndExtrapolationAndNonFiniteValues) {
  Tensor x = RandomX(DType::kF32, {1, 2, 10, 12}, 7);
  auto* v = x.mutable_values<float>().data();
  v[5] = std::numeric_limits<float>::quiet_NaN();
  v[30] = std::numeric_limits<float>::infinity();
  v[77] = -std::numeric_limits<float>::infinity();
  v[100] = -0.0f;
  for (const char* mode : {"nearest", "linear", "cubic"}) {
    Attrs a = ResizeAttrs(mode, "tf_crop_and_resize", {1, 2, 15, 9});
    a.Set("roi", std::vector<double>{0, 0, -0.2, 0.1, 1, 1, 1.3, 0.8});
    a.Set("extrapolation_value", -7.5);
    ExpectBitwise(x, a, std::string("tf_crop_and_resize ") + mode);
    ExpectBitwise(x, ResizeAttrs(mode, "half_pixel", {1, 2, 23, 25}),
                  std::string("non-finite x ") + mode);
  }
}

TEST(ResizeFast, UnchangedShapeAndEmptyOutputs) {
  const Tensor x = RandomX(DType::kF32, {2, 3, 4, 5}, 9);
  ExpectBitwise(x, ResizeAttrs("linear", "half_pixel", {2, 3, 4, 5}), "identity");
  ExpectBitwise(RandomX(DType::kF32, {0, 3, 4, 5}, 10),
                ResizeAttrs("linear", "half_pixel", {0, 3, 8, 10}), "empty");
}

}  // namespace
}  // namespace sy::cpu::test
