// The fast softmax, log_softmax, layer_norm, rms_norm, add_layer_norm, group_norm and
// instance_norm kernels
// (fast/normalization_fast.cpp) against the reference kernels: last and inner axes, row
// lengths below and above the parallel grain, odd sizes, rows with NaN, +inf or only
// -inf, large offsets for the norms, with 1, 2 and 4 threads.
#include <string>
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

// group_norm and instance_norm: x [N, C, spatial...] with groups of one, several and all
// channels, spatial sizes below and above the grain, a large offset (the mean in double),
// NaN and infinities.
TEST(NormalizationFast, GroupNormAndInstanceNorm) {
  struct Case {
    Shape x;
    int64_t groups;
  };
  const Case cases[] = {{{2, 6, 5, 7}, 3},
                        {{1, 32, 40, 40}, 8},
                        {{3, 4, 9}, 1},
                        {{1, 512, 999}, 512},
                        {{2, 8, 3, 4, 5}, 2}};
  for (const Case& c : cases) {
    const auto n = static_cast<size_t>(ElementCount(c.x));
    const auto channels = static_cast<size_t>(c.x[1]);
    const Tensor scale = Make(DType::kF32, {c.x[1]}, Uniform(channels, 0.5, 2, 31));
    const Tensor bias = Make(DType::kF32, {c.x[1]}, Uniform(channels, -1, 1, 32));
    for (const Tensor& x : {Make(DType::kF32, c.x, Uniform(n, 995, 1005, 33)),
                            Make(DType::kF32, c.x, WithSpecials(Uniform(n, -3, 3, 34)))}) {
      ExpectMatchesReference("group_norm", {x, scale, bias}, kNormTol,
                             MakeAttrs({{"num_groups", c.groups}, {"epsilon", 1e-5}}));
      ExpectMatchesReference("instance_norm", {x, scale, bias}, kNormTol,
                             MakeAttrs({{"epsilon", 1e-3}}));
    }
  }
}

