// The fast softmax, log_softmax, layer_norm and rms_norm kernels
// (fast/normalization_fast.cpp) against the reference kernels: last and inner axes, row
// lengths below and above the parallel grain, odd sizes, rows with NaN, +inf or only
// -inf, large offsets for layer_norm, with 1, 2 and 4 threads.
#include <vector>

#include "fast_test_util.h"

namespace sy::cpu::test {
namespace {

using sy::test::MakeAttrs;

// softmax: f32 exp (2 ulp) and one rounding of 1/sum; outputs sum to 1, so an absolute
// 1e-9 is far below what matters. log_softmax: x - max is exact, log(sum) rounded once.
constexpr Tolerance kSoftmaxTol{5e-7, 1e-9};
constexpr Tolerance kLogSoftmaxTol{3e-7, 1e-6};
constexpr Tolerance kNormTol{2e-7, 1e-7};

Attrs Axis(int64_t axis) { return MakeAttrs({{"axis", axis}}); }

TEST(NormalizationFast, SoftmaxLastAxis) {
  const Shape shapes[] = {{1}, {3, 5}, {4096, 3}, {7, 4099}, {64, 1000}, {2, 3, 257}};
  for (const char* op : {"softmax", "log_softmax"}) {
    const Tolerance tol = op[0] == 's' ? kSoftmaxTol : kLogSoftmaxTol;
    for (const Shape& shape : shapes) {
      const auto n = static_cast<size_t>(ElementCount(shape));
      const Tensor x = Make(DType::kF32, shape, Uniform(n, -8, 8, static_cast<uint32_t>(n)));
      ExpectMatchesReference(op, {x}, tol);
      ExpectMatchesReference(op, {x}, tol, Axis(static_cast<int64_t>(shape.size()) - 1));
    }
  }
}

TEST(NormalizationFast, SoftmaxInnerAxis) {
  // The axis has stride `inner`: tiles of columns, inner both below and above one tile.
  const Shape shapes[] = {{3, 5, 7}, {2, 100, 130}, {40, 64, 65}, {1, 3, 20000}};
  for (const char* op : {"softmax", "log_softmax"}) {
    const Tolerance tol = op[0] == 's' ? kSoftmaxTol : kLogSoftmaxTol;
    for (const Shape& shape : shapes) {
      const auto n = static_cast<size_t>(ElementCount(shape));
      const Tensor x = Make(DType::kF32, shape, WithSpecials(Uniform(n, -8, 8, 17)));
      ExpectMatchesReference(op, {x}, tol, Axis(1));
      ExpectMatchesReference(op, {x}, tol, Axis(0));
    }
  }
}

TEST(NormalizationFast, SoftmaxSpecialRows) {
  const double nan = std::nan(""), inf = INFINITY;
  // Rows: plain, one NaN, one +inf, all -inf, one -inf, huge spread.
  const std::vector<double> v = {1,    2,    3,    4,    1, nan,  3, 4, 1,   inf, 3,  4,
                                 -inf, -inf, -inf, -inf, 1, -inf, 3, 4, -90, 0,   80, -1e30};
  for (const char* op : {"softmax", "log_softmax"}) {
    ExpectMatchesReference(op, {Make(DType::kF32, {6, 4}, v)},
                           op[0] == 's' ? kSoftmaxTol : kLogSoftmaxTol);
    ExpectMatchesReference(op, {Make(DType::kF32, {4, 6}, v)},
                           op[0] == 's' ? kSoftmaxTol : kLogSoftmaxTol, Axis(0));
  }
}

TEST(NormalizationFast, LayerNormAndRmsNorm) {
  struct Shapes {
    Shape x, scale;
    int64_t axis;
  };
  const Shapes cases[] = {
      {{3, 5}, {5}, -1},        {{4096, 7}, {7}, -1},   {{9, 4099}, {4099}, -1},
      {{2, 6, 33}, {6, 33}, 1}, {{2, 6, 33}, {1}, 1},   {{300, 128}, {128}, -1},
      {{5, 3, 4}, {3, 4}, -2},  {{8, 1000}, {1000}, 0},
  };
  for (const Shapes& c : cases) {
    const auto n = static_cast<size_t>(ElementCount(c.x));
    const auto ns = static_cast<size_t>(ElementCount(c.scale));
    // An offset much larger than the spread: the mean must not be rounded to f32.
    std::vector<double> v = Uniform(n, 995, 1005, 21);
    const Tensor x = Make(DType::kF32, c.x, v);
    const Tensor scale = Make(DType::kF32, c.scale, Uniform(ns, 0.5, 2, 22));
    const Tensor bias = Make(DType::kF32, c.scale, Uniform(ns, -1, 1, 23));
    const Attrs attrs = MakeAttrs({{"axis", c.axis}, {"epsilon", 1e-5}});
    ExpectMatchesReference("layer_norm", {x, scale, bias}, kNormTol, attrs);
    ExpectMatchesReference("layer_norm", {x, scale}, kNormTol, attrs);
    ExpectMatchesReference("rms_norm", {x, scale}, kNormTol, attrs);
    const Tensor centred = Make(DType::kF32, c.x, WithSpecials(Uniform(n, -3, 3, 24)));
    ExpectMatchesReference("layer_norm", {centred, scale, bias}, kNormTol, attrs);
    ExpectMatchesReference("rms_norm", {centred, scale}, kNormTol, attrs);
  }
}

TEST(NormalizationFast, OtherCasesUseTheReference) {
  // Scale broadcasting along the normalised dims ([3, 1] to [3, 4]); f16; f64.
  const Tensor x = Make(DType::kF32, {2, 3, 4}, Uniform(24, -2, 2, 5));
  const Tensor scale = Make(DType::kF32, {3, 1}, {0.5, 1.0, 2.0});
  ExpectMatchesReference("layer_norm", {x, scale}, kNormTol, Axis(1));
  ExpectMatchesReference("softmax", {Make(DType::kF16, {2, 3}, Uniform(6, -2, 2, 6))}, {0, 0});
  ExpectMatchesReference(
      "layer_norm",
      {Make(DType::kF64, {2, 3}, Uniform(6, -2, 2, 7)), Make(DType::kF64, {3}, {1, 2, 3})}, {0, 0});
}

}  // namespace
}  // namespace sy::cpu::test
