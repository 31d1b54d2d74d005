// The grid_sample reference kernel (neural_ref.cpp), checked against NumPy
// (tools/kernel_refs/neural.py, GRID_SAMPLE_CASES; its optional --check-onnx run compares
// those references with onnx.reference) and hand-derived values. grid_sample has no
// data-dependent error: every check is the schema's.
#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "neural_test_util.h"

namespace sy::cpu::test {
namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

struct GridCase {
  std::string name;
  std::string x;
  std::string grid;
  std::string mode;
  std::string padding;
  int64_t align;
};

// The same table as GRID_SAMPLE_CASES in tools/kernel_refs/neural.py.
const std::vector<GridCase>& GridCases() {
  static const std::vector<GridCase> cases = [] {
    std::vector<GridCase> c;
    const char* modes[] = {"bilinear", "nearest", "bicubic"};
    const char* paddings[] = {"zeros", "border", "reflection"};
    for (std::string mode : modes) {
      for (std::string padding : paddings) {
        for (int64_t align : {0, 1}) {
          for (std::string grid : {"near", "far"}) {
            c.push_back({mode + "_" + padding + "_align" + std::to_string(align) + "_" + grid,
                         "gs_x", "gs_grid_" + grid, mode, padding, align});
          }
        }
      }
    }
    for (std::string mode : modes) {
      for (std::string padding : paddings) {
        c.push_back({"row_" + mode + "_" + padding, "gs_row_x", "gs_row_grid", mode, padding, 1});
        c.push_back({"one_" + mode + "_" + padding, "gs_one_x", "gs_row_grid", mode, padding, 1});
      }
    }
    c.push_back({"f16_bicubic_border", "gs_f16_x", "gs_f16_grid", "bicubic", "border", 0});
    c.push_back({"f16_bilinear_zeros", "gs_f16_x", "gs_f16_grid", "bilinear", "zeros", 1});
    return c;
  }();
  return cases;
}

Attrs GridAttrs(std::string mode, std::string padding, int64_t align) {
  return MakeAttrs(
      {{"mode", std::move(mode)}, {"padding_mode", std::move(padding)}, {"align_corners", align}});
}

TEST(NeuralRefGridSample, MatchesNumPyForEveryModePaddingAndAlignment) {
  for (const GridCase& c : GridCases()) {
    const Tensor x = Ref(c.x);
    const Tensor grid = As(Ref(c.grid), x.dtype());  // one float dtype for both
    const Tensor y = RunRef1("grid_sample", {x, grid}, GridAttrs(c.mode, c.padding, c.align));
    EXPECT_EQ(y.dtype(), x.dtype());
    ExpectClose(y, Ref("gs_" + c.name + "_y"), c.name);
  }
}

TEST(NeuralRefGridSample, F64MatchesTheSameReferences) {
  for (const GridCase& c : GridCases()) {
    if (c.x != "gs_x") continue;
    const Tensor y =
        RunRef1("grid_sample", {As(Ref(c.x), DType::kF64), As(Ref(c.grid), DType::kF64)},
                GridAttrs(c.mode, c.padding, c.align));
    ExpectClose(y, Ref("gs_" + c.name + "_y"), 1e-12, c.name);
  }
}

// Hand-derived on x = [[1, 2], [3, 4]]; grid entries are (x, y) = (along W, along H).
TEST(NeuralRefGridSample, BilinearHandDerived) {
  const Tensor x = Make(DType::kF32, {1, 1, 2, 2}, {1, 2, 3, 4});
  // align_corners: -1 and 1 are the corner elements' centres; 0 is the middle.
  const Tensor g1 = Make(DType::kF32, {1, 1, 4, 2}, {-1, -1, 1, 1, 0, 0, 1, -1});
  ExpectValues(RunRef1("grid_sample", {x, g1}, GridAttrs("bilinear", "zeros", 1)), {1, 1, 1, 4},
               {1, 4, 2.5, 2}, 0, "align_corners");
  // Without align_corners -1 and 1 are the outer edges: (-1, -1) is (-0.5, -0.5). zeros:
  // a quarter of element (0, 0); border and reflection: element (0, 0) itself. (-2, 0) is
  // (-1.5, 0.5): zeros 0; border clamps x to 0 -> (1 + 3) / 2; reflection folds -1.5 at
  // -0.5 to 0.5 -> 2.5.
  const Tensor g0 = Make(DType::kF32, {1, 1, 3, 2}, {0, 0, -1, -1, -2, 0});
  ExpectValues(RunRef1("grid_sample", {x, g0}, GridAttrs("bilinear", "zeros", 0)), {1, 1, 1, 3},
               {2.5, 0.25, 0}, 0, "zeros");
  ExpectValues(RunRef1("grid_sample", {x, g0}, GridAttrs("bilinear", "border", 0)), {1, 1, 1, 3},
               {2.5, 1, 2}, 0, "border");
  ExpectValues(RunRef1("grid_sample", {x, g0}, GridAttrs("bilinear", "reflection", 0)),
               {1, 1, 1, 3}, {2.5, 1, 2.5}, 0, "reflection");
}

TEST(NeuralRefGridSample, VolumetricHandDerived) {
  // x [1, 1, 2, 2, 2] = 0 .. 7 (index d * 4 + h * 2 + w); grid (x, y, z) reads W, H, D.
  std::vector<double> v(8);
  for (int i = 0; i < 8; ++i) v[static_cast<size_t>(i)] = i;
  const Tensor x = Make(DType::kF32, {1, 1, 2, 2, 2}, v);
  // align_corners: the centre averages all eight; a unit step along x, y or z reads
  // element 1, 2 or 4; zeros padding without align_corners: (-1, -1, -1) is
  // (-0.5, -0.5, -0.5), an eighth of element 0, which is 0.
  const Tensor g = Make(DType::kF32, {1, 1, 1, 4, 3}, {0, 0, 0, 1, -1, -1, -1, 1, -1, -1, -1, 1});
  ExpectValues(RunRef1("grid_sample", {x, g}, GridAttrs("bilinear", "zeros", 1)), {1, 1, 1, 1, 4},
               {3.5, 1, 2, 4}, 0, "trilinear align_corners");
  const Tensor corner = Make(DType::kF32, {1, 1, 1, 1, 3}, {1, 1, 1});
  ExpectValues(RunRef1("grid_sample", {x, corner}, GridAttrs("bilinear", "zeros", 0)),
               {1, 1, 1, 1, 1}, {7.0 / 8}, 0, "zeros: an eighth of element 7");
  // nearest, align_corners: (0.2, -0.6, 0.9) -> (0.6, 0.2, 0.95) -> w 1, h 0, d 1.
  const Tensor near = Make(DType::kF32, {1, 1, 1, 1, 3}, {0.2, -0.6, 0.9});
  ExpectValues(RunRef1("grid_sample", {x, near}, GridAttrs("nearest", "border", 1)),
               {1, 1, 1, 1, 1}, {5}, 0, "nearest");
}

TEST(NeuralRefGridSample, NearestRoundsHalfToEven) {
  // One row [10 .. 14] (W = 5, H = 1), align_corners: x = (g + 1) * 2, y = 0. g = -0.75,
  // -0.25, 0.25, 0.75 -> 0.5, 1.5, 2.5, 3.5 -> 0, 2, 2, 4; g = 0.1 -> 2.2 -> 2.
  const Tensor x = Make(DType::kF64, {1, 1, 1, 5}, {10, 11, 12, 13, 14});
  const Tensor g = Make(DType::kF64, {1, 1, 5, 2}, {-0.75, 0, -0.25, 0, 0.25, 0, 0.75, 0, 0.1, 0});
  ExpectValues(RunRef1("grid_sample", {x, g}, GridAttrs("nearest", "zeros", 1)), {1, 1, 1, 5},
               {10, 12, 12, 14, 12}, 0);
  // Out of range: g = 2.5 -> x = 7: zeros 0, border the last, reflection about [0, 4] -> 1.
  const Tensor far = Make(DType::kF64, {1, 1, 1, 2}, {2.5, 0});
  ExpectValues(RunRef1("grid_sample", {x, far}, GridAttrs("nearest", "zeros", 1)), {1, 1, 1, 1},
               {0}, 0);
  ExpectValues(RunRef1("grid_sample", {x, far}, GridAttrs("nearest", "border", 1)), {1, 1, 1, 1},
               {14}, 0);
  ExpectValues(RunRef1("grid_sample", {x, far}, GridAttrs("nearest", "reflection", 1)),
               {1, 1, 1, 1}, {11}, 0);
}

TEST(NeuralRefGridSample, BicubicHandDerived) {
  // One row [1, 2, 4, 8] (H = 1, y = 0 exactly), no align_corners: x = 2g + 1.5.
  const Tensor x = Make(DType::kF32, {1, 1, 1, 4}, {1, 2, 4, 8});
  const Tensor g = Make(DType::kF32, {1, 1, 2, 2}, {0, 0, -0.5, 0});
  // 1.5: taps 0..3 -> 2.71875. 0.5: taps -1..2; zeros reads 0 at -1 -> 1.40625; border and
  // reflection read element 0 there -> 1.3125.
  ExpectValues(RunRef1("grid_sample", {x, g}, GridAttrs("bicubic", "zeros", 0)), {1, 1, 1, 2},
               {2.71875, 1.40625}, 0, "zeros");
  ExpectValues(RunRef1("grid_sample", {x, g}, GridAttrs("bicubic", "border", 0)), {1, 1, 1, 2},
               {2.71875, 1.3125}, 0, "border");
  ExpectValues(RunRef1("grid_sample", {x, g}, GridAttrs("bicubic", "reflection", 0)), {1, 1, 1, 2},
               {2.71875, 1.3125}, 0, "reflection");
}

TEST(NeuralRefGridSample, NonFiniteGridEmptyAndBF16) {
  const Tensor x = Make(DType::kF32, {1, 2, 2, 2}, {1, 2, 3, 4, 5, 6, 7, 8});
  const Tensor g = Make(DType::kF32, {1, 1, 2, 2}, {kNaN, 0, 0, 0});
  // (0, 0) is (0.5, 0.5): the mean of each channel, or element (0, 0) for nearest (0.5
  // rounds to 0).
  for (const char* mode : {"bilinear", "nearest", "bicubic"}) {
    const Tensor y = RunRef1("grid_sample", {x, g}, GridAttrs(mode, "border", 0));
    const bool nearest = std::string(mode) == "nearest";
    ExpectValues(y, {1, 2, 1, 2}, {kNaN, nearest ? 1 : 2.5, kNaN, nearest ? 5 : 6.5}, 1e-7, mode);
  }
  // A zero-weight tap is not read: a NaN next to an exact hit does not leak in.
  const Tensor xn = Make(DType::kF32, {1, 1, 1, 2}, {5, kNaN});
  ExpectValues(RunRef1("grid_sample", {xn, Make(DType::kF32, {1, 1, 1, 2}, {-1, 0})},
                       GridAttrs("bilinear", "zeros", 1)),
               {1, 1, 1, 1}, {5}, 0, "zero weight");
  EXPECT_EQ(RunRef1("grid_sample",
                    {Make(DType::kF32, {0, 2, 3, 3}, {}), Make(DType::kF32, {0, 4, 5, 2}, {})},
                    GridAttrs("bilinear", "zeros", 0))
                .shape(),
            (Shape{0, 2, 4, 5}));
  const Tensor xb = Make(DType::kBF16, {1, 1, 2, 2}, {1, 2, 3, 4});
  const Tensor gb = Make(DType::kBF16, {1, 1, 1, 2}, {0, 0});
  const Tensor yb = RunRef1("grid_sample", {xb, gb}, GridAttrs("bilinear", "zeros", 1));
  EXPECT_EQ(yb.dtype(), DType::kBF16);
  ExpectValues(yb, {1, 1, 1, 1}, {2.5}, 0);
}

}  // namespace
}  // namespace sy::cpu::test