// batch_norm: the reference's double expression per channel, so bitwise its result.
TEST(NormalizationFast, BatchNormEqualsTheReferenceBitwise) {
  for (const Shape& shape :
       {Shape{2, 6, 5, 7}, Shape{1, 64, 56, 56}, Shape{3, 4}, Shape{1, 8, 3, 4, 5}}) {
    const auto n = static_cast<size_t>(ElementCount(shape));
    const auto c = static_cast<size_t>(shape[1]);
    const Tensor x = Make(DType::kF32, shape, WithSpecials(Uniform(n, -3, 3, 41)));
    const std::vector<Tensor> inputs = {x, Make(DType::kF32, {shape[1]}, Uniform(c, 0.5, 2, 42)),
                                        Make(DType::kF32, {shape[1]}, Uniform(c, -1, 1, 43)),
                                        Make(DType::kF32, {shape[1]}, Uniform(c, -1, 1, 44)),
                                        Make(DType::kF32, {shape[1]}, Uniform(c, 0.1, 3, 45))};
    ExpectMatchesReference("batch_norm", inputs, Tolerance{0, 0}, MakeAttrs({{"epsilon", 1e-3}}));
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

// add_layer_norm with one or both outputs: y within kNormTol of the reference, the sum
// a + b exactly the reference's (one f32 addition, correctly rounded on both sides), and
// every thread count giving the same bits.
void ExpectAddLayerNormMatches(const std::vector<Tensor>& in, const Attrs& attrs,
                               const std::string& what) {
  for (int outputs : {1, 2}) {
    Expected<std::vector<Tensor>> ref = RunRef("add_layer_norm", in, attrs, outputs);
    SY_ASSERT_OK(ref);
    Expected<std::vector<Tensor>> inline_run =
        Run(FastKernels(), "add_layer_norm", in, attrs, outputs);
    SY_ASSERT_OK(inline_run);
    ASSERT_EQ(inline_run->size(), static_cast<size_t>(outputs));
    const std::string label = what + " outputs=" + std::to_string(outputs);
    ExpectClose((*inline_run)[0], (*ref)[0], kNormTol, label + " y");
    if (outputs == 2) ExpectClose((*inline_run)[1], (*ref)[1], {0, 0}, label + " sum");
    for (int threads : {1, 2, 4}) {
      Expected<std::vector<Tensor>> fast =
          Run(FastKernels(), "add_layer_norm", in, attrs, outputs, Pool(threads));
      SY_ASSERT_OK(fast);
      for (int k = 0; k < outputs; ++k) {
        EXPECT_TRUE(SameValues((*fast)[k], (*inline_run)[k]))
            << label << ": " << threads << " threads changed output " << k;
      }
    }
  }
}

TEST(NormalizationFast, AddLayerNorm) {
  struct Shapes {
    Shape a, b, scale;
    int64_t axis;
  };
  // b of a's shape, of the normalised dims (with and without leading 1s), one element,
  // a repeating block of rows.
  const Shapes cases[] = {
      {{3, 5}, {3, 5}, {5}, -1},
      {{4096, 7}, {7}, {7}, -1},
      {{9, 4099}, {9, 4099}, {4099}, -1},
      {{2, 6, 33}, {1, 6, 33}, {6, 33}, 1},
      {{2, 6, 33}, {}, {1}, 1},
      {{300, 128}, {1, 128}, {128}, -1},
      {{5, 3, 4}, {5, 3, 4}, {3, 4}, -2},
      {{8, 1000}, {8, 1000}, {1000}, 0},
      {{64, 768}, {768}, {768}, -1},
      // b a block of rows that repeats: BERT's position embeddings [1, S, H] added to
      // [B, S, H] (period S), and periods of 20 and 5 rows in a 4-D a.
      {{8, 64, 48}, {1, 64, 48}, {48}, -1},
      {{2, 4, 5, 6}, {4, 5, 6}, {6}, -1},
      {{2, 4, 5, 6}, {1, 1, 5, 6}, {6}, -1},
  };
  uint32_t seed = 30;
  for (const Shapes& c : cases) {
    const auto n = static_cast<size_t>(ElementCount(c.a));
    const auto nb = static_cast<size_t>(ElementCount(c.b));
    const auto ns = static_cast<size_t>(ElementCount(c.scale));
    // The sum has an offset much larger than its spread (the mean must stay in double).
    const Tensor a = Make(DType::kF32, c.a, Uniform(n, 995, 1005, seed++));
    const Tensor b = Make(DType::kF32, c.b, Uniform(nb, -1, 1, seed++));
    const Tensor scale = Make(DType::kF32, c.scale, Uniform(ns, 0.5, 2, seed++));
    const Tensor bias = Make(DType::kF32, c.scale, Uniform(ns, -1, 1, seed++));
    const Attrs attrs = MakeAttrs({{"axis", c.axis}, {"epsilon", 1e-5}});
    const std::string what = a.type().ToString() + " + " + b.type().ToString();
    ExpectAddLayerNormMatches({a, b, scale, bias}, attrs, what);
    ExpectAddLayerNormMatches({a, b, scale}, attrs, what + " no bias");
    const Tensor centred = Make(DType::kF32, c.a, WithSpecials(Uniform(n, -3, 3, seed++)));
    ExpectAddLayerNormMatches({centred, b, scale, bias}, attrs, what + " specials");
  }
}

TEST(NormalizationFast, AddLayerNormOtherCasesUseTheReference) {
  // b broadcast along a column ([3,1] to [2,3,4] over axis -1), scale broadcast within the
  // normalised dims, f16, bf16, f64: the reference's results exactly.
  const Tensor a = Make(DType::kF32, {2, 3, 4}, Uniform(24, -2, 2, 50));
  const Tensor column = Make(DType::kF32, {3, 1}, {0.5, 1.0, 2.0});
  const Tensor scale = Make(DType::kF32, {4}, Uniform(4, 0.5, 2, 51));
  ExpectAddLayerNormMatches({a, column, scale}, {}, "column b");
  ExpectAddLayerNormMatches({a, a, Make(DType::kF32, {3, 1}, {1, 2, 3})}, Axis(1), "scale [3,1]");
  for (DType dt : {DType::kF16, DType::kBF16, DType::kF64}) {
    const Tensor x = Make(dt, {5, 7}, Uniform(35, -2, 2, 52));
    const Tensor s = Make(dt, {7}, Uniform(7, 0.5, 2, 53));
    Expected<std::vector<Tensor>> ref = RunRef("add_layer_norm", {x, x, s}, {}, 2);
    Expected<std::vector<Tensor>> fast =
        sy::cpu::test::Run(FastKernels(), "add_layer_norm", {x, x, s}, {}, 2);
    SY_ASSERT_OK(ref);
    SY_ASSERT_OK(fast);
    EXPECT_TRUE(SameValues((*fast)[0], (*ref)[0])) << DTypeName(dt);
    EXPECT_TRUE(SameValues((*fast)[1], (*ref)[1])) << DTypeName(dt);
  }
  // Empty: no rows, empty rows.
  ExpectAddLayerNormMatches(
      {Make(DType::kF32, {0, 5}, {}), Make(DType::kF32, {5}, Uniform(5, -1, 1, 1)),
       Make(DType::kF32, {5}, Uniform(5, -1, 1, 2))},
      {}, "[0,5]");
  ExpectAddLayerNormMatches(
      {Make(DType::kF32, {3, 0}, {}), Make(DType::kF32, {0}, {}), Make(DType::kF32, {0}, {})}, {},
      "[3,0]");
}

}  // namespace
}  // namespace sy::cpu::test
